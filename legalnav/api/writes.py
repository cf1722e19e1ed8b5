"""The writes of the token doors (the JSON API and the MCP server): upload, re-index, delete, ask. Each checks access through
``matters.access`` (an editor for documents, a member who may ask for questions), calls the one
service that does the work, and writes the audit row, saying which door it came through.

Every write here is marked ``@writes``: a user acting with a read-only API token is refused (403
``read_only_token``) before anything is looked up. This is the one place a token's scope is
checked, because it is the one place both token doors (the JSON API and the MCP tools) write
through; the API's HTTP method would cover only one door, and checks in the doors would have to
be kept in step.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps
from typing import IO, TYPE_CHECKING, ParamSpec, TypeVar

from legalnav.answers import actions
from legalnav.answers.actions import QuestionRejected
from legalnav.answers.models import Question
from legalnav.api import schemas
from legalnav.api.errors import ApiError, not_found, parse_id, rate_limited
from legalnav.api.selectors import document_access, document_out, matter_access, query_out
from legalnav.api.tokens import token_require_write
from legalnav.core import jobs
from legalnav.core.attributes import from_attributes
from legalnav.core.jobs import QueueUnavailable
from legalnav.documents import actions as document_actions
from legalnav.documents.actions import DocumentRejected
from legalnav.documents.models import Document
from legalnav.documents.parsing.extract.archive import is_archive
from legalnav.evaluation.models import EvaluationRun
from legalnav.matters import actions as matter_actions
from legalnav.matters.access import Action, is_admin
from legalnav.matters.models import Matter

if TYPE_CHECKING:
    from django.contrib.auth.models import User

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# DocumentRejected codes -> HTTP status.
_REJECTED_STATUS = {"too_large": 413, "unknown_type": 415, "empty": 422}

P = ParamSpec("P")
R = TypeVar("R")


def writes(service: Callable[P, R]) -> Callable[P, R]:
    """Mark a service that changes something: refused for a read-only token (see the module)."""

    @wraps(service)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        token_require_write(kwargs.get("user"))
        return service(*args, **kwargs)

    wrapper.writes = True  # type: ignore[attr-defined]  # for the test that every write is marked
    return wrapper


@writes
def document_upload(
    *,
    user: User,
    matter_id: object,
    filename: str,
    data: bytes,
    form: schemas.UploadForm,
    via: str,
) -> schemas.UploadOut:
    """Add a file to the matter and queue it for indexing (editors and owners). The same bytes
    uploaded twice give the existing document back (``created`` false) and change nothing."""
    matter = matter_access(user=user, matter_id=matter_id, action=Action.EDIT)
    # A file name is the client's text: no control characters or unencodable code points (the
    # database would refuse them), and the extension, which decides the type, is kept.
    filename = _CONTROL.sub("", filename).encode("utf-8", "ignore").decode("utf-8")
    if is_archive(filename):
        raise ApiError(
            415,
            "unknown_type",
            f"“{filename}” is a zip: send it to POST /v1/matters/{matter.pk}/archives, which adds "
            "every file in it.",
            field="file",
        )
    amends = None
    if form.amends is not None:
        amends = Document.objects.filter(pk=form.amends, matter=matter).first()
        if amends is None:
            raise ApiError(
                422, "invalid", "The amended document is not in this matter.", field="amends"
            )
    try:
        outcome = document_actions.document_upload(
            matter=matter,
            user=user,
            filename=filename,
            data=data,
            via=via,
            title=form.title.strip(),
            kind=form.kind or "",
            amends=amends,
            effective_date=form.effective_date,
        )
    except DocumentRejected as exc:
        raise ApiError(
            _REJECTED_STATUS.get(exc.code, 422), exc.code, exc.message, field="file"
        ) from None
    if outcome.code == "queue_unavailable":
        raise queue_down(f"{outcome.error} The document is {outcome.document.key}.")  # type: ignore[union-attr]
    assert outcome.document is not None
    return schemas.UploadOut(document=document_out(outcome.document), created=outcome.created)


@writes
def document_link(
    *, user: User, document_id: object, accept: bool, via: str
) -> schemas.DocumentOut:
    """Accept or reject the amendment link proposed for a document (editors and owners); 409
    when nothing is proposed."""
    doc = document_access(user=user, document_id=document_id, action=Action.EDIT)
    try:
        document_actions.document_link_review(document=doc, user=user, accept=accept, via=via)
    except ValueError as exc:
        raise ApiError(409, "nothing_proposed", str(exc)) from None
    except QueueUnavailable:
        raise queue_down() from None
    doc.refresh_from_db()
    return document_out(doc)


@writes
def archive_upload(
    *, user: User, matter_id: object, filename: str, source: IO[bytes], via: str
) -> schemas.ArchiveOut:
    """Every file of a data room's zip added as a document with its folder (editors and
    owners); files that are not documents, and the same bytes already here, are reported file
    by file. A zip that cannot be opened or is past the bounds adds nothing (422 / 413)."""
    matter = matter_access(user=user, matter_id=matter_id, action=Action.EDIT)
    filename = _CONTROL.sub("", filename).encode("utf-8", "ignore").decode("utf-8")
    outcomes = document_actions.document_upload_archive(
        matter=matter, user=user, name=filename, source=source, via=via
    )
    if len(outcomes) == 1 and not outcomes[0].archive:  # the zip itself was refused
        o = outcomes[0]
        raise ApiError(_REJECTED_STATUS.get(o.code, 422), o.code, o.error, field="file")
    files = [
        schemas.ArchiveFileOut(
            path=o.path,
            folder=o.folder,
            document=document_out(o.document) if o.document is not None else None,
            created=o.created,
            error=schemas.DocumentError(code=o.code, message=o.error) if o.error else None,
        )
        for o in outcomes
    ]
    return schemas.ArchiveOut(
        archive=filename,
        added=sum(1 for o in outcomes if o.created),
        copies=sum(1 for o in outcomes if o.document is not None and not o.created),
        left_out=sum(1 for o in outcomes if o.error and o.document is None),
        files=files,
    )


def queue_down(message: str = QueueUnavailable.message) -> ApiError:
    return ApiError(
        503,
        "queue_unavailable",
        message,
        headers={"Retry-After": str(QueueUnavailable.retry_after)},
    )


@writes
def document_retry(*, user: User, document_id: object, force: bool, via: str) -> schemas.ReindexOut:
    """Queue the document for indexing again: a retry (failed, cancelled or stalled), or a
    rebuild of an indexed one (``force``)."""
    doc = document_access(user=user, document_id=document_id, action=Action.EDIT)
    try:
        queued = document_actions.document_retry(document=doc, user=user, force=force, via=via)
    except QueueUnavailable:
        raise queue_down() from None
    doc.refresh_from_db()
    return schemas.ReindexOut(document=document_out(doc), queued=queued)


@writes
def document_cancel(*, user: User, document_id: object, via: str) -> schemas.DocumentOut:
    """Cancel indexing; 409 when the document is not being indexed."""
    doc = document_access(user=user, document_id=document_id, action=Action.EDIT)
    if not document_actions.document_cancel(document=doc, user=user, via=via):
        raise ApiError(409, "not_running", f"{doc.key} is {doc.status}: nothing to cancel.")
    doc.refresh_from_db()
    return document_out(doc)


@writes
def document_remove(*, user: User, document_id: object, via: str) -> None:
    """Delete the document, its nodes, vectors, navindex files and stored file."""
    doc = document_access(user=user, document_id=document_id, action=Action.EDIT)
    document_actions.document_remove(document=doc, user=user, via=via)


@writes
def question_ask(
    *, user: User, matter_id: object, body: schemas.AskBody, via: str
) -> schemas.QuestionOut:
    """Put a question to the matter; it is answered in the background. Rate-limited per user
    like the ask page: a refusal is a 429 with Retry-After; a task queue that is down, a 503
    with Retry-After (the question is kept, failed, and can be retried)."""
    matter = matter_access(user=user, matter_id=matter_id, action=Action.ASK)
    try:
        query = actions.question_ask(
            matter=matter, user=user, question=body.question, mode=body.mode, via=via
        )
    except actions.RateLimited as exc:
        raise rate_limited(exc.decision) from None
    except QuestionRejected as exc:
        raise ApiError(422, "invalid", str(exc), field="question") from None
    except actions.JobQueueDown as exc:
        raise queue_down(f"{exc.message} The question is Q{exc.item.pk}.") from None
    return query_out(query)


def _question(
    user: User, matter_id: object, query_id: object, action: Action
) -> tuple[Matter, Question]:
    matter = matter_access(user=user, matter_id=matter_id, action=action)
    query = Question.objects.filter(matter=matter, pk=parse_id(query_id, "question")).first()
    if query is None:
        raise not_found("question in this matter")
    return matter, query


@writes
def question_retry(
    *, user: User, matter_id: object, query_id: object, via: str
) -> schemas.QuestionOut:
    """Send a failed, cancelled or stalled question again; 409 when there is nothing to retry."""
    matter, query = _question(user, matter_id, query_id, Action.ASK)
    try:
        retried = actions.question_retry(matter=matter, user=user, query=query, via=via)
    except actions.RateLimited as exc:
        raise rate_limited(exc.decision) from None
    except actions.JobQueueDown:
        raise queue_down() from None
    if not retried:
        raise ApiError(409, "not_retryable", f"Q{query.pk} is {query.status}: nothing to retry.")
    query.refresh_from_db()
    return query_out(query)


@writes
def question_cancel(
    *, user: User, matter_id: object, query_id: object, via: str
) -> schemas.QuestionOut:
    """Cancel a queued or running question; 409 when it has already ended."""
    matter, query = _question(user, matter_id, query_id, Action.ASK)
    if not actions.question_cancel(matter=matter, user=user, query=query, via=via):
        raise ApiError(409, "not_running", f"Q{query.pk} is {query.status}: nothing to cancel.")
    query.refresh_from_db()
    return query_out(query)


# --- evaluation runs (staff, or the user who started the run) ---------------------------------


def _run(user: User, run_id: object) -> EvaluationRun:
    from legalnav.evaluation.selectors import runs_visible

    run = runs_visible(user=user).filter(pk=parse_id(run_id, "evaluation run")).first()
    if run is None:
        raise not_found("evaluation run")
    return run


def evaluation_run_out(run: EvaluationRun) -> schemas.EvaluationRunOut:
    return from_attributes(
        schemas.EvaluationRunOut,
        run,
        id=run.pk,
        modes=list(run.modes),
        error=run.error_message or None,
        stale=jobs.is_stale(jobs.spec_for("evaluation"), run),
    )


def evaluation_detail(*, user: User, run_id: object) -> schemas.EvaluationRunOut:
    return evaluation_run_out(_run(user, run_id))


@writes
def evaluation_retry(*, user: User, run_id: object, via: str) -> schemas.EvaluationRunOut:
    """Resume an interrupted, failed, cancelled or stalled run in the background."""
    from legalnav.evaluation import actions as evaluation_actions

    run = _run(user, run_id)
    try:
        retried = evaluation_actions.evaluation_retry(run=run, user=user, via=via)
    except QueueUnavailable:
        raise queue_down() from None
    if not retried:
        raise ApiError(409, "not_retryable", f"Run {run.pk} is {run.status}: nothing to resume.")
    run.refresh_from_db()
    return evaluation_run_out(run)


@writes
def evaluation_cancel(*, user: User, run_id: object, via: str) -> schemas.EvaluationRunOut:
    """Cancel a queued or running run (what it finished is kept); 409 when it has ended."""
    from legalnav.evaluation import actions as evaluation_actions

    run = _run(user, run_id)
    if not evaluation_actions.evaluation_cancel(run=run, user=user, via=via):
        raise ApiError(409, "not_running", f"Run {run.pk} is {run.status}: nothing to cancel.")
    run.refresh_from_db()
    return evaluation_run_out(run)


def question_status(*, user: User, matter_id: object, query_id: object) -> Question:
    """The question row (for polling loops that only need its status)."""
    return _question(user, matter_id, query_id, Action.VIEW)[1]


# --- a matter's life ----------------------------------------------------------------------------


def _life(change: Callable[[], R]) -> R:
    try:
        return change()
    except matter_actions.MatterLifeError as exc:
        raise ApiError(409, "matter_state", exc.message) from None


def _owner_change(
    user: User, matter_id: object, change: Callable[[Matter], object]
) -> schemas.MatterOut:
    """An owner's change to the matter's life (409 when its state refuses it); the matter after."""
    matter = matter_access(user=user, matter_id=matter_id, action=Action.MANAGE)
    _life(lambda: change(matter))
    from legalnav.api.selectors import matter_detail

    return matter_detail(user=user, matter_id=matter.pk)


@writes
def matter_close(*, user: User, matter_id: object, via: str) -> schemas.MatterOut:
    """Close the matter (owners): read-only from now on; 409 while work still runs in it."""
    return _owner_change(
        user, matter_id, lambda m: matter_actions.matter_close(matter=m, user=user, via=via)
    )


def matter_handover(*, user: User, matter_id: object, via: str) -> matter_actions.Handover:
    """The handover zip (owners; audited). A read: a read-only token may take it."""
    matter = matter_access(user=user, matter_id=matter_id, action=Action.MANAGE)
    return _life(lambda: matter_actions.matter_handover(matter=matter, user=user, via=via))


@writes
def matter_reopen(*, user: User, matter_id: object, via: str) -> schemas.MatterOut:
    return _owner_change(
        user, matter_id, lambda m: matter_actions.matter_reopen(matter=m, user=user, via=via)
    )


@writes
def matter_retention(
    *, user: User, matter_id: object, body: schemas.RetentionIn, via: str
) -> schemas.MatterOut:
    return _owner_change(
        user,
        matter_id,
        lambda m: matter_actions.matter_set_retention(
            matter=m, user=user, retain_until=body.retain_until, via=via
        ),
    )


@writes
def matter_purge_request(
    *, user: User, matter_id: object, body: schemas.TypedNameIn, via: str
) -> schemas.MatterOut:
    """An owner asks for the closed matter's purge, typing its name; staff confirm."""
    return _owner_change(
        user,
        matter_id,
        lambda m: matter_actions.matter_purge_request(
            matter=m, user=user, typed_name=body.name, via=via
        ),
    )


