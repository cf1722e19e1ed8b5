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

The package, by part (every module imports only public names of the others; import from the
package, as callers always have):

- ``spec``: ``JobSpec``, the registry (``register_job``, ``spec_for``, ``SPECS``) and the settings
  every part reads.
- ``lease``: the claim (``job_claim``, ``Refusal``), the ``Lease``, ``guard`` around the work
  (``run_claimed``: the claim, then the work inside ``guard``), and how a failure is worded and
  written (``failure_reason``, ``fail_if_held``, ``give_up``).
- ``dispatch``: sending a job to a runner (``enqueue``), running it (``run_job``) and the Celery
  task's body (``run_celery_job``, ``time_limits``, ``retry_backoff``).
- ``sweep``: ``is_stale`` (and ``may_be_stale``, its filter for the database), the sweeper
  (``jobs_sweep``, ``job_sweep_one``, ``job_poll_check``) and the user's actions (``job_retry``,
  ``job_cancel``, ``job_reset``, ``can_retry``, ``can_cancel``).
"""

from __future__ import annotations

from legalnav.core.jobs.dispatch import (
    QueueUnavailable,
    enqueue,
    enqueue_on_commit,
    job_finished,
    retry_backoff,
    run_celery_job,
    run_job,
    runner_name,
    time_limits,
)
from legalnav.core.jobs.lease import (
    PASS_THROUGH,
    JobLost,
    Lease,
    Refusal,
    WorkerTimeLimit,
    fail_if_held,
    failure_reason,
    give_up,
    guard,
    job_claim,
    note_if_held,
    run_claimed,
)
from legalnav.core.jobs.spec import (
    SPECS,
    TRANSIENT,
    JobSpec,
    has_field,
    lease_seconds,
    max_attempts,
    new_owner,
    register_job,
    spec_for,
)
from legalnav.core.jobs.sweep import (
    SweepReport,
    can_cancel,
    can_retry,
    is_stale,
    job_cancel,
    job_poll_check,
    job_reset,
    job_retry,
    job_sweep_one,
    jobs_sweep,
    may_be_stale,
)

__all__ = [
    "PASS_THROUGH",
    "SPECS",
    "TRANSIENT",
    "JobLost",
    "JobSpec",
    "Lease",
    "QueueUnavailable",
    "Refusal",
    "SweepReport",
    "WorkerTimeLimit",
    "can_cancel",
    "can_retry",
    "enqueue",
    "enqueue_on_commit",
    "fail_if_held",
    "failure_reason",
    "give_up",
    "guard",
    "has_field",
    "is_stale",
    "job_cancel",
    "job_claim",
    "job_finished",
    "job_poll_check",
    "job_reset",
    "job_retry",
    "job_sweep_one",
    "jobs_sweep",
    "lease_seconds",
    "max_attempts",
    "may_be_stale",
    "new_owner",
    "note_if_held",
    "register_job",
    "retry_backoff",
    "run_celery_job",
    "run_claimed",
    "run_job",
    "runner_name",
    "spec_for",
    "time_limits",
]
