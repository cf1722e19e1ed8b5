"""Celery task for evaluation runs started or resumed from the pages, the API or MCP."""

from __future__ import annotations

from celery import shared_task

from legalnav.core.jobs import run_celery_job, time_limits


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, **time_limits("evaluation"))
def run_evaluation(self, run_id: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return run_celery_job(self, "evaluation", run_id)
