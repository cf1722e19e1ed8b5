"""The job sweeper as a Celery task, scheduled by beat (``CELERY_BEAT_SCHEDULE``)."""

from __future__ import annotations

from celery import shared_task

from legalnav.core.jobs import jobs_sweep


@shared_task(ignore_result=True, soft_time_limit=120, time_limit=180)
def sweep_jobs() -> str:
    """Re-queue or fail every job whose lease expired; re-send queued jobs whose task was lost."""
    return str(jobs_sweep())