@writes
def matter_purge_withdraw(*, user: User, matter_id: object, via: str) -> schemas.MatterOut:
    return _owner_change(
        user,
        matter_id,
        lambda m: matter_actions.matter_purge_withdraw(matter=m, user=user, via=via),
    )


@writes
def matter_purge(
    *, user: User, matter_id: object, body: schemas.TypedNameIn, via: str
) -> schemas.PurgeOut:
    """Staff confirm an owner's purge request, typing the matter's name. Staff need not be
    members; anyone else gets what ``matter_access`` gives (404 for a non-member), then 403."""
    if is_admin(user):
        matter = Matter.objects.filter(pk=parse_id(matter_id, "matter")).first()
        if matter is None:
            raise not_found("matter")
    else:
        matter = matter_access(user=user, matter_id=matter_id, action=Action.VIEW)
    removed: dict[str, int] = {}

    def purge() -> None:
        removed.update(
            matter_actions.matter_purge(matter=matter, user=user, typed_name=body.name, via=via)
        )

    try:
        _life(purge)
    except matter_actions.PurgeFailed as exc:
        raise ApiError(503, "purge_incomplete", str(exc)) from None
    return schemas.PurgeOut(
        matter_id=matter.pk, status=matter.status, purged_at=matter.purged_at, removed=removed
    )
