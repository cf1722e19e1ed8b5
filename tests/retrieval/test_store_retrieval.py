"""Matter retrieval through the vector store: the indexing task stores each document's passage
vectors in Qdrant (the in-process engine, or a server through qdrant-client), and dense rankings
then come from the store, equal to the exact in-memory search over the same vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from legalnav.documents.models import Document
from legalnav.documents.services import (
    document_add,
    document_delete,
    document_index,
    document_reindex,
)
from legalnav.retrieval import services as retrieval_services
from legalnav.retrieval.engine import Corpus, Retriever
from legalnav.retrieval.services import collection_name, matter_retriever
from legalnav.retrieval.vectors import EdgeVectorStore, ServerVectorStore
from tests.conftest import demo_bytes

pytestmark = pytest.mark.django_db

QUESTIONS = [
    "Which state's law governs the agreement?",
    "How may the agreement be terminated?",
    "Who owns the intellectual property developed under the agreement?",
]


@pytest.fixture(params=["edge", "server"])
def store(request, settings, tmp_path: Path, monkeypatch):
    """A fresh store per test: Qdrant Edge in a temporary folder, or qdrant-client's in-memory
    Qdrant behind the server backend (the code path a QDRANT_URL takes)."""
    if request.param == "edge":
        made = EdgeVectorStore(tmp_path / "edge")
    else:
        from qdrant_client import QdrantClient

        made = ServerVectorStore(client=QdrantClient(location=":memory:"))
        settings.QDRANT_URL = "http://qdrant.invalid:6333"  # never dialled: the client is given
    settings.VECTOR_STORE = request.param
    settings.EMBED_ON_INDEX = True
    monkeypatch.setattr(retrieval_services, "get_vector_store", lambda: made)
    yield made
    made.close()


def _index(matter, name: str = "bioamber-development-agreement.txt") -> Document:
    doc, _ = document_add(matter=matter, filename=name, data=demo_bytes(name), kind="agreement")
    document_index(document_id=doc.pk)
    doc.refresh_from_db()
    assert doc.status == Document.Status.INDEXED, doc.error_message
    return doc


def _memory_ranking(retriever: Retriever, question: str, depth: int):
    plain = Retriever(Corpus(retriever.corpus.docs, embedder=retriever.corpus.embedder))
    return plain.dense_ranking(question, depth)


def test_indexing_stores_every_passage_and_dense_search_uses_the_store(store, matter) -> None:
    doc = _index(matter)
    matter_retriever.__globals__["_RETRIEVERS"].clear()
    built = matter_retriever(matter=matter)
    corpus = built.retriever.corpus
    name = collection_name(corpus.embedder)
    assert doc.vector_collection == name
    assert store.count(name) == corpus.size > 50
    assert corpus.vector_search is not None
    for question in QUESTIONS:
        ranking, scores = built.retriever.dense_ranking(question, 10)
        expected, expected_scores = _memory_ranking(built.retriever, question, 10)
        assert ranking == expected
        assert np.allclose(
            [scores[r] for r in ranking], [expected_scores[r] for r in ranking], atol=1e-4
        )


def test_search_is_limited_to_the_matters_documents(store, matter) -> None:
    from tests.conftest import MatterFactory

    _index(matter)
    other = MatterFactory()
    _index(other, "bioamber-development-agreement-first-amendment.txt")
    for m in (matter, other):
        built = matter_retriever(matter=m)
        rows, _ = built.retriever.dense_ranking("amendment of the agreement", 50)
        # Every slot is filled from this matter: without the filter, the other matter's
        # passages would take some of them and be dropped.
        assert len(rows) == min(50, built.retriever.corpus.size)


def test_reindex_and_delete_replace_and_remove_the_points(store, matter) -> None:
    doc = _index(matter)
    name = doc.vector_collection
    before = store.count(name)
    document_reindex(document=doc, force=True)
    document_index(document_id=doc.pk)
    doc.refresh_from_db()
    assert doc.status == Document.Status.INDEXED and doc.vector_collection == name
    assert store.count(name) == before  # replaced, not added twice
    document_delete(document=doc)
    assert store.count(name) == 0


def test_a_document_missing_from_the_store_makes_retrieval_search_in_memory(store, matter) -> None:
    doc = _index(matter)
    Document.objects.filter(pk=doc.pk).update(vector_collection="")
    built = matter_retriever(matter=matter)
    assert built.retriever.corpus.vector_search is None
    ranking, _ = built.retriever.dense_ranking(QUESTIONS[0], 5)
    assert len(ranking) == 5


def test_a_failing_store_does_not_fail_the_question(store, matter, monkeypatch) -> None:
    _index(matter)
    matter_retriever.__globals__["_RETRIEVERS"].clear()
    built = matter_retriever(matter=matter)
    expected, _ = _memory_ranking(built.retriever, QUESTIONS[1], 10)

    def broken(*args, **kwargs):
        raise ConnectionError("qdrant is down")

    monkeypatch.setattr(store, "search", broken)
    ranking, _ = built.retriever.dense_ranking(QUESTIONS[1], 10)
    assert ranking == expected
    assert built.retriever.corpus.vector_search is None  # later questions skip the store


def test_an_unreachable_store_still_indexes_and_caches_the_vectors(
    store, matter, monkeypatch
) -> None:
    def down(*args, **kwargs):
        raise ConnectionError("qdrant is down")

    monkeypatch.setattr(store, "ensure_collection", down)
    doc = _index(matter)
    assert doc.vector_collection == ""
    built = matter_retriever(matter=matter)
    assert built.retriever.corpus.vector_search is None
    assert built.retriever.corpus.docs[0].vectors is not None  # embedded at indexing anyway
    assert not np.isnan(built.retriever.corpus.docs[0].vectors).any()
