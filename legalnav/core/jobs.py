"""One lifecycle for background work: a job is a row with a lease.

Indexing a document, answering a question and running an evaluation are each a row that goes

    queued -> running (leased: who holds it, until when; renewed while work goes on)
           -> done | failed (with the reason) | cancelled

The rules, in the order they matter (healthchecks' ``sendalerts.py`` claims flips the same way):

- **Claim with a conditional update.** A worker takes a queued row, a row whose lease has expired
  (its holder died), or a row it holds itself (a Celery retry or a redelivery keeps its task id),
  and never one that someone else holds. Each claim counts an attempt; past ``max_attempts`` the
  row is failed with the last reason instead of being tried again.
- **Every write after the claim is conditional on still holding the lease**, so a job that was
  cancelled or taken over meanwhile cannot overwrite what the user now sees.
- **Nothing escapes.** ``run_job`` turns any exception into a failed row with a reason a reader
  understands, and logs the traceback. Named transient errors (a locked SQLite file, a dropped
  database connection) are retried with back-off by whoever runs the job.
- **A sweeper ends what nobody holds.** ``jobs_sweep`` re-queues rows whose lease expired (or
  fails them once their attempts are spent) and re-sends queued rows whose task was lost. It runs
  from Celery beat when Redis is configured and from a timer thread in the embedded default, and
  a page that polls a stale row sweeps it at once.

How work reaches a runner depends on ``settings.TASK_RUNNER``: ``celery`` (a broker is
configured), ``thread`` (the embedded default, ``legalnav.core.runner``: one ordered queue per
kind of job, served by a daemon thread in the web process, so that many questions at once are
answered one after another instead of fighting over the SQLite file) or ``inline`` (run in the
caller: commands and tests).
"""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.apps import apps
from django.conf import settings
from django.db import OperationalError, connection, connections, transaction
from django.db.models import F, Model, Q
from django.dispatch import Signal
from django.utils import timezone

logger = logging.getLogger(__name__)

# Errors that say "try the same thing again in a moment", not "this job is broken".
TRANSIENT: tuple[type[BaseException], ...] = (OperationalError,)


class QueueUnavailable(RuntimeError):
    """The broker would not take the task. The row has been marked failed and can be retried."""

    message = "The task queue is unavailable; nothing was lost. Try again in a minute."
    retry_after = 30


class JobLost(Exception):
    """This worker no longer holds the job (cancelled, or taken over after its lease expired)."""


# What a step's own "except Exception" must let through to the job's guard.
PASS_THROUGH: tuple[type[BaseException], ...] = (JobLost, *TRANSIENT)


@dataclass(frozen=True)
class JobSpec:
    """What the lifecycle needs to know about one kind of job."""

    kind: str  # "document" | "question" | "grid" | "evaluation": the name in URLs, API and MCP
    model: str  # app_label.ModelName
    task: str  # the Celery task that runs it (takes the row id)
    execute: str  # dotted path of ``fn(pk, owner) -> str``: claims, works, finishes
    noun: str  # "indexing", "answering", "the evaluation run": for messages
    queued: str = "queued"
    running: str = "running"
    done: str = "done"
    failed: str = "failed"
    cancelled: str = "cancelled"
    # What an expired lease becomes when the attempts are spent ("failed", or "interrupted" for
    # an evaluation run that can be resumed from where it stopped).
    abandoned: str = "failed"
    # Whether the sweeper restarts a job whose worker died (attempts permitting), or ends it as
    # ``abandoned`` at once for a person to resume (an evaluation run can take hours).
    requeue_abandoned: bool = True
    # Dotted path of ``fn(row) -> bool``: whether a running job whose own lease has lapsed is
    # still being worked on elsewhere (a grid whose chunks, jobs of their own, are filling it).
    alive: str = ""

    def model_class(self) -> type[Model]:
        return apps.get_model(self.model)

    @property
    def open_statuses(self) -> tuple[str, str]:
        return (self.queued, self.running)


# Every kind of job, registered by the app that owns it (in its AppConfig.ready(), from its own
# jobs.py), so this module names no app above it.
SPECS: dict[str, JobSpec] = {}


def register_job(spec: JobSpec) -> None:
    """Add a kind of job to the lifecycle (idempotent for the same spec; a second, different
    spec of the same kind is a programming error)."""
    known = SPECS.get(spec.kind)
    if known is not None and known != spec:
        raise ValueError(f"job kind {spec.kind!r} is already registered as {known!r}")
    SPECS[spec.kind] = spec


def spec_for(kind: str) -> JobSpec:
    try:
        return SPECS[kind]
    except KeyError:
        raise ValueError(f"unknown job kind {kind!r}") from None


def lease_seconds() -> int:
    return int(settings.JOB_LEASE_SECONDS)


def max_attempts() -> int:
    return int(settings.JOB_MAX_ATTEMPTS)


def new_owner(prefix: str = "inline") -> str:
    """A holder name for work not run by a Celery task: where it runs, and a fresh id."""
    return f"{prefix}:{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


# --- the lease ---------------------------------------------------------------------------------


