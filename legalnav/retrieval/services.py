"""Retrieval over a matter's indexed documents, with the same engine as the measurement door."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from threading import Lock

from django.conf import settings

from legalnav.documents.models import Document
from legalnav.matters.models import Matter
from legalnav.retrieval.embeddings import get_embedder
from legalnav.retrieval.engine import Corpus, Retriever
from legalnav.retrieval.index import IndexCache

_CACHES: dict[str, IndexCache] = {}
_RETRIEVERS: OrderedDict[tuple[tuple[int, str], ...], MatterRetriever] = OrderedDict()
_LOCK = Lock()


@dataclass
class MatterRetriever:
    documents: list[Document]  # position i is corpus document i
    retriever: Retriever


def index_cache() -> IndexCache:
    folder = str(settings.INDEX_CACHE_DIR)
    cache = _CACHES.get(folder)
    if cache is None:
        cache = _CACHES[folder] = IndexCache(Path(folder))
    return cache


def matter_retriever(*, matter: Matter, dense: bool = True) -> MatterRetriever:
    """A retriever over the matter's indexed documents; reused while they are unchanged."""
    documents = list(
        Document.objects.filter(matter=matter, status=Document.Status.INDEXED)
        .select_related("amends")
        .order_by("effective_date", "id")
    )
    key = tuple((d.pk, d.indexed_sha256) for d in documents) + (
        (0, "dense" if dense else "lexical"),
        (0, str(settings.INDEX_CACHE_DIR)),
    )
    with _LOCK:
        found = _RETRIEVERS.get(key)
        if found is not None:
            _RETRIEVERS.move_to_end(key)
            return found
        cache = index_cache()
        docs = [cache.get(d.text) for d in documents]
        built = MatterRetriever(
            documents,
            Retriever(Corpus(docs, embedder=get_embedder() if dense else None, cache=cache)),
        )
        _RETRIEVERS[key] = built
        while len(_RETRIEVERS) > 8:
            _RETRIEVERS.popitem(last=False)
        return built


def flush_index_cache() -> None:
    index_cache().flush()


def embed_document_text(text: str) -> int:
    """Embed every passage of a document (cached by content hash); returns how many passages."""
    cache = index_cache()
    doc = cache.get(text)
    corpus = Corpus([doc], embedder=get_embedder(), cache=cache)
    import numpy as np

    corpus._ensure_vectors(np.arange(corpus.size))  # noqa: SLF001 - the corpus owns the cache
    cache.flush()
    return corpus.size
