"""Jobs nobody is working on, and what a person does about a job: ``is_stale`` (and
``may_be_stale``, its filter for the database), the sweeper (``jobs_sweep``, ``job_sweep_one``,
and ``job_poll_check`` for a page that polls), and retry, cancel and reset."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from legalnav.core.jobs.dispatch import QueueUnavailable, enqueue, enqueue_on_commit, runner_name
from legalnav.core.jobs.lease import give_up
from legalnav.core.jobs.spec import SPECS, JobSpec, has_field, max_attempts, spec_for

# The package's one logger, as before the split.
logger = logging.getLogger("legalnav.core.jobs")


# --- user actions: retry and cancel ------------------------------------------------------------


def is_stale(spec: JobSpec, row: Any, *, now: datetime | None = None) -> bool:
    """Whether an open job has nobody working on it: running with an expired lease, or queued
    for longer than ``JOB_QUEUED_STALE_SECONDS`` without being picked up."""
    now = now or timezone.now()
    if row.status == spec.running:
        lapsed = row.lease_expires_at is None or row.lease_expires_at < now
        if lapsed and spec.alive:
            module, _, name = spec.alive.rpartition(".")
            return not getattr(import_module(module), name)(row)
        return lapsed
    if row.status == spec.queued:
        from legalnav.core import runner

        if runner.waiting_here(spec.kind, row.pk):
            return False  # waiting its turn in this process's queue
        return row.updated_at < now - timedelta(seconds=settings.JOB_QUEUED_STALE_SECONDS)
    return False


def may_be_stale(spec: JobSpec, *, now: datetime | None = None) -> Q:
    """The rows ``is_stale`` can find stale, as a database filter: running with a lapsed lease,
    or queued too long. It is a superset (``is_stale`` also asks whether the job waits in this
    process's queue and, through ``spec.alive``, whether it is worked on elsewhere), so a caller
    asks ``is_stale`` of each row it picks; what it saves is reading every open job to find the
    few that nobody holds."""
    now = now or timezone.now()
    stale_queued = now - timedelta(seconds=settings.JOB_QUEUED_STALE_SECONDS)
    return (
        Q(status=spec.running, lease_expires_at__lt=now)
        | Q(status=spec.running, lease_expires_at__isnull=True)
        | Q(status=spec.queued, updated_at__lt=stale_queued)
    )


def can_retry(spec: JobSpec, row: Any) -> bool:
    return row.status in (spec.failed, spec.cancelled, spec.abandoned) or is_stale(spec, row)


def can_cancel(spec: JobSpec, row: Any) -> bool:
    return row.status in spec.open_statuses


def job_reset(spec: JobSpec, pk: int, **fields: Any) -> bool:
    """Make an ended (failed, cancelled, interrupted) or stale job claimable again without
    sending it anywhere: for a command or test that runs the job itself right after."""
    return _requeue_row(spec, pk, **fields)


def job_retry(spec: JobSpec, pk: int, **fields: Any) -> bool:
    """Put a failed, cancelled, interrupted or stale job back in the queue with a fresh count of
    attempts; it is sent to the runner when the transaction commits. False: not retryable."""
    if not _requeue_row(spec, pk, **fields):
        return False
    enqueue_on_commit(spec.kind, pk)
    return True


def _requeue_row(spec: JobSpec, pk: int, **fields: Any) -> bool:
    model = spec.model_class()
    now = timezone.now()
    stale_queued = now - timedelta(seconds=settings.JOB_QUEUED_STALE_SECONDS)
    retryable = (
        Q(status__in=[spec.failed, spec.cancelled, spec.abandoned])
        | Q(status=spec.running, lease_expires_at__lt=now)
        | Q(status=spec.running, lease_expires_at__isnull=True)
        | Q(status=spec.queued, updated_at__lt=stale_queued)
    )
    values: dict[str, Any] = {
        "status": spec.queued,
        "attempts": 0,
        "error_message": "",
        "lease_owner": "",
        "lease_expires_at": None,
        "updated_at": now,
        **fields,
    }
    if has_field(spec, "error_code"):
        values["error_code"] = ""
    return bool(model.objects.filter(retryable, pk=pk).update(**values))  # type: ignore[attr-defined]


def job_cancel(spec: JobSpec, pk: int, *, by: str = "", **fields: Any) -> bool:
    """Stop a queued or running job. A worker holding it stops at its next checkpoint and
    writes nothing more. False when the job had already ended."""
    who = f" by {by}" if by else ""
    values: dict[str, Any] = {
        "status": spec.cancelled,
        "error_message": f"Cancelled{who} at {timezone.now():%Y-%m-%d %H:%M} UTC.",
        "lease_owner": "",
        "lease_expires_at": None,
        "updated_at": timezone.now(),
        **fields,
    }
    model = spec.model_class()
    return bool(
        model.objects.filter(pk=pk, status__in=spec.open_statuses).update(**values)  # type: ignore[attr-defined]
    )


# --- the sweeper -------------------------------------------------------------------------------


@dataclass
class SweepReport:
    requeued: int = 0
    failed: int = 0
    resent: int = 0

    def __str__(self) -> str:
        return f"{self.requeued} re-queued, {self.failed} failed, {self.resent} re-sent"


def job_sweep_one(spec: JobSpec, pk: int, report: SweepReport | None = None) -> str:
    """End or restart one job nobody is working on. Returns "requeued", "failed", "resent" or
    "" (nothing to do: the job is alive or ended)."""
    report = report if report is not None else SweepReport()
    model = spec.model_class()
    now = timezone.now()
    row = model.objects.filter(pk=pk).first()  # type: ignore[attr-defined]
    if row is None or not is_stale(spec, row, now=now):
        return ""
    if row.status == spec.running:
        if row.attempts >= max_attempts() or not spec.requeue_abandoned:
            if give_up(spec, pk, "the worker running it stopped responding"):
                report.failed += 1
                return "failed"
            return ""
        # Re-queue only if the lease is still the expired one we saw (a worker may have just
        # renewed it or taken it over).
        moved = model.objects.filter(  # type: ignore[attr-defined]
            pk=pk,
            status=spec.running,
            lease_owner=row.lease_owner,
            lease_expires_at=row.lease_expires_at,
        ).update(
            status=spec.queued,
            lease_owner="",
            lease_expires_at=None,
            error_message=f"The worker {spec.noun.lower()} it stopped responding; it was queued again.",
            updated_at=now,
        )
        if not moved:
            return ""
        logger.warning("%s %s: lease expired, queued again", spec.kind, pk)
        report.requeued += 1
        _send_quietly(spec, pk)
        return "requeued"
    # Queued and never picked up: the task was lost (a broker restart, a process that died
    # before running its in-process queue). Send it again; the claim makes a duplicate harmless.
    # Not an evaluation run: it can take hours, so only a person starts it again (the page
    # shows it stalled, with Retry).
    if not spec.requeue_abandoned:
        return ""
    if row.attempts >= max_attempts():
        if give_up(spec, pk, "it was never picked up by a worker"):
            report.failed += 1
            return "failed"
        return ""
    model.objects.filter(pk=pk, status=spec.queued).update(updated_at=now)  # type: ignore[attr-defined]
    report.resent += 1
    _send_quietly(spec, pk)
    return "resent"


def jobs_sweep(*, kinds: tuple[str, ...] | None = None) -> SweepReport:
    """Find every job that nobody is working on and re-queue, re-send or fail it."""
    report = SweepReport()
    now = timezone.now()
    for kind in kinds or tuple(SPECS):
        spec = SPECS[kind]
        model = spec.model_class()
        ids = model.objects.filter(  # type: ignore[attr-defined]
            may_be_stale(spec, now=now)
        ).values_list("pk", flat=True)[:500]
        for pk in list(ids):
            try:
                job_sweep_one(spec, pk, report)
            except QueueUnavailable:
                return report  # the broker is down: the next sweep tries again
    if report.requeued or report.failed or report.resent:
        logger.info("job sweep: %s", report)
    return report


def _send_quietly(spec: JobSpec, pk: int) -> None:
    try:
        enqueue(spec.kind, pk)  # marks the row failed ("the task queue is unavailable") if so
    except QueueUnavailable:
        logger.warning("the sweeper could not send %s %s: the queue is unavailable", spec.kind, pk)
        raise


def job_poll_check(kind: str, row: Any) -> Any:
    """For a page or API poll of an open job: sweep it now if nobody is working on it (on the
    embedded default the runner also starts here, after a restart), and return the fresh row."""
    spec = spec_for(kind)
    if runner_name() == "thread":
        from legalnav.core.runner import local_runner

        local_runner().start()
    if row.status in spec.open_statuses and is_stale(spec, row):
        try:
            job_sweep_one(spec, row.pk)
        except QueueUnavailable:
            pass
        row.refresh_from_db()
    return row