class Lease:
    """A claimed job: renew it while working; ``check`` raises ``JobLost`` once it is not ours.

    Renewal happens at the checkpoints the work passes (``check``) and, when the work runs in
    its own transaction scope, from a heartbeat thread, so a long LLM call or PDF parse does not
    look like a dead worker."""

    def __init__(self, spec: JobSpec, pk: int, owner: str, attempts: int) -> None:
        self.spec = spec
        self.pk = pk
        self.owner = owner
        self.attempts = attempts
        self.lost = False
        self._renewed = time.monotonic()
        self._stop = threading.Event()
        self._heartbeat: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"<Lease {self.spec.kind} {self.pk} by {self.owner}>"

    def mine(self) -> Any:
        """A queryset of the row, only while this lease holds it."""
        return self.spec.model_class().objects.filter(  # type: ignore[attr-defined]
            pk=self.pk, status=self.spec.running, lease_owner=self.owner
        )

    def renew(self) -> None:
        now = timezone.now()
        if not self.mine().update(lease_expires_at=now + timedelta(seconds=lease_seconds())):
            self.lost = True
            raise JobLost(f"{self.spec.kind} {self.pk} is no longer held by {self.owner}")
        self._renewed = time.monotonic()

    def check(self) -> None:
        """A checkpoint: stop if the job was cancelled or taken over; renew when a third of the
        lease has gone by."""
        if self.lost:
            raise JobLost(f"{self.spec.kind} {self.pk} was lost")
        if time.monotonic() - self._renewed >= lease_seconds() / 3:
            self.renew()
        elif not self.mine().exists():
            self.lost = True
            raise JobLost(f"{self.spec.kind} {self.pk} was cancelled or taken over")

    def update(self, **fields: Any) -> bool:
        """Write fields of the row while holding it; False (nothing written) once lost."""
        fields.setdefault("updated_at", timezone.now())
        written = bool(self.mine().update(**fields))
        if not written:
            self.lost = True
        return written

    def finish(self, **fields: Any) -> bool:
        """Done: the final status and whatever else the work produced, if still ours."""
        return self.update(status=self.spec.done, lease_owner="", lease_expires_at=None, **fields)

    def fail(self, message: str, code: str = "error", **fields: Any) -> bool:
        if _has_field(self.spec, "error_code"):
            fields["error_code"] = code[:30]
        written = self.update(
            status=self.spec.failed,
            error_message=message,
            lease_owner="",
            lease_expires_at=None,
            **fields,
        )
        if written:
            logger.info("%s %s failed: %s (%s)", self.spec.kind, self.pk, message, code)
        return written

    # The heartbeat runs on its own database connection, so it only starts when the caller is
    # not inside a transaction (whose uncommitted row that connection could not see, and whose
    # SQLite write lock it would wait on).
    def start_heartbeat(self) -> None:
        if self._heartbeat is not None or connection.in_atomic_block:
            return
        if not settings.JOB_HEARTBEAT:
            return
        self._heartbeat = threading.Thread(
            target=self._beat, name=f"lease-{self.spec.kind}-{self.pk}", daemon=True
        )
        self._heartbeat.start()

    def stop_heartbeat(self) -> None:
        self._stop.set()
        if self._heartbeat is not None:
            self._heartbeat.join(timeout=5)
            self._heartbeat = None

    def _beat(self) -> None:
        interval = max(1.0, lease_seconds() / 3)
        try:
            while not self._stop.wait(interval):
                try:
                    self.renew()
                except JobLost:
                    return  # the work notices at its next checkpoint
                except Exception:  # a locked file or a dropped connection: try next beat
                    logger.warning("renewing %r failed", self, exc_info=True)
        finally:
            connections.close_all()


def _has_field(spec: JobSpec, name: str) -> bool:
    try:
        spec.model_class()._meta.get_field(name)
    except Exception:
        return False
    return True


@dataclass(frozen=True)
class Refusal:
    """Why a claim was not granted: "gone", "busy" (held by another live worker), "final"
    (done, failed or cancelled: nothing to do) or "exhausted" (failed now: attempts spent)."""

    reason: str
    status: str = ""


def job_claim(spec: JobSpec, pk: int, *, owner: str) -> Lease | Refusal:
    """Take the job for ``owner``: queued, abandoned (lease expired) or already ours."""
    model = spec.model_class()
    now = timezone.now()
    claimable = (
        Q(status=spec.queued)
        | Q(status=spec.running, lease_expires_at__lt=now)
        | Q(status=spec.running, lease_expires_at__isnull=True)
        | Q(status=spec.running, lease_owner=owner)
    )
    claimed = (
        model.objects.filter(pk=pk)  # type: ignore[attr-defined]
        .filter(claimable, attempts__lt=max_attempts())
        .update(
            status=spec.running,
            lease_owner=owner[:200],
            lease_expires_at=now + timedelta(seconds=lease_seconds()),
            attempts=F("attempts") + 1,
            error_message="",
            updated_at=now,
        )
    )
    row = model.objects.filter(pk=pk).values("status", "attempts", "error_message").first()  # type: ignore[attr-defined]
    if row is None:
        return Refusal("gone")
    if claimed:
        return Lease(spec, pk, owner[:200], row["attempts"])
    if row["status"] in spec.open_statuses and row["attempts"] >= max_attempts():
        _give_up(spec, pk)
        return Refusal("exhausted", spec.failed)
    if row["status"] == spec.running:
        return Refusal("busy", row["status"])
    return Refusal("final", row["status"])


