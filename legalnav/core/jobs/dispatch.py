"""Sending a job to a runner (``settings.TASK_RUNNER``: inline, the embedded thread runner or
Celery) and running it there: ``enqueue``, ``run_job`` and the body of every Celery task."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from importlib import import_module
from typing import Any

from django.conf import settings
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from legalnav.core.jobs.lease import fail_if_held, failure_reason, note_if_held
from legalnav.core.jobs.spec import (
    TRANSIENT,
    JobSpec,
    has_field,
    max_attempts,
    new_owner,
    spec_for,
)

# The package's one logger, as before the split.
logger = logging.getLogger("legalnav.core.jobs")


class QueueUnavailable(RuntimeError):
    """The broker would not take the task. The row has been marked failed and can be retried."""

    message = "The task queue is unavailable; nothing was lost. Try again in a minute."
    retry_after = 30


# --- running a job -----------------------------------------------------------------------------


def _execute(spec: JobSpec) -> Callable[..., str]:
    module, _, name = spec.execute.rpartition(".")
    return getattr(import_module(module), name)  # type: ignore[no-any-return]


# Sent (``sender`` the job's kind, with ``pk``) in the process that ran a job, after every run of
# it however it ended: done, failed, cancelled, or a transient error going back to be retried.
# Higher layers that keep per-process state for the work connect to it: retrieval writes the
# document indexes and embeddings a job computed to its on-disk cache. A failing receiver is
# logged; it cannot change how the job ended.
job_finished = Signal()


def run_job(kind: str, pk: int, *, owner: str, retry_transient: bool = True) -> str:
    """Run one job to its end under ``owner`` (the Celery task id, or a thread runner's id).

    Returns what happened. Raises a ``TRANSIENT`` error only when ``retry_transient`` is set and
    attempts remain, for the caller to retry later under the same owner."""
    spec = spec_for(kind)
    fn = _execute(spec)
    try:
        return fn(pk, owner, reraise=TRANSIENT if retry_transient else ())
    except TRANSIENT as exc:
        code, message = failure_reason(spec, exc)
        row = spec.model_class().objects.filter(pk=pk).values("attempts").first()  # type: ignore[attr-defined]
        if row is not None and row["attempts"] < max_attempts():
            # Kept on the open row, so that a give-up later (the sweeper's, or the next claim's)
            # says what went wrong rather than "the worker stopped responding".
            note_if_held(spec, pk, owner, message)
            raise
        fail_if_held(spec, pk, owner, code, message)
        return "failed"
    finally:
        for receiver, result in job_finished.send_robust(sender=kind, pk=pk):
            if isinstance(result, Exception):
                logger.error("after %s %s: %r failed", kind, pk, receiver, exc_info=result)


# --- sending work to a runner ------------------------------------------------------------------


def runner_name() -> str:
    return str(settings.TASK_RUNNER)


def enqueue_on_commit(kind: str, pk: int) -> None:
    """Send the job once the surrounding transaction commits (so the worker sees the row).

    When the broker refuses it, the row is marked failed ("the task queue is unavailable") and
    ``QueueUnavailable`` is raised to the caller, who answers 503 with Retry-After."""
    spec = spec_for(kind)
    transaction.on_commit(lambda: enqueue(spec.kind, pk))


def enqueue(kind: str, pk: int) -> None:
    spec = spec_for(kind)
    try:
        _send(spec, pk)
    except QueueUnavailable as exc:
        fields: dict[str, Any] = {
            "status": spec.failed,
            "error_message": QueueUnavailable.message,
            "lease_owner": "",
            "lease_expires_at": None,
            "updated_at": timezone.now(),
        }
        if has_field(spec, "error_code"):
            fields["error_code"] = "queue_unavailable"
        spec.model_class().objects.filter(pk=pk, status=spec.queued).update(**fields)  # type: ignore[attr-defined]
        raise exc


def _send(spec: JobSpec, pk: int) -> None:
    runner = runner_name()
    if runner == "inline":
        owner = new_owner("inline")
        for attempt in range(max_attempts()):
            try:
                run_job(spec.kind, pk, owner=owner, retry_transient=True)
                return
            except TRANSIENT:
                time.sleep(retry_backoff(attempt))
        return
    if runner == "thread":
        from legalnav.core.runner import local_runner

        local_runner().put(spec.kind, pk)
        return
    _send_celery(spec, pk)


def _send_celery(spec: JobSpec, pk: int) -> None:
    from celery import current_app
    from kombu.exceptions import OperationalError as KombuOperationalError

    broker_errors: tuple[type[BaseException], ...] = (KombuOperationalError, OSError)
    try:
        import redis

        broker_errors += (redis.exceptions.RedisError,)
    except ImportError:  # pragma: no cover - redis ships with the project
        pass
    try:
        current_app.send_task(
            spec.task,
            args=[pk],
            retry=True,
            retry_policy={
                "max_retries": settings.JOB_PUBLISH_RETRIES,
                "interval_start": 0,
                "interval_step": 0.5,
                "interval_max": 1,
            },
        )
    except broker_errors as exc:
        logger.warning("could not queue %s %s: %s", spec.kind, pk, exc)
        raise QueueUnavailable(str(exc)) from exc


def retry_backoff(attempt: int) -> float:
    base = float(settings.JOB_RETRY_BACKOFF)
    return min(30.0, base * (2**attempt)) * (0.5 + random.random())


# --- Celery ------------------------------------------------------------------------------------


def run_celery_job(task: Any, kind: str, pk: int) -> dict[str, object]:
    """The body of every job task: run the job under the task's id, so that a retry or a
    redelivery of the same task takes over its own claim; retry transient errors with back-off
    (same owner), within the job's attempts."""
    owner = f"celery:{task.request.id}"
    try:
        outcome = run_job(kind, pk, owner=owner, retry_transient=True)
    except TRANSIENT as exc:
        raise task.retry(
            exc=exc, countdown=retry_backoff(task.request.retries), max_retries=None
        ) from exc
    return {"kind": kind, "id": pk, "outcome": outcome}


def time_limits(kind: str) -> dict[str, int]:
    """soft_time_limit and time_limit for a job's task, from settings."""
    soft = {
        "document": settings.TASK_SOFT_TIME_LIMIT_INDEX,
        "question": settings.TASK_SOFT_TIME_LIMIT_ANSWER,
        "evaluation": settings.TASK_SOFT_TIME_LIMIT_EVALUATION,
        # A grid resumes where it stopped (cells are kept as each document finishes), so the
        # evaluation run's long limit fits it: 40 contracts x 41 columns is minutes, not hours.
        "grid": settings.TASK_SOFT_TIME_LIMIT_EVALUATION,
        "grid_chunk": settings.TASK_SOFT_TIME_LIMIT_EVALUATION,
    }[kind]
    return {"soft_time_limit": soft, "time_limit": soft + settings.TASK_HARD_TIME_LIMIT_GRACE}
