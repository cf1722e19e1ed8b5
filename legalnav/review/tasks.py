"""Celery task for filling a review grid. Thin: it takes the grid's id and runs the job
(``legalnav.core.jobs``), which claims the row with a lease, can run twice, and always ends the
row or hands it back; a resumed grid fills only the cells still missing."""

from __future__ import annotations

from celery import shared_task

from legalnav.core.jobs import run_celery_job, time_limits


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, **time_limits("grid"))
def fill_grid(self, grid_id: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return run_celery_job(self, "grid", grid_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, **time_limits("grid_chunk"))
def fill_grid_chunk(self, chunk_id: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return run_celery_job(self, "grid_chunk", chunk_id)
