"""The embedded default's runner: background jobs in the web process, no broker.

One ordered queue per kind of job (indexing, answering, evaluation), each served by a daemon
thread, and a sweeper on a timer thread (``legalnav.core.jobs`` has the lifecycle they follow).
It starts with the first request (``CoreConfig.ready``) or the first job sent.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, connections
from django.dispatch import Signal
from django.utils import timezone

from legalnav.core.jobs import (
    SPECS,
    TRANSIENT,
    WorkerTimeLimit,
    fail_if_held,
    failure_reason,
    jobs_sweep,
    new_owner,
    retry_backoff,
    run_job,
    time_limits,
)

logger = logging.getLogger(__name__)

# A queued row younger than this belongs to whoever just queued it.
FRESH_SECONDS = 10

# Sent once when this process's runner has started its threads, so that higher layers can get
# ready for the jobs to come (retrieval warms the embedding model: core cannot import it, see the
# layer contract in pyproject.toml). Receivers must return at once; their errors are logged.
runner_started = Signal()


class LocalRunner:
    """One ordered queue per kind of job, each served by a daemon thread, plus a sweeper thread.

    This is what answers questions and indexes documents on the embedded default (no broker):
    work leaves the request at once (the page polls), jobs of a kind run one after another so
    SQLite sees one writer per kind, and indexing a long document never holds questions up.

    A thread cannot be killed, so the time limits work differently from Celery's: a job still
    running past its soft limit is failed with the time-limit reason (its late writes are
    refused, as it no longer holds the lease) and a fresh thread takes over its queue, so one
    pathological file cannot hold up the documents behind it."""

    def __init__(self) -> None:
        self._queues: dict[str, queue.Queue[tuple[int, str, int]]] = {}
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._pending: dict[str, set[int]] = {kind: set() for kind in SPECS}
        self._started = False
        self._stop = threading.Event()
        self._generation: dict[str, int] = {kind: 0 for kind in SPECS}
        # kind -> (job id, owner, started at (monotonic), generation of the thread running it)
        self._current: dict[str, tuple[int, str, float, int]] = {}

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
            for kind in SPECS:
                self._queues[kind] = queue.Queue()
                self._spawn(kind)
            sweeper = threading.Thread(target=self._sweep_loop, name="jobs-sweeper", daemon=True)
            sweeper.start()
            self._threads.append(sweeper)
        for receiver, result in runner_started.send_robust(sender=self.__class__):
            if isinstance(result, Exception):
                logger.error("%r failed when the runner started", receiver, exc_info=result)

    def put(self, kind: str, pk: int, *, owner: str = "", attempt: int = 0) -> None:
        self.start()
        with self._lock:
            if not owner and pk in self._pending[kind]:
                return  # already waiting in this process's queue
            self._pending[kind].add(pk)
        self._queues[kind].put((pk, owner or new_owner("thread"), attempt))

    def pending(self, kind: str) -> set[int]:
        with self._lock:
            return set(self._pending[kind])

    def waits(self, kind: str, pk: int) -> bool:
        """Whether ``pk`` waits in the queue of ``kind``, without copying the queue: a page
        asks this of each open job of a data room, and thousands may be waiting."""
        with self._lock:
            return pk in self._pending[kind]

    def _spawn(self, kind: str) -> None:
        generation = self._generation[kind]
        t = threading.Thread(
            target=self._serve,
            args=(kind, self._queues[kind], generation),
            name=f"jobs-{kind}-{generation}",
            daemon=True,
        )
        t.start()
        self._threads.append(t)

    def _serve(self, kind: str, q: queue.Queue[tuple[int, str, int]], generation: int) -> None:
        while not self._stop.is_set():
            if self._generation[kind] != generation:
                return  # replaced after a job ran past its time limit; the new thread serves
            pk, owner, attempt = q.get()
            with self._lock:
                self._current[kind] = (pk, owner, time.monotonic(), generation)
            try:
                close_old_connections()
                run_job(kind, pk, owner=owner, retry_transient=True)
            except TRANSIENT:
                delay = retry_backoff(attempt)
                logger.info("%s %s: transient error, retrying in %.1f s", kind, pk, delay)
                timer = threading.Timer(delay, self._requeue, args=(kind, pk, owner, attempt + 1))
                timer.daemon = True
                timer.start()
                continue
            except Exception:  # run_job already marked the row; never let the thread die
                logger.exception("%s %s: the runner caught an error", kind, pk)
            finally:
                connections.close_all()
                q.task_done()
                with self._lock:
                    if self._current.get(kind, (0, "", 0, -1))[3] == generation:
                        self._current.pop(kind, None)
            with self._lock:
                self._pending[kind].discard(pk)

    def enforce_time_limits(self) -> list[tuple[str, int]]:
        """Fail the jobs running past their soft time limit and give their queues a fresh
        thread. Returns the (kind, id) of each job so ended."""
        ended = []
        now = time.monotonic()
        for kind, (pk, owner, started, generation) in list(self._current.items()):
            if now - started <= time_limits(kind)["soft_time_limit"]:
                continue
            spec = SPECS[kind]
            code, message = failure_reason(spec, WorkerTimeLimit())
            fail_if_held(spec, pk, owner, code, message)
            with self._lock:
                if self._current.get(kind, (0, "", 0, -1))[3] != generation:
                    continue
                self._current.pop(kind, None)
                self._pending[kind].discard(pk)
                self._generation[kind] += 1
            logger.warning("%s %s ran past its time limit: failed, queue handed on", kind, pk)
            self._spawn(kind)
            ended.append((kind, pk))
        return ended

    def _requeue(self, kind: str, pk: int, owner: str, attempt: int) -> None:
        self._queues[kind].put((pk, owner, attempt))

    def _sweep_loop(self) -> None:
        # At start-up, and then every JOB_SWEEP_SECONDS: a process that died (or a runserver
        # reload) leaves leases that expire and queued rows nobody will run.
        first = True
        while first or not self._stop.wait(settings.JOB_SWEEP_SECONDS):
            first = False
            try:
                close_old_connections()
                self.enforce_time_limits()
                self.sweep_startup_queue()
                jobs_sweep()
            except Exception:
                logger.exception("the job sweeper failed; it runs again shortly")
            finally:
                connections.close_all()

    def sweep_startup_queue(self) -> None:
        """Queued rows that this process does not have in its queues were sent by a process
        that is gone: run them here. Rows queued in the last seconds are left to whoever just
        queued them (a command indexing the document it added), and evaluation runs, which can
        take hours, are only ever started by a person (Retry)."""
        settled = timezone.now() - timedelta(seconds=FRESH_SECONDS)
        for kind, spec in SPECS.items():
            if not spec.requeue_abandoned:
                continue
            model = spec.model_class()
            ids = model.objects.filter(
                status=spec.queued, updated_at__lt=settled
            ).values_list(  # type: ignore[attr-defined]
                "pk", flat=True
            )[:500]
            waiting = self.pending(kind)
            for pk in ids:
                if pk not in waiting:
                    self.put(kind, pk)


_RUNNER: LocalRunner | None = None
_RUNNER_LOCK = threading.Lock()


def local_runner() -> LocalRunner:
    global _RUNNER
    with _RUNNER_LOCK:
        if _RUNNER is None:
            _RUNNER = LocalRunner()
        return _RUNNER


def waiting_here(kind: str, pk: int) -> bool:
    """Whether the job waits its turn in this process's queue (so it is not stale)."""
    return _RUNNER is not None and _RUNNER.waits(kind, pk)
