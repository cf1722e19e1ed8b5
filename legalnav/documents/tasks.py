"""Celery task for indexing. Thin: it takes an id and runs the job (``legalnav.core.jobs``),
which claims the row with a lease, can run twice, and always ends the row or hands it back."""

from __future__ import annotations

from celery import shared_task

from legalnav.core.jobs import run_celery_job, time_limits


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, **time_limits("document"))
def index_document(self, document_id: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Index one document; a no-op when its file and the parser are unchanged."""
    return run_celery_job(self, "document", document_id)
