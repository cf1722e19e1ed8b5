"""Celery task for answering. Thin: it takes an id and runs the job (``legalnav.core.jobs``),
which claims the row with a lease, can run twice, and always ends the row or hands it back."""

from __future__ import annotations

from celery import shared_task

from legalnav.core.jobs import run_celery_job, time_limits


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, **time_limits("question"))
def answer_query(self, query_id: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return run_celery_job(self, "question", query_id)
