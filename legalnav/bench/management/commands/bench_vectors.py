"""``manage.py bench_vectors``: upsert throughput and top-10 search latency of a vector store.

Builds one collection of random unit vectors with a ``matter_id`` payload, then times top-10
searches unfiltered and filtered by matter, and checks each result against a numpy brute force
(recall@10), because a fast index that returns the wrong passages is no use to a citation.

Random vectors are the hard case for an approximate index (every point is almost equally far from
every other); real sentence embeddings are easier, so these figures are an upper bound.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.retrieval.vectors import EdgeVectorStore, ServerVectorStore, VectorStore

COLLECTION = "bench"
WARMUP = 5


class LatencyStats(TypedDict):
    p50_ms: float
    p95_ms: float
    mean_ms: float
    max_ms: float
    recall_at_10: float


class BenchResult(TypedDict):
    backend: str
    points: int
    dim: int
    matters: int
    queries: int
    upsert_seconds: float
    upsert_per_s: float
    unfiltered: LatencyStats
    filtered: LatencyStats


def unit_vectors(rng: np.random.Generator, rows: int, dim: int) -> np.ndarray:
    x = rng.standard_normal((rows, dim), dtype=np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x


def exact_top10(
    vectors: np.ndarray, queries: np.ndarray, allowed: list[np.ndarray | None]
) -> list[set[int]]:
    """The true top 10 ids per query (ids are row numbers), restricted to ``allowed`` rows."""
    out: list[set[int]] = []
    for start in range(0, len(queries), 64):  # 64 queries x N floats at a time bounds memory
        sims = vectors @ queries[start : start + 64].T
        for j in range(sims.shape[1]):
            column = sims[:, j]
            mask = allowed[start + j]
            if mask is not None:
                column = np.where(mask, column, -np.inf)
            top = np.argpartition(-column, 10)[:10] if column.size > 10 else np.arange(column.size)
            out.append({int(i) for i in top if np.isfinite(column[i])})
    return out


def time_searches(
    store: VectorStore,
    queries: np.ndarray,
    wheres: list[dict[str, Any] | None],
    truth: list[set[int]],
) -> LatencyStats:
    for i in range(min(WARMUP, len(queries))):  # page in the segments before timing
        store.search(COLLECTION, queries[i], limit=10, where=wheres[i])
    latencies: list[float] = []
    recall: list[float] = []
    for query, where, expected in zip(queries, wheres, truth, strict=True):
        started = time.perf_counter()
        hits = store.search(COLLECTION, query, limit=10, where=where)
        latencies.append((time.perf_counter() - started) * 1000)
        recall.append(len({h.id for h in hits} & expected) / max(len(expected), 1))
    ms = np.array(latencies)
    return {
        "p50_ms": round(float(np.percentile(ms, 50)), 2),
        "p95_ms": round(float(np.percentile(ms, 95)), 2),
        "mean_ms": round(float(ms.mean()), 2),
        "max_ms": round(float(ms.max()), 2),
        "recall_at_10": round(float(np.mean(recall)), 4),
    }


def vector_bench(
    *,
    store: VectorStore,
    backend: str,
    points: int,
    dim: int,
    queries: int,
    matters: int,
    chunk: int,
    seed: int,
) -> BenchResult:
    """Fill ``store`` with ``points`` random vectors in upserts of ``chunk`` points (each upsert
    returns with its points indexed, so the time includes index building), then time searches."""
    rng = np.random.default_rng(seed)
    vectors = unit_vectors(rng, points, dim)
    matter_of = rng.integers(0, matters, size=points)
    probes = unit_vectors(rng, queries, dim)

    store.ensure_collection(COLLECTION, dim)
    started = time.perf_counter()
    for start in range(0, points, chunk):
        stop = min(start + chunk, points)
        payloads = [{"matter_id": int(m)} for m in matter_of[start:stop]]
        store.upsert(COLLECTION, range(start, stop), vectors[start:stop], payloads)
    upsert_seconds = time.perf_counter() - started
    if store.count(COLLECTION) != points:
        raise RuntimeError(f"expected {points} points, the store has {store.count(COLLECTION)}")

    plain: list[dict[str, Any] | None] = [None] * queries
    by_matter: list[dict[str, Any] | None] = [{"matter_id": i % matters} for i in range(queries)]
    masks: list[np.ndarray | None] = [matter_of == i % matters for i in range(queries)]
    return {
        "backend": backend,
        "points": points,
        "dim": dim,
        "matters": matters,
        "queries": queries,
        "upsert_seconds": round(upsert_seconds, 2),
        "upsert_per_s": round(points / upsert_seconds),
        "unfiltered": time_searches(
            store, probes, plain, exact_top10(vectors, probes, [None] * queries)
        ),
        "filtered": time_searches(store, probes, by_matter, exact_top10(vectors, probes, masks)),
    }


def format_table(result: BenchResult) -> str:
    lines = [
        f"backend  {result['backend']}",
        f"points   {result['points']:,} x {result['dim']}, {result['matters']} matters",
        f"upsert   {result['upsert_per_s']:,} points/s "
        f"({result['upsert_seconds']} s, including index build)",
        "",
        f"{'top-10 search':<20}{'p50 ms':>9}{'p95 ms':>9}{'mean ms':>9}{'max ms':>9}"
        f"{'recall@10':>11}",
    ]
    for label, key in (("unfiltered", "unfiltered"), ("matter_id filter", "filtered")):
        s: LatencyStats = result[key]  # type: ignore[literal-required]
        lines.append(
            f"{label:<20}{s['p50_ms']:>9.2f}{s['p95_ms']:>9.2f}{s['mean_ms']:>9.2f}"
            f"{s['max_ms']:>9.2f}{s['recall_at_10']:>11.3f}"
        )
    lines.append(f"({result['queries']} queries each, after {WARMUP} warm-up searches)")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Measure vector store upsert throughput and search latency on random unit vectors."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--points", type=int, default=200_000)
        parser.add_argument("--dim", type=int, default=384)
        parser.add_argument("--queries", type=int, default=200)
        parser.add_argument("--matters", type=int, default=20)
        parser.add_argument(
            "--chunk", type=int, default=10_000, help="Points per upsert call (default 10,000)."
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--backend",
            choices=["edge", "server-memory"],
            default="edge",
            help="edge: Qdrant Edge in-process; server-memory: qdrant-client's local mode.",
        )
        parser.add_argument(
            "--folder", help="Edge: keep the shard here (default: a temporary folder, removed)."
        )
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args: object, **opts: Any) -> None:
        for name in ("points", "dim", "queries", "matters", "chunk"):
            if opts[name] < 1:
                raise CommandError(f"--{name} must be at least 1")
        scratch: Path | None = None
        store: VectorStore
        if opts["backend"] == "edge":
            folder = Path(opts["folder"]) if opts["folder"] else None
            if folder is None:
                scratch = folder = Path(tempfile.mkdtemp(prefix="bench-vectors-"))
            elif (folder / COLLECTION).exists():
                shutil.rmtree(folder / COLLECTION)  # a fresh collection each run
            store = EdgeVectorStore(folder)
            backend = "edge (Qdrant Edge in-process, int8 scan + rescore)"
        else:
            from qdrant_client import QdrantClient

            store = ServerVectorStore(client=QdrantClient(location=":memory:"))
            backend = "server-memory (qdrant-client local mode)"
        try:
            result = vector_bench(
                store=store,
                backend=backend,
                points=opts["points"],
                dim=opts["dim"],
                queries=opts["queries"],
                matters=opts["matters"],
                chunk=opts["chunk"],
                seed=opts["seed"],
            )
        finally:
            store.close()
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
        self.stdout.write(json.dumps(result, indent=2) if opts["json"] else format_table(result))
