"""Celery tasks for documents. Thin: they take ids, call one service, and can run twice."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import OperationalError

from legalnav.documents.services import document_index

logger = logging.getLogger(__name__)


@shared_task(
    bind=True,
    autoretry_for=(OperationalError,),  # a locked SQLite file or a dropped database connection
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
    acks_late=True,
)
def index_document(self, document_id: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Index one document; a no-op when its file and the parser are unchanged."""
    outcome = document_index(document_id=document_id)
    logger.info("index_document %s: %s", document_id, outcome.status)
    return {"status": outcome.status, "nodes": outcome.nodes, "message": outcome.message}
