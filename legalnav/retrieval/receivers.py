"""Retrieval's part in what happens elsewhere, connected in ``RetrievalConfig.ready()``.

- A document was indexed (``documents.signals.document_indexed``): embed its passages, and put
  them in the vector store when one is in use, inside the indexing job, so that the first question
  does not wait for them.
- A document is being deleted (``documents.signals.document_deleting``): remove its points from
  the vector store, and its cached indexes and passage vectors from the on-disk cache.
- A process that runs jobs started (the web process's runner, ``core.runner.runner_started``; a
  Celery pool process, ``worker_process_init`` in legalnav/celery.py): load the embedding model
  on a background thread, so that the first question does not wait for it.
- A backup was restored (``core.backup.restored``): put every indexed document's vectors into
  this deployment's vector store, from the restored embedding cache (nothing embedded again).
- A request, a job or the process ended: write what retrieval computed meanwhile (new document
  indexes, new passage vectors) to the on-disk index cache, so that no caller has to remember to.
  Once per unit of work rather than after every computation: the write then happens after the
  response has gone, and a document touched by many questions in one job is written once. The
  vectors themselves are already on disk by then (the passage-vector table is written through as
  they are computed), so a process killed before it flushes loses only the parse of a document.

Nothing heavy is imported here: every process loads this module at start-up, and the retrieval
services (numpy, the embedding model) only come in once there is work for them.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    from legalnav.documents.models import Document

logger = logging.getLogger(__name__)


def embed_indexed_document(
    sender: Any, *, document: Document, progress: Callable[[int, str], None], **kwargs: Any
) -> None:
    """Embed the document's passages now. The vectors are cached by content hash: an unchanged
    text is never embedded twice. A failure here does not fail indexing (lexical retrieval
    still works); it is logged. ``progress`` raises when the job was cancelled or taken over."""
    if not settings.EMBED_ON_INDEX:
        return
    progress(95, "Embedding passages")
    from legalnav.retrieval.services import document_store_vectors, embed_document_text

    try:
        # Into the vector store when one is in use; the vectors are cached with the text anyway.
        if document_store_vectors(document=document):
            return
    except Exception:
        # The store is unreachable or held by another process: retrieval searches the cached
        # vectors for this matter until the document is stored (re-index to retry).
        logger.exception("storing the vectors of document %s failed", document.pk)
    try:
        embed_document_text(document.text)
    except Exception:
        logger.exception(
            "embedding document %s failed; retrieval will embed on demand", document.pk
        )


_warm_lock = threading.Lock()
_warm_thread: threading.Thread | None = None


def warm_embedder(sender: Any = None, **kwargs: Any) -> threading.Thread | None:
    """Load the embedding model and encode one text on a daemon thread, once per process, and
    return at once (the thread, or None when settings.EMBEDDING_WARM_UP is off). A question that
    arrives meanwhile waits on the model's load lock instead of loading it a second time. The
    import of torch happens on that thread, never in a request."""
    global _warm_thread
    if not settings.EMBEDDING_WARM_UP:
        return None
    with _warm_lock:
        if _warm_thread is None:
            _warm_thread = threading.Thread(target=_warm, name="embedding-warm-up", daemon=True)
            _warm_thread.start()
        return _warm_thread


def _warm() -> None:
    try:
        from legalnav.retrieval.embeddings import get_embedder

        get_embedder().encode(["warm up"])
    except Exception:
        logger.exception("warming the embedding model failed; it loads on first use")


def unstore_deleted_document(
    sender: Any, *, document: Document, strict: bool = False, **kwargs: Any
) -> None:
    """Remove the deleted document's vectors from the store and its cached indexes. ``strict``
    (a purge): failing to remove the vectors raises."""
    from legalnav.retrieval.services import document_forget_cached, document_unstore_vectors

    document_unstore_vectors(document=document, strict=strict)
    try:
        document_forget_cached(document=document)
    except Exception:
        if strict:
            raise
        logger.exception("forgetting the cached indexes of document %s failed", document.pk)


def flush_index_cache(sender: Any = None, **kwargs: Any) -> None:
    """Write the index cache if this process changed it. Never raises: it runs after a response
    was sent or a job ended, where a failure can only be logged (the next flush tries again)."""
    services = sys.modules.get("legalnav.retrieval.services")
    if services is None:
        return  # retrieval never ran in this process: nothing to write
    try:
        services.flush_index_cache()
    except Exception:
        logger.exception("writing the retrieval index cache failed")


def restore_vectors(sender: Any = None, **kwargs: Any) -> str:
    """After a restore: every indexed document's vectors into the store this deployment uses
    (none in use: retrieval reads the restored cache directly). Returns a line for the report."""
    from legalnav.documents.models import Document
    from legalnav.retrieval.services import document_store_vectors, vector_store

    documents = Document.objects.filter(status=Document.Status.INDEXED).exclude(text="")
    Document.objects.exclude(vector_collection="").update(vector_collection="")
    if vector_store() is None:
        return "Vectors: read from the restored embedding cache (no vector store in use)."
    stored = failed = 0
    for document in documents.iterator(chunk_size=100):
        try:
            document_store_vectors(document=document)
            stored += 1
        except Exception:
            logger.exception("storing the vectors of document %s failed", document.pk)
            failed += 1
    flush_index_cache()
    note = f"Vectors: {stored} documents stored in the vector store"
    return note + (f"; {failed} failed (re-index them to retry)." if failed else ".")
