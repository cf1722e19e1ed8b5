"""Both vector stores against a numpy brute force: exact neighbours, filters, deletes, persistence.

The server backend runs qdrant-client's local mode (``QdrantClient(location=":memory:")``): the
same client calls and models as against a server, which this project does not ship.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command

from legalnav.retrieval.vectors import (
    EdgeVectorStore,
    ServerVectorStore,
    VectorHit,
    VectorStore,
    VectorStoreLocked,
    get_vector_store,
)
from tests.conftest import REPO

# qdrant-client's local mode warns that payload indexes do nothing there; the adapter still
# creates them because a real server uses them.
pytestmark = pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")

DIM = 48
N = 600
NAME = "passages"


def unit(rows: int, dim: int = DIM, *, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((rows, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.fixture(params=["edge", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    if request.param == "edge":
        made: VectorStore = EdgeVectorStore(tmp_path / "edge")
    else:
        from qdrant_client import QdrantClient

        made = ServerVectorStore(client=QdrantClient(location=":memory:"))
    yield made
    made.close()


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray, list[dict[str, int]]]:
    """Ids that are not 0..N-1 (as row ids are not), 30 documents in 4 matters."""
    ids = np.arange(N, dtype=np.int64) * 3 + 7
    vectors = unit(N, seed=1)
    payloads = [
        {"document_id": int(i % 30), "matter_id": int(i % 30) % 4, "node_id": int(i)}
        for i in range(N)
    ]
    return ids, vectors, payloads


@pytest.fixture
def filled(store: VectorStore, data) -> VectorStore:
    ids, vectors, payloads = data
    store.ensure_collection(NAME, DIM)
    store.upsert(NAME, ids.tolist(), vectors, payloads)
    return store


def brute_force(data, query: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[int]:
    ids, vectors, _ = data
    sims = vectors @ query
    if mask is not None:
        sims = np.where(mask, sims, -np.inf)
    order = np.argsort(-sims, kind="stable")[:k]
    return [int(ids[i]) for i in order if np.isfinite(sims[i])]


def test_search_returns_exact_nearest_neighbours_in_order(filled: VectorStore, data) -> None:
    assert filled.count(NAME) == N
    _, vectors, payloads = data
    for seed in range(5):
        query = unit(1, seed=100 + seed)[0]
        hits = filled.search(NAME, query, limit=10)
        assert [h.id for h in hits] == brute_force(data, query, 10)
        assert all(isinstance(h, VectorHit) for h in hits)
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        row = (hits[0].id - 7) // 3
        assert hits[0].score == pytest.approx(float(vectors[row] @ query), abs=1e-4)
        assert hits[0].payload == payloads[row]


def test_a_stored_vector_finds_itself_first(filled: VectorStore, data) -> None:
    ids, vectors, _ = data
    hits = filled.search(NAME, vectors[123], limit=3)
    assert hits[0].id == int(ids[123])
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)


def test_filter_by_matter(filled: VectorStore, data) -> None:
    _, _, payloads = data
    matter = np.array([p["matter_id"] for p in payloads])
    query = unit(1, seed=7)[0]
    hits = filled.search(NAME, query, limit=10, where={"matter_id": 2})
    assert [h.id for h in hits] == brute_force(data, query, 10, matter == 2)
    assert {h.payload["matter_id"] for h in hits} == {2}


def test_filter_by_any_of_documents_and_matter(filled: VectorStore, data) -> None:
    _, _, payloads = data
    doc = np.array([p["document_id"] for p in payloads])
    matter = np.array([p["matter_id"] for p in payloads])
    query = unit(1, seed=8)[0]
    hits = filled.search(NAME, query, limit=15, where={"document_id": [3, 7]})
    assert [h.id for h in hits] == brute_force(data, query, 15, np.isin(doc, [3, 7]))
    assert {h.payload["document_id"] for h in hits} == {3, 7}
    # Conditions combine with AND: document 3 is in matter 3, document 6 in matter 2.
    both = filled.search(NAME, query, limit=50, where={"document_id": [3, 6], "matter_id": 3})
    assert [h.id for h in both] == brute_force(data, query, 50, (doc == 3) & (matter == 3))
    assert len(both) == N // 30  # all of document 3's points, none of document 6's
    assert filled.search(NAME, query, limit=5, where={"document_id": []}) == []
    assert filled.search(NAME, query, limit=5, where={"matter_id": 99}) == []


def test_delete_where_removes_one_documents_points(filled: VectorStore, data) -> None:
    ids, vectors, payloads = data
    doc = np.array([p["document_id"] for p in payloads])
    filled.delete_where(NAME, field="document_id", value=5)
    assert filled.count(NAME) == N - int((doc == 5).sum())
    victim = int(np.flatnonzero(doc == 5)[0])
    hits = filled.search(NAME, vectors[victim], limit=N)
    assert int(ids[victim]) not in {h.id for h in hits}
    assert all(h.payload["document_id"] != 5 for h in hits)
    assert filled.search(NAME, vectors[victim], limit=5, where={"document_id": 5}) == []
    filled.delete_where(NAME, field="document_id", value=5)  # again: nothing left to delete
    assert filled.count(NAME) == N - int((doc == 5).sum())


def test_upsert_replaces_a_point(filled: VectorStore, data) -> None:
    ids, vectors, _ = data
    target = int(ids[0])
    new_vector = unit(1, seed=55)[0]
    filled.upsert(NAME, [target], new_vector[None, :], [{"document_id": 99, "matter_id": 9}])
    assert filled.count(NAME) == N
    hit = filled.search(NAME, new_vector, limit=1)[0]
    assert (hit.id, hit.payload) == (target, {"document_id": 99, "matter_id": 9})
    old = filled.search(NAME, vectors[0], limit=1)[0]
    assert not (old.id == target and old.score > 0.999)  # the old vector is gone


def test_missing_and_empty_collections(store: VectorStore) -> None:
    query = unit(1, seed=3)[0]
    assert store.search("nothing-here", query, limit=5) == []
    assert store.count("nothing-here") == 0
    store.delete_where("nothing-here", field="document_id", value=1)  # no-op, no error
    store.ensure_collection("empty", DIM)
    assert store.search("empty", query, limit=5) == []
    assert store.count("empty") == 0
    store.ensure_collection("empty", DIM)  # idempotent
    assert store.count("empty") == 0


@pytest.mark.parametrize(
    ("ids", "vectors", "payloads", "message"),
    [
        ([1, 2], unit(2, DIM + 1, seed=1), [{}, {}], "dimension"),
        ([1, 2], unit(3, seed=1), [{}, {}], "2 ids but 3 vectors"),
        ([1, 2], unit(2, seed=1), [{}], "2 ids but 1 payloads"),
        ([1, -2], unit(2, seed=1), [{}, {}], "non-negative"),
        ([1.5, 2], unit(2, seed=1), [{}, {}], "non-negative integers"),
        ([1, 2], np.array([[np.nan] * DIM, [1.0] * DIM], dtype=np.float32), [{}, {}], "NaN"),
        ([1, 2], np.zeros((2, DIM), dtype=np.float32), [{}, {}], "all-zero"),
        ([1], unit(1, seed=1)[0], [{}], "2-D"),
    ],
)
def test_bad_upserts_raise_value_error(
    store: VectorStore, ids: list, vectors: np.ndarray, payloads: list, message: str
) -> None:
    store.ensure_collection(NAME, DIM)
    with pytest.raises(ValueError, match=message):
        store.upsert(NAME, ids, vectors, payloads)
    assert store.count(NAME) == 0


def test_bad_searches_and_collections_raise_value_error(filled: VectorStore) -> None:
    good = unit(1, seed=1)[0]
    with pytest.raises(ValueError, match="dimension"):
        filled.search(NAME, unit(1, DIM - 1, seed=1)[0], limit=5)
    nan = good.copy()
    nan[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        filled.search(NAME, nan, limit=5)
    with pytest.raises(ValueError, match="limit"):
        filled.search(NAME, good, limit=0)
    with pytest.raises(ValueError, match="int or str"):
        filled.search(NAME, good, limit=5, where={"matter_id": 1.5})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="has dimension 48, not 64"):
        filled.ensure_collection(NAME, 64)
    with pytest.raises(ValueError, match="collection name"):
        filled.ensure_collection("../escape", DIM)
    with pytest.raises(ValueError, match="ensure_collection"):
        filled.upsert("never-made", [1], good[None, :], [{}])


def test_upserts_larger_than_one_batch(store: VectorStore) -> None:
    """2,500 points cross the 1,000-point batches; the top hit of each probe is itself."""
    vectors = unit(2_500, 16, seed=9)
    store.ensure_collection("big", 16)
    store.upsert("big", list(range(2_500)), vectors, [{"matter_id": i % 3} for i in range(2_500)])
    assert store.count("big") == 2_500
    for row in (0, 999, 1_000, 2_499):
        assert store.search("big", vectors[row], limit=1)[0].id == row


def test_edge_quantized_segments_still_give_exact_neighbours(tmp_path: Path) -> None:
    """Past the indexing threshold (~6.5k points of dimension 384) Edge searches int8 codes and
    re-scores; the top 10 must still be the exact ones, with and without a filter."""
    dim, n = 384, 8_000
    vectors = unit(n, dim, seed=11)
    matters = np.arange(n) % 20
    store = EdgeVectorStore(tmp_path / "edge")
    try:
        store.ensure_collection(NAME, dim)
        store.upsert(NAME, list(range(n)), vectors, [{"matter_id": int(m)} for m in matters])
        info = store._shards[NAME].info()
        assert info.indexed_vectors_count >= n - 1_000  # the quantized segment really exists
        for seed in range(10):
            query = unit(1, dim, seed=300 + seed)[0]
            sims = vectors @ query
            top = np.argsort(-sims)[:10].tolist()
            assert [h.id for h in store.search(NAME, query, limit=10)] == top
            masked = np.where(matters == seed, sims, -np.inf)
            hits = store.search(NAME, query, limit=10, where={"matter_id": seed})
            assert [h.id for h in hits] == np.argsort(-masked)[:10].tolist()
            assert hits[0].score == pytest.approx(float(masked.max()), abs=1e-4)
    finally:
        store.close()


def test_edge_persists_across_reopen(tmp_path: Path, data) -> None:
    ids, vectors, payloads = data
    first = EdgeVectorStore(tmp_path / "edge")
    first.ensure_collection(NAME, DIM)
    first.upsert(NAME, ids.tolist(), vectors, payloads)
    first.delete_where(NAME, field="document_id", value=0)
    expected = first.count(NAME)
    first.close()

    again = EdgeVectorStore(tmp_path / "edge")
    try:
        assert again.count(NAME) == expected == N - N // 30
        query = unit(1, seed=21)[0]
        doc = np.array([p["document_id"] for p in payloads])
        assert [h.id for h in again.search(NAME, query, limit=10)] == brute_force(
            data, query, 10, doc != 0
        )
        with pytest.raises(ValueError, match="has dimension 48"):
            again.ensure_collection(NAME, 64)  # the dimension is read back from disk
    finally:
        again.close()


def test_edge_persists_for_another_process(tmp_path: Path, data) -> None:
    ids, vectors, payloads = data
    first = EdgeVectorStore(tmp_path / "edge")
    first.ensure_collection(NAME, DIM)
    first.upsert(NAME, ids.tolist(), vectors, payloads)
    first.close()
    script = (
        "from pathlib import Path; import numpy as np;"
        "from legalnav.retrieval.vectors import EdgeVectorStore;"
        f"s = EdgeVectorStore(Path({str(tmp_path / 'edge')!r}));"
        f"print(s.count({NAME!r}), s.search({NAME!r}, np.ones({DIM}, np.float32), limit=1)[0].id)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    expected_top = brute_force(data, np.ones(DIM, np.float32) / np.sqrt(DIM), 1)[0]
    assert out.stdout.split() == [str(N), str(expected_top)]


def test_edge_shard_held_open_elsewhere_raises_locked(tmp_path: Path) -> None:
    first = EdgeVectorStore(tmp_path / "edge")
    first.ensure_collection(NAME, DIM)
    second = EdgeVectorStore(tmp_path / "edge", lock_timeout=0.2)
    try:
        with pytest.raises(VectorStoreLocked, match="open elsewhere"):
            second.count(NAME)
        first.close()  # releases the lock: now the second store can open it
        assert second.count(NAME) == 0
    finally:
        first.close()
        second.close()


def test_get_vector_store_follows_settings(settings, tmp_path: Path) -> None:
    get_vector_store.cache_clear()
    try:
        settings.QDRANT_URL = ""
        settings.VAR_DIR = tmp_path
        edge = get_vector_store()
        assert isinstance(edge, EdgeVectorStore)
        assert edge.folder == tmp_path / "qdrant-edge"
        assert get_vector_store() is edge
        get_vector_store.cache_clear()
        settings.QDRANT_URL = "http://qdrant.invalid:6333"
        settings.QDRANT_API_KEY = "k"
        server = get_vector_store()
        assert isinstance(server, ServerVectorStore)
        assert server.url == "http://qdrant.invalid:6333"
        server.close()  # never connected: nothing to close, no error
    finally:
        get_vector_store.cache_clear()


@pytest.mark.parametrize("backend", ["edge", "server-memory"])
def test_bench_command_reports_exact_results(backend: str) -> None:
    out = StringIO()
    call_command(
        "bench_vectors",
        "--points=400",
        "--dim=32",
        "--queries=12",
        "--matters=4",
        "--chunk=150",
        f"--backend={backend}",
        "--json",
        stdout=out,
    )
    result = json.loads(out.getvalue())
    assert result["points"] == 400 and result["upsert_per_s"] > 0
    for key in ("unfiltered", "filtered"):
        assert result[key]["recall_at_10"] == 1.0
        stats = result[key]
        assert 0 <= stats["p50_ms"] <= stats["p95_ms"] <= stats["max_ms"] and stats["max_ms"] > 0


def test_importing_the_module_loads_no_engine() -> None:
    script = (
        "import sys, legalnav.retrieval.vectors;"
        "print([m for m in ('qdrant_client', 'qdrant_edge') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
