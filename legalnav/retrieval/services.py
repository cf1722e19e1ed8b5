"""Retrieval over a matter's indexed documents, with the same engine as the measurement door."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path
from threading import Lock

import numpy as np
from django.conf import settings
from django.db.models import F

from legalnav.core.lru import LruCache
from legalnav.documents.models import CrossReference, Document
from legalnav.matters.models import Matter
from legalnav.retrieval.embeddings import Embedder, get_embedder
from legalnav.retrieval.engine import Corpus, Retriever, VectorSearch
from legalnav.retrieval.index import DocIndex, IndexCache
from legalnav.retrieval.rerank import get_reranker
from legalnav.retrieval.targeting import DocProfile, opening_text
from legalnav.retrieval.vectors import VectorStore, get_vector_store

logger = logging.getLogger(__name__)

# Point ids are document pk * PASSAGE_SPAN + passage number: unique across documents, stable
# across re-indexing of the same text, and readable back without a payload lookup.
PASSAGE_SPAN = 1 << 20

_CACHES: dict[str, IndexCache] = {}
_RETRIEVERS: LruCache[tuple[tuple[int, str], ...], MatterRetriever] = LruCache(8)
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
        .select_related("amends", "case_card")
        .order_by("effective_date", "id")
    )
    key = tuple((d.pk, f"{d.indexed_sha256}:{d.vector_collection}") for d in documents) + (
        (0, "dense" if dense else "lexical"),
        (0, str(settings.INDEX_CACHE_DIR)),
        (0, settings.RERANKER_MODEL),
    )

    def build() -> MatterRetriever:
        cache = index_cache()
        docs = [cache.get(d.text) for d in documents]
        embedder = get_embedder() if dense else None
        search = _store_search(documents, docs, embedder) if embedder is not None else None
        return MatterRetriever(
            documents,
            Retriever(
                Corpus(
                    docs,
                    embedder=embedder,
                    cache=cache,
                    vector_search=search,
                    pairs=amendment_pairs(documents, docs),
                    profiles=document_profiles(documents, docs),
                    texts=[d.text for d in documents],
                ),
                reranker=get_reranker() if dense else None,
            ),
        )

    with _LOCK:
        return _RETRIEVERS.get_or_make(key, build)


def document_profiles(documents: list[Document], docs: list[DocIndex]) -> list[DocProfile]:
    """What a question may name each document by: its key, title, kind, date, parties (a
    judgment's from its case card; an agreement names its own in its opening words) and the
    position of the document it amends, so that an amendment is searched with its agreement."""
    position = {d.pk: i for i, d in enumerate(documents)}
    profiles = []
    for document, doc in zip(documents, docs, strict=True):
        card = (
            getattr(document, "case_card", None)
            if document.kind == Document.Kind.JUDGMENT
            else None
        )
        parties: tuple[str, ...] = ()
        if card is not None:
            parties = (card.case_name, *card.appellants, *card.respondents)
        profiles.append(
            DocProfile(
                key=document.key,
                title=document.title,
                kind=document.kind,
                parties=tuple(str(p) for p in parties),
                effective_date=document.effective_date,
                opening=opening_text(doc.passages),
                amends=position.get(document.amends_id, -1) if document.amends_id else -1,
            )
        )
    return profiles


_BROAD_KINDS = frozenset({"preamble", "recitals", "recital", "toc", "document"})


def amendment_pairs(
    documents: list[Document], docs: list[DocIndex]
) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """(document, node) positions of each amendment provision and the provision it changes,
    both ways, from the cross-references resolved into amended documents at indexing."""
    position = {d.pk: i for i, d in enumerate(documents)}
    amendments = [d.pk for d in documents if d.amends_id in position]
    if not amendments:
        return {}
    rows = (
        CrossReference.objects.filter(
            source__document_id__in=amendments, target__document_id__in=list(position)
        )
        .exclude(target__document_id=F("source__document_id"))
        .values_list(
            "source__document_id", "source__node_id", "target__document_id", "target__node_id"
        )
        .order_by("source__document_id", "source__order", "start")
    )
    node_at = [{n.node_id: j for j, n in enumerate(doc.nodes)} for doc in docs]
    pairs: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for src_doc, src_node, dst_doc, dst_node in rows:
        a, b = position[src_doc], position[dst_doc]
        src, dst = node_at[a].get(src_node), node_at[b].get(dst_node)
        if src is None or dst is None:
            continue  # the stored tree and the cached parse disagree: skip, never guess
        directions = [((b, dst), (a, src))]  # the amended provision brings its amendment
        if docs[a].nodes[src].kind not in _BROAD_KINDS:
            # and an amending provision brings what it amends, unless it is a preamble or
            # recital that merely mentions many sections.
            directions.append(((a, src), (b, dst)))
        for key, value in directions:
            if value not in pairs.setdefault(key, []):
                pairs[key].append(value)
    return pairs


def flush_index_cache() -> int:
    """Write the document indexes and vectors this process computed to the on-disk index cache;
    returns how many. Nobody has to call it: it runs at the end of every request and job and at
    process exit (``legalnav.retrieval.receivers``). A command may call it at a moment it
    chooses."""
    return sum(cache.flush() for cache in list(_CACHES.values()))


def embed_document_text(text: str) -> int:
    """Embed every passage of a document (cached by content hash); returns how many passages."""
    return len(_embedded(text).passages)


def _embedded(text: str) -> DocIndex:
    cache = index_cache()
    doc = cache.get(text)
    # With the text, the passages' pass also keeps their sentences' vectors (pooled.py).
    corpus = Corpus([doc], embedder=get_embedder(), cache=cache, texts=[text])
    corpus.ensure_vectors()
    cache.flush()
    return doc


# --- the vector store -------------------------------------------------------------------------


def vector_store() -> VectorStore | None:
    """The store dense retrieval searches, or None to search the cached vectors in memory.

    The in-process engine (Qdrant Edge) locks its files to one process, so by default it is used
    only when tasks run in the web process; with separate Celery workers and no QDRANT_URL, every
    process reads the vectors cached with the documents instead (see settings.VECTOR_STORE)."""
    choice = settings.VECTOR_STORE
    if choice == "memory":
        return None
    if choice == "auto" and not settings.QDRANT_URL and not settings.CELERY_TASK_ALWAYS_EAGER:
        return None
    if choice == "server" and not settings.QDRANT_URL:
        logger.warning("VECTOR_STORE=server needs QDRANT_URL; searching cached vectors instead")
        return None
    return get_vector_store()


def collection_name(embedder: Embedder) -> str:
    """One collection per embedding model: vectors of different models never mix."""
    digest = hashlib.sha1(embedder.name.encode("utf-8")).hexdigest()[:12]
    return f"passages-{embedder.dimension}-{digest}"


def document_store_vectors(*, document: Document) -> int:
    """Embed the document's passages (cached by content hash) and put them in the vector store,
    replacing any earlier points of this document; returns how many points were stored (0 when no
    store is in use). Document.vector_collection is set only once all of them are stored."""
    store = vector_store()
    if store is None or not document.text:
        return 0
    doc = _embedded(document.text)
    embedder = get_embedder()
    name = collection_name(embedder)
    Document.objects.filter(pk=document.pk).update(vector_collection="")
    store.ensure_collection(name, embedder.dimension)
    store.delete_where(name, field="document_id", value=document.pk)
    assert doc.vectors is not None or not doc.passages
    # Passages left unembedded (passages.skip_embedding: zero vectors) get no point.
    stored = [i for i in range(len(doc.passages)) if doc.vectors[i].any()]  # type: ignore[index]
    if stored:
        store.upsert(
            name,
            [document.pk * PASSAGE_SPAN + i for i in stored],
            doc.vectors[stored],  # type: ignore[index]
            [
                {
                    "matter_id": document.matter_id,
                    "document_id": document.pk,
                    "node_id": doc.passages[i].node,
                }
                for i in stored
            ],
        )
    # Only if the file was not re-indexed meanwhile (a re-index clears the field).
    Document.objects.filter(pk=document.pk, indexed_sha256=document.indexed_sha256).update(
        vector_collection=name
    )
    return len(doc.passages)


def document_unstore_vectors(*, document: Document, strict: bool = False) -> None:
    """Remove a document's points from the store. Best effort (a failure is logged) unless
    ``strict`` (a purge): then a store that does not answer is an error."""
    if not document.vector_collection:
        return
    store = vector_store()
    if store is None:
        if strict and settings.VECTOR_STORE != "memory":
            raise RuntimeError(
                f"the vector store holding document {document.pk} cannot be reached from here "
                f"(collection {document.vector_collection}); run the purge where it can be"
            )
        return
    try:
        store.delete_where(document.vector_collection, field="document_id", value=document.pk)
    except Exception:
        if strict:
            raise
        logger.exception("removing the vectors of document %s failed", document.pk)


def document_forget_cached(*, document: Document) -> int:
    """Remove the deleted document's cached indexes (its text, parsed into passages) and its
    passages' vectors from the on-disk cache and this process's memory, unless another document
    has the same content. Returns how many entries went."""
    if not document.text:
        return 0
    if Document.objects.filter(sha256=document.sha256).exclude(pk=document.pk).exists():
        return 0  # the same file in another matter or folder still uses them
    with _LOCK:
        for key in [k for k in _RETRIEVERS if any(pk == document.pk for pk, _ in k)]:
            del _RETRIEVERS[key]
    return index_cache().forget(document.text)


def _store_search(
    documents: list[Document], docs: list[DocIndex], embedder: Embedder
) -> VectorSearch | None:
    """A vector-store search over exactly these documents' passages, or None when the store is
    not in use or does not hold all of them (retrieval then searches the cached vectors)."""
    if not documents:
        return None
    store = vector_store()
    if store is None:
        return None
    name = collection_name(embedder)
    if any(d.vector_collection != name for d in documents):
        return None
    first_row: dict[int, int] = {}
    row = 0
    for document, doc in zip(documents, docs, strict=True):
        first_row[document.pk] = row
        row += len(doc.passages)
    pks = [d.pk for d in documents]
    counts = {d.pk: len(doc.passages) for d, doc in zip(documents, docs, strict=True)}

    def search(vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        found = []
        for hit in store.search(name, vector, limit=limit, where={"document_id": pks}):
            pk, passage = divmod(hit.id, PASSAGE_SPAN)
            if pk in first_row and passage < counts[pk]:
                found.append((first_row[pk] + passage, hit.score))
        return found

    return search