def _give_up(spec: JobSpec, pk: int, why: str = "") -> bool:
    """Fail an open job whose attempts are spent, keeping the last reason it gave."""
    model = spec.model_class()
    row = model.objects.filter(pk=pk).values("error_message", "attempts").first()  # type: ignore[attr-defined]
    if row is None:
        return False
    last = row["error_message"] or why or "the worker stopped responding"
    if spec.requeue_abandoned:
        message = (
            f"{spec.noun} was tried {row['attempts']} times and did not finish; the last attempt "
            f"ended with: {last.rstrip('.')}. Retry when the cause is fixed."
        )
    else:
        message = (
            f"{spec.noun} stopped: {last.rstrip('.')}. Everything finished so far is kept; "
            "Retry resumes it from where it stopped."
        )
    fields: dict[str, Any] = {
        "status": spec.abandoned,
        "error_message": message,
        "lease_owner": "",
        "lease_expires_at": None,
        "updated_at": timezone.now(),
    }
    if _has_field(spec, "error_code"):
        fields["error_code"] = "gave_up"
    return bool(
        model.objects.filter(pk=pk, status__in=spec.open_statuses).update(**fields)  # type: ignore[attr-defined]
    )


# --- running a job -----------------------------------------------------------------------------


class WorkerTimeLimit(Exception):
    """What the embedded runner reports for a job past its soft time limit."""


def failure_reason(spec: JobSpec, exc: BaseException) -> tuple[str, str]:
    """(code, message) for an exception that escaped the work."""
    name = exc.__class__.__name__
    if name in ("SoftTimeLimitExceeded", "TimeLimitExceeded", "WorkerTimeLimit"):
        return "timeout", (
            f"{spec.noun} took longer than the time limit and was stopped. The file may be "
            "unusually large or malformed; Retry, or split it."
        )
    if isinstance(exc, TRANSIENT):
        return "database_busy", (
            f"{spec.noun} could not reach the database ({name}: {str(exc)[:160]})."
        )
    detail = str(exc)[:200]
    return "error", (
        f"{spec.noun} stopped on an unexpected error ({name}{': ' + detail if detail else ''}). "
        "It has been logged; Retry may work."
    )


@contextmanager
def guard(lease: Lease, *, reraise: tuple[type[BaseException], ...] = ()) -> Iterator[Lease]:
    """Around the work of a claimed job: any exception marks the row failed with a reason and
    is logged; ``JobLost`` (cancelled or taken over) stops quietly; the exceptions in
    ``reraise`` (transient errors the runner will retry) go up with the lease still held."""
    lease.start_heartbeat()
    try:
        yield lease
    except JobLost:
        logger.info("%r stopped: it was cancelled or taken over", lease)
    except reraise:
        raise
    except BaseException as exc:
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        logger.exception("%s %s failed", lease.spec.kind, lease.pk)
        code, message = failure_reason(lease.spec, exc)
        try:
            lease.fail(message, code)
        except Exception:  # the database itself is gone: the sweeper ends the row later
            logger.exception("could not mark %r failed", lease)
    finally:
        lease.stop_heartbeat()


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
            _note_if_held(spec, pk, owner, message)
            raise
        fail_if_held(spec, pk, owner, code, message)
        return "failed"
    finally:
        for receiver, result in job_finished.send_robust(sender=kind, pk=pk):
            if isinstance(result, Exception):
                logger.error("after %s %s: %r failed", kind, pk, receiver, exc_info=result)


def _note_if_held(spec: JobSpec, pk: int, owner: str, message: str) -> None:
    try:
        Lease(spec, pk, owner, 0).update(error_message=message)
    except Exception:  # the database is what failed: the reason cannot be kept this time
        logger.warning("could not note why %s %s will be retried", spec.kind, pk)


def fail_if_held(spec: JobSpec, pk: int, owner: str, code: str, message: str) -> None:
    lease = Lease(spec, pk, owner, 0)
    try:
        lease.fail(message, code)
    except Exception:
        logger.exception("could not mark %s %s failed", spec.kind, pk)


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
    if _has_field(spec, "error_code"):
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
            if _give_up(spec, pk, "the worker running it stopped responding"):
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
        if _give_up(spec, pk, "it was never picked up by a worker"):
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
    stale_queued = now - timedelta(seconds=settings.JOB_QUEUED_STALE_SECONDS)
    for kind in kinds or tuple(SPECS):
        spec = SPECS[kind]
        model = spec.model_class()
        ids = model.objects.filter(  # type: ignore[attr-defined]
            Q(status=spec.running, lease_expires_at__lt=now)
            | Q(status=spec.running, lease_expires_at__isnull=True)
            | Q(status=spec.queued, updated_at__lt=stale_queued)
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
        if _has_field(spec, "error_code"):
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
