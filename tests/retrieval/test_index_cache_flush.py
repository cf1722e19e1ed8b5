"""The retrieval index cache writes itself: what a search, a job or a command computed (a new
document index, new passage vectors) reaches the on-disk cache when the request, the job or the
process ends, without anyone calling ``flush_index_cache()``.

Documents are indexed here without embedding (``EMBED_ON_INDEX`` is off in tests), so their first
dense search embeds every passage; a hashing embedder keeps that instant."""

from __future__ import annotations

import hashlib
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from django.http import HttpRequest, JsonResponse
from django.urls import path

from legalnav.core import jobs
from legalnav.documents import services as documents_services
from legalnav.matters.models import Matter
from legalnav.retrieval import services as retrieval_services
from legalnav.retrieval.engine import Corpus
from legalnav.retrieval.index import DocIndex, IndexCache
from legalnav.retrieval.vector_cache import passage_key
from tests.conftest import DEMO, REPO, MatterFactory, demo_bytes, index_bioamber_pair
from tests.retrieval.embedders import HashEmbedder

pytestmark = pytest.mark.django_db


@pytest.fixture
def cache_dir(settings, tmp_path: Path, monkeypatch) -> Path:
    """An empty index cache for this test, and the hashing embedder for dense retrieval."""
    settings.INDEX_CACHE_DIR = tmp_path / "index-cache"
    monkeypatch.setattr(retrieval_services, "get_embedder", HashEmbedder)
    return settings.INDEX_CACHE_DIR


def on_disk(folder: Path, text: str) -> DocIndex | None:
    """The document's index as a new process would read it from the cache folder."""
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    found = sorted(folder.glob(f"{sha}-*.pkl"))
    if not found:
        return None
    with found[0].open("rb") as fh:
        return pickle.load(fh)


def assert_embedded(folder: Path, text: str) -> None:
    stored = on_disk(folder, text)
    assert stored is not None, "the document's index was never written to the cache"
    assert stored.vectors is not None and stored.embedder == HashEmbedder.name
    assert not np.isnan(stored.vectors).any(), "some passage vectors were not written"


def search_view(request: HttpRequest, matter_id: int) -> JsonResponse:
    """A search as the API's does it (legalnav.api.search), with no call to flush."""
    built = retrieval_services.matter_retriever(matter=Matter.objects.get(pk=matter_id))
    ranked = built.retriever.ranked_passages(request.GET["q"], "dense", 5)
    return JsonResponse({"hits": len(ranked)})


urlpatterns = [path("search/<int:matter_id>/", search_view)]


@pytest.mark.urls(__name__)
def test_a_search_request_writes_the_vectors_it_computed(matter, client, cache_dir) -> None:
    base, amendment = index_bioamber_pair(matter)
    assert on_disk(cache_dir, base.text) is None  # nothing embedded at indexing
    response = client.get(f"/search/{matter.pk}/", {"q": "Which law governs the agreement?"})
    assert response.status_code == 200 and response.json()["hits"] == 5
    for doc in (base, amendment):
        assert_embedded(cache_dir, doc.text)


def test_a_job_writes_the_vectors_it_computed(matter, cache_dir, monkeypatch) -> None:
    base, amendment = index_bioamber_pair(matter)

    def search_job(pk: int, owner: str, reraise: tuple[type[BaseException], ...] = ()) -> str:
        # Any job that retrieves, as answering a question does.
        built = retrieval_services.matter_retriever(matter=matter)
        assert built.retriever.dense_ranking("Which law governs the agreement?", 5)[0]
        return "done"

    monkeypatch.setattr(documents_services, "document_index_job", search_job)
    assert jobs.run_job("document", base.pk, owner="test") == "done"
    for doc in (base, amendment):
        assert_embedded(cache_dir, doc.text)


EXIT_SCRIPT = """
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
import django
django.setup()
from legalnav.retrieval.engine import Corpus
from legalnav.retrieval.services import index_cache
from tests.retrieval.embedders import HashEmbedder
cache = index_cache()
doc = cache.get(open(sys.argv[1], encoding="utf-8").read())
Corpus([doc], embedder=HashEmbedder(), cache=cache).ensure_vectors()
"""


def test_a_command_writes_the_vectors_it_computed_when_it_exits(tmp_path: Path) -> None:
    folder = tmp_path / "index-cache"
    path = DEMO / "bioamber-development-agreement-first-amendment.txt"
    subprocess.run(
        [sys.executable, "-c", EXIT_SCRIPT, str(path)],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "INDEX_CACHE_DIR": str(folder), "LOG_LEVEL": "WARNING"},
        check=True,
        timeout=120,
    )
    assert_embedded(folder, path.read_text(encoding="utf-8"))


def test_a_failed_write_is_tried_again_by_the_next_flush(tmp_path: Path, monkeypatch) -> None:
    cache = IndexCache(tmp_path)
    text = (DEMO / "bioamber-development-agreement-first-amendment.txt").read_text("utf-8")
    Corpus([cache.get(text)], embedder=HashEmbedder(), cache=cache).ensure_vectors()
    real_dump = pickle.dump

    def disk_full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pickle, "dump", disk_full)
    with pytest.raises(OSError):
        cache.flush()
    assert cache.dirty and on_disk(tmp_path, text) is None
    monkeypatch.setattr(pickle, "dump", real_dump)
    assert cache.flush() == 1 and not cache.dirty
    assert_embedded(tmp_path, text)
    assert cache.flush() == 0  # nothing changed since


@pytest.mark.urls(__name__)
def test_deleting_a_document_forgets_its_cached_index_and_vectors(
    matter, client, cache_dir
) -> None:
    base, amendment = index_bioamber_pair(matter)
    client.get(f"/search/{matter.pk}/", {"q": "Which law governs the agreement?"})
    retrieval_services.flush_index_cache()
    for doc in (base, amendment):
        assert_embedded(cache_dir, doc.text)
    stored = on_disk(cache_dir, base.text)
    keys = [passage_key(p.indexed_text) for p in stored.passages]
    vectors = retrieval_services.index_cache().passages
    assert vectors.get_many(HashEmbedder.name, keys, stored.vectors.shape[1])

    # The same file in another matter keeps the shared cache while it exists.
    twin, _ = documents_services.document_add(
        matter=MatterFactory(),
        filename="copy.txt",
        data=demo_bytes("bioamber-development-agreement.txt"),
        enqueue=False,
    )
    documents_services.document_index(document_id=twin.pk)
    twin.refresh_from_db()
    assert twin.sha256 == base.sha256 and twin.text == base.text
    documents_services.document_delete(document=base)
    assert on_disk(cache_dir, base.text) is not None
    documents_services.document_delete(document=twin)
    assert on_disk(cache_dir, twin.text) is None
    assert not vectors.get_many(HashEmbedder.name, keys, stored.vectors.shape[1])
    # Nothing leaks back from memory at the next flush; the amendment is untouched.
    retrieval_services.flush_index_cache()
    assert on_disk(cache_dir, base.text) is None
    assert_embedded(cache_dir, amendment.text)
