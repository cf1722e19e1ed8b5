"""What a person can do to an evaluation run, one function per action for every door (the run
page, the JSON API, MCP through the API's services, and ``manage.py evaluate``): start a run,
retry (resume) it, cancel it.

Each checks access, changes the run, and writes its audit row in the same transaction, with
``via`` naming the door; a retry sends the run to the task runner once that transaction commits.

Access is one rule for every door: staff, or the user who started the run, may see it and so
retry or cancel it; to anyone else it does not exist (``Http404``, the answer the doors give for
an unknown run). Starting a run from a door other than a command needs staff: a run spends
compute and, with answers or a judge, Claude calls, and belongs to no matter whose members could
be asked. A management command acts for whoever runs it on the server, who can change the
database directly anyway: with ``via="command"`` the check is skipped and ``user`` may be None.

Evaluation runs score gold sets, never a matter's documents, so their audit rows have no matter
(``AuditEvent.matter`` is empty); ``detail["run_id"]`` says which run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404

from legalnav.core import jobs
from legalnav.core.jobs import QueueUnavailable
from legalnav.core.users import actor_name
from legalnav.evaluation.models import EvaluationRun
from legalnav.evaluation.selectors import run_visible_to
from legalnav.evaluation.services import (
    EVALUATION,
    evaluation_run_cancel,
    evaluation_run_create,
    evaluation_run_retry,
)
from legalnav.evaluation.verbs import Verb as EvaluationVerb
from legalnav.matters.access import is_admin
from legalnav.matters.audit import audit_record
from legalnav.matters.models import AuditEvent

if TYPE_CHECKING:
    from django.contrib.auth.models import User

COMMAND = "command"


def _target(run: EvaluationRun) -> str:
    return f"evaluation run #{run.pk} {run.name}"


def _may_act(user: User | None, run: EvaluationRun, via: str) -> None:
    if via != COMMAND and not run_visible_to(user=user, run=run):
        raise Http404("No such evaluation run.")


def evaluation_start(
    *,
    user: User | None,
    via: str,
    name: str,
    gold_set: str,
    modes: list[str],
    k: int = 10,
    contracts: int | None = 40,
    limit: int | None = None,
    path: str = "",
    answer: bool | None = None,
    answerer: str = "auto",
    judge: list[tuple[str, str]] | None = None,
) -> EvaluationRun:
    """A new run, checked before anything slow (``EvaluationError`` says what is wrong) and
    audited; ``user`` is recorded as the run's creator (who may then see, retry and cancel it).

    The run is queued, not sent: the evaluate command runs it in its own process right after
    (``services.evaluation_run_execute``)."""
    if via != COMMAND and not is_admin(user):
        raise PermissionDenied("Only staff can start an evaluation run.")
    with transaction.atomic():
        run = evaluation_run_create(
            name=name,
            gold_set=gold_set,
            modes=modes,
            k=k,
            user=user,
            contracts=contracts,
            limit=limit,
            path=path,
            answer=answer,
            answerer=answerer,
            judge=judge,
        )
        audit_record(
            matter=None,
            user=user,
            action=EvaluationVerb.STARTED,
            target=_target(run),
            detail={
                "run_id": run.pk,
                "gold_set": run.gold_set,
                "modes": list(run.modes),
                "via": via,
            },
        )
    return run


def evaluation_retry(
    *, run: EvaluationRun, user: User | None, via: str, here: bool = False
) -> bool:
    """Resume an interrupted, failed, cancelled or stalled run where it stopped, in the
    background. False when there was nothing to resume (it is done, or someone is running it).
    Raises ``QueueUnavailable`` (audited; the run is then failed with that reason, and can be
    retried again) when the task queue is down.

    ``here``: the caller (the evaluate command) runs the run in its own process right away, so
    nothing is sent, and a finished run may be resumed too (it redoes only the questions that
    ended in an error); only a run another process is working on now is refused."""
    _may_act(user, run, via)
    before = run.status
    if here:
        if before == EvaluationRun.Status.RUNNING and not jobs.is_stale(EVALUATION, run):
            return False
        _audit(run, user, AuditEvent.Action.RETRIED, via, before=before, here=True)
        return True
    try:
        with transaction.atomic():
            retried = evaluation_run_retry(run=run)
            if retried:
                _audit(run, user, AuditEvent.Action.RETRIED, via, before=before)
    except QueueUnavailable:
        _audit(run, user, AuditEvent.Action.QUEUE_DOWN, via)
        raise
    return retried


def evaluation_cancel(*, run: EvaluationRun, user: User | None, via: str) -> bool:
    """Cancel a queued or running run; what it finished is kept. False when it had ended."""
    _may_act(user, run, via)
    with transaction.atomic():
        before = run.status
        cancelled = evaluation_run_cancel(run=run, by=actor_name(user))
        if cancelled:
            _audit(run, user, AuditEvent.Action.CANCELLED, via, before=before)
    return cancelled


def _audit(run: EvaluationRun, user: User | None, action: str, via: str, **detail: object) -> None:
    audit_record(
        matter=None,
        user=user,
        action=action,
        target=_target(run),
        detail={"run_id": run.pk, **detail, "via": via},
    )
