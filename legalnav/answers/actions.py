"""What a member can do to a question, one function per action for every door (the ask page, the
JSON API, MCP): ask, retry, cancel and export a memo. Each applies the asking rate limit where it applies,
writes its audit row, and sends the job once the row is committed. Asking and retrying are
refused past a spending cap (``spend``) before anything is counted or saved. Access (``matter_for`` or the
API's ``matter_access``) is checked by the door before it calls in, since each door answers a
refusal in its own way (a 404 page, a JSON error, an MCP error).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from legalnav.answers.memo import Memo, memo_render
from legalnav.answers.models import Question
from legalnav.answers.services import MAX_QUESTION_CHARS as MAX_QUESTION_CHARS  # for the doors
from legalnav.answers.services import QuestionRejected as QuestionRejected  # for the doors
from legalnav.answers.services import query_answer, query_cancel, query_create, query_retry
from legalnav.answers.spend import SpendDecision, spend_check
from legalnav.answers.verbs import Verb as AnswerVerb
from legalnav.core import jobs
from legalnav.core.jobs import QueueUnavailable
from legalnav.core.limits import (
    EXPORT,
    QUESTION,
    Limit,
    RateDecision,
    limit_refund,
    limit_take,
    subjects_of,
)
from legalnav.core.users import actor_name
from legalnav.matters import audit
from legalnav.matters.access import require_open, require_starter_or_editor
from legalnav.matters.audit import audit_action
from legalnav.matters.models import AuditEvent, Matter

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class RateLimited(Exception):
    """Over a rate limit or a spending cap: ``decision`` has the message, how long to wait
    (``retry_after``) and a ``code`` for the API ("rate_limited", "spend_capped")."""

    def __init__(self, decision: RateDecision | SpendDecision) -> None:
        super().__init__(decision.message)
        self.decision = decision


class JobQueueDown(audit.JobQueueDown[Question]):
    """The question (``.item``) was saved and marked failed ("the task queue is unavailable");
    it can be retried once the queue is back."""

    id_key = "query_id"


def spend_require(*, matter: Matter, user: User | None) -> None:
    """Raise ``RateLimited`` when the matter or the user has reached a spending cap."""
    capped = spend_check(matter=matter, user=user)
    if capped is not None:
        raise RateLimited(capped)


def limit_require(limit: Limit, user: User | None) -> list[tuple[str, str]]:
    """Count one use of ``limit`` against the user's counter and the API token's; raise
    ``RateLimited`` past it. Returns the counters, for ``limit_refund`` when the action is then
    refused for another reason."""
    subjects = subjects_of(user)
    decision = limit_take(limit, subjects=subjects)
    if not decision.allowed:
        raise RateLimited(decision)
    return subjects


@contextmanager
def limit_spent(limit: Limit, user: User | None) -> Iterator[None]:
    """``limit_require`` for the block that follows: the use is given back if the block raises
    (the action was refused, or failed, for another reason)."""
    subjects = limit_require(limit, user)
    try:
        yield
    except Exception:
        limit_refund(limit, subjects=subjects)
        raise


def _target(query: Question, suffix: str = "") -> str:
    return f"question Q{query.pk}{suffix}"


def question_ask(
    *, matter: Matter, user: User | None, question: str, mode: str, via: str, here: bool = False
) -> Question:
    """Put a question to the matter; it is answered in the background.

    Raises ``RateLimited`` (past a spending cap or the asking rate; nothing saved),
    ``QuestionRejected`` (nothing saved, the rate refunded) or ``JobQueueDown`` (saved as failed
    with the reason; Retry sends it again).

    ``here``: answer it in this process before returning (the commands' door, which acts for no
    user and so counts against no user's asking rate, but against the matter's spending cap)."""
    require_open(matter)
    spend_require(matter=matter, user=user)
    with limit_spent(QUESTION, user):
        query = query_create(matter=matter, user=user, question=question, mode=mode, enqueue=False)
    audit_action(
        matter,
        user,
        AnswerVerb.ASKED,
        _target(query),
        via,
        query_id=query.pk,
        mode=query.mode,
        question=query.question[:200],
    )
    if here:
        return query_answer(query_id=query.pk) or query
    try:
        jobs.enqueue_on_commit("question", query.pk)
    except QueueUnavailable:
        raise JobQueueDown.recorded(matter, user, query, _target(query), via) from None
    query.refresh_from_db()
    return query


def question_retry(*, matter: Matter, user: User, query: Question, via: str) -> bool:
    """Send a failed, cancelled or stalled question again (counts against the asking rate and
    is refused past a spending cap). False when there was nothing to retry (it is answered, or a
    worker is on it)."""
    require_open(matter)
    spend_require(matter=matter, user=user)
    subjects = limit_require(QUESTION, user)
    status_before = query.status
    try:
        retried = query_retry(query=query)
    except QueueUnavailable:
        raise JobQueueDown.recorded(matter, user, query, _target(query), via) from None
    if not retried:
        limit_refund(QUESTION, subjects=subjects)
        return False
    audit_action(
        matter,
        user,
        AuditEvent.Action.RETRIED,
        _target(query, " (retry)"),
        via,
        query_id=query.pk,
        mode=query.mode,
        before=status_before,
    )
    return True


def question_cancel(*, matter: Matter, user: User, query: Question, via: str) -> bool:
    """Cancel a queued or running question: its asker may, and so may an editor or owner of
    the matter (a viewer cannot stop other people's questions). False when it had ended."""
    require_starter_or_editor(
        user=user,
        matter=matter,
        started_by_id=query.asked_by_id,
        refusal="Only the person who asked, or an editor, can cancel a question.",
    )
    name = actor_name(user)
    if not query_cancel(query=query, by=name):
        return False
    audit_action(matter, user, AuditEvent.Action.CANCELLED, _target(query), via, query_id=query.pk)
    return True


def memo_export(*, matter: Matter, query: Question, user: User, via: str) -> Memo:
    """The answered question as a PDF memo; the export is recorded in the matter's audit trail.
    Any member may export (the door checked VIEW). Raises ``RateLimited`` past the export rate
    (``LEGALNAV_EXPORT_RATE_PER_MINUTE``) and ``MemoUnavailable`` before an answer."""
    with limit_spent(EXPORT, user):
        memo = memo_render(matter=matter, query=query, user=user)
    audit_action(
        matter,
        user,
        AuditEvent.Action.EXPORTED,
        f"memo of question Q{query.pk}",
        via,
        query_id=query.pk,
        question=query.question[:200],
        bytes=len(memo.pdf),
    )
    return memo
