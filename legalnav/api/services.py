"""Writes for the API and the MCP server: upload, re-index, delete, ask. Each checks access through
``matters.access`` (an editor for documents, a member who may ask for questions), calls the one
service that does the work, and writes the audit row, saying which door it came through.
"""

from __future__ import annotations

import re

from legalnav.answers.models import Query
from legalnav.answers.ratelimit import ask_rate_refund, ask_rate_take
from legalnav.answers.services import QueryRejected, query_create
from legalnav.api import schemas
from legalnav.api.errors import ApiError, not_found, parse_id
from legalnav.api.selectors import document_access, document_out, matter_access, query_out
from legalnav.documents.models import Document
from legalnav.documents.services import (
    DocumentRejected,
    document_add,
    document_delete,
    document_reindex,
)
from legalnav.matters.access import Action
from legalnav.matters.audit import audit_record
from legalnav.matters.models import AuditEvent

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# DocumentRejected codes -> HTTP status.
_REJECTED_STATUS = {"too_large": 413, "unknown_type": 415, "empty": 422}


def document_upload(
    *,
    user: object,
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
    amends = None
    if form.amends is not None:
        amends = Document.objects.filter(pk=form.amends, matter=matter).first()
        if amends is None:
            raise ApiError(
                422, "invalid", "The amended document is not in this matter.", field="amends"
            )
    try:
        doc, created = document_add(
            matter=matter,
            filename=filename,
            data=data,
            title=form.title.strip(),
            kind=form.kind or "",
            amends=amends,
            effective_date=form.effective_date,
        )
    except DocumentRejected as exc:
        raise ApiError(
            _REJECTED_STATUS.get(exc.code, 422), exc.code, exc.message, field="file"
        ) from None
    if created:
        audit_record(
            matter=matter,
            user=user,
            action=AuditEvent.Action.UPLOADED,
            target=f"{doc.key} {doc.original_filename}",
            detail={"document_id": doc.pk, "bytes": doc.size_bytes, "via": via},
        )
    doc.refresh_from_db()
    return schemas.UploadOut(document=document_out(doc), created=created)


def document_requeue(
    *, user: object, document_id: object, force: bool, via: str
) -> schemas.ReindexOut:
    """Queue the document for indexing again (a retry, or a forced rebuild)."""
    doc = document_access(user=user, document_id=document_id, action=Action.EDIT)
    queued = doc.status != Document.Status.INDEXING
    if queued:
        document_reindex(document=doc, force=force)
        audit_record(
            matter=doc.matter,
            user=user,
            action=AuditEvent.Action.REINDEXED,
            target=f"{doc.key} {doc.original_filename}",
            detail={"document_id": doc.pk, "force": force, "via": via},
        )
    doc.refresh_from_db()
    return schemas.ReindexOut(document=document_out(doc), queued=queued)


def document_remove(*, user: object, document_id: object, via: str) -> None:
    """Delete the document, its nodes, vectors, navindex files and stored file."""
    doc = document_access(user=user, document_id=document_id, action=Action.EDIT)
    matter, key, name, pk = doc.matter, doc.key, doc.original_filename, doc.pk
    document_delete(document=doc)
    audit_record(
        matter=matter,
        user=user,
        action=AuditEvent.Action.DELETED,
        target=f"{key} {name}",
        detail={"document_id": pk, "via": via},
    )


def question_ask(
    *, user: object, matter_id: object, body: schemas.AskBody, via: str
) -> schemas.QueryOut:
    """Put a question to the matter; it is answered in the background (at once on the embedded
    default). Rate-limited per user like the ask page: a refusal is a 429 with Retry-After."""
    matter = matter_access(user=user, matter_id=matter_id, action=Action.ASK)
    user_id = getattr(user, "pk", None)
    decision = ask_rate_take(user_id=user_id)
    if not decision.allowed:
        raise ApiError(
            429,
            "rate_limited",
            decision.message,
            headers={"Retry-After": str(decision.retry_after)},
        )
    try:
        query = query_create(matter=matter, user=user, question=body.question, mode=body.mode)
    except QueryRejected as exc:
        ask_rate_refund(user_id=user_id)
        raise ApiError(422, "invalid", str(exc), field="question") from None
    audit_record(
        matter=matter,
        user=user,
        action=AuditEvent.Action.ASKED,
        target=f"question Q{query.pk}",
        detail={
            "query_id": query.pk,
            "mode": query.mode,
            "question": query.question[:200],
            "via": via,
        },
    )
    query.refresh_from_db()
    return query_out(query)


def question_status(*, user: object, matter_id: object, query_id: object) -> Query:
    """The question row (for polling loops that only need its status)."""
    matter = matter_access(user=user, matter_id=matter_id)
    query = Query.objects.filter(matter=matter, pk=parse_id(query_id, "question")).first()
    if query is None:
        raise not_found("question in this matter")
    return query
