"""A claimed job: the claim (``job_claim``, or ``Refusal``), the ``Lease`` that every write
after it goes through, ``guard`` around the work, and how a failure is worded and written."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, connections
from django.db.models import F, Q
from django.utils import timezone

from legalnav.core.jobs.spec import TRANSIENT, JobSpec, has_field, lease_seconds, max_attempts

# The package's one logger, as before the split.
logger = logging.getLogger("legalnav.core.jobs")


class JobLost(Exception):
    """This worker no longer holds the job (cancelled, or taken over after its lease expired)."""


# What a step's own "except Exception" must let through to the job's guard.
PASS_THROUGH: tuple[type[BaseException], ...] = (JobLost, *TRANSIENT)


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
        if has_field(self.spec, "error_code"):
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
        give_up(spec, pk)
        return Refusal("exhausted", spec.failed)
    if row["status"] == spec.running:
        return Refusal("busy", row["status"])
    return Refusal("final", row["status"])


def give_up(spec: JobSpec, pk: int, why: str = "") -> bool:
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
    if has_field(spec, "error_code"):
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


T = TypeVar("T")


def run_claimed(
    spec: JobSpec,
    pk: int,
    *,
    owner: str,
    work: Callable[[Lease], T],
    reraise: tuple[type[BaseException], ...] = (),
) -> T | Refusal | None:
    """Claim the job for ``owner`` and run ``work(lease)`` inside ``guard``: the claim, guard,
    persist shape every job's function shares.

    Returns the ``Refusal`` unchanged when the claim is refused (``work`` never runs), what
    ``work`` returned, or None when ``guard`` ended the work instead (the row failed with a
    reason, or the job was cancelled or taken over). The exceptions in ``reraise`` go up, as
    from ``guard``."""
    lease = job_claim(spec, pk, owner=owner)
    if isinstance(lease, Refusal):
        return lease
    result: T | None = None
    with guard(lease, reraise=reraise):
        result = work(lease)
    return result


def note_if_held(spec: JobSpec, pk: int, owner: str, message: str) -> None:
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
