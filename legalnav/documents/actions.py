"""What the reviewer's desk does to documents: upload, retry or re-index, cancel, edit details,
delete.

Each wraps one document service and writes the audit row it owes in the same transaction, so the
trail records exactly the changes that happened. Upload takes several files and treats each on
its own: a refused file (empty, too large, of an unknown type) gets its reason and leaves
nothing behind, and does not stop the others.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import IO, TYPE_CHECKING

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from legalnav.core.jobs import QueueUnavailable
from legalnav.core.users import actor_name
from legalnav.documents import services
from legalnav.documents.models import Document
from legalnav.documents.parsing.extract import SUPPORTED_EXTENSIONS, ExtractionError
from legalnav.documents.parsing.extract.archive import (
    FOLDER_SEPARATOR,
    ArchiveLimits,
    ArchiveSkip,
    is_archive,
    walk_archive,
)
from legalnav.documents.services import (
    DocumentRejected,
    IndexOutcome,
    _human,
    document_add,
    document_delete,
    document_enqueue_index,
    document_index,
    document_reindex,
    document_write_navindex,
    extract_limits,
    navindex_dir,
)
from legalnav.documents.verbs import Verb as DocumentVerb
from legalnav.matters.access import require_open
from legalnav.matters.audit import audit_action, audit_record
from legalnav.matters.models import AuditEvent, Matter

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# What the doors (pages, API, admin, commands) may name from here rather than from the services,
# which they do not import (the layer contract in pyproject.toml).
__all__ = [
    "DocumentRejected",
    "IndexOutcome",
    "UploadOutcome",
    "archive_limits",
    "document_cancel",
    "document_link_review",
    "document_remove",
    "document_retry",
    "document_update_details",
    "document_upload",
    "document_upload_archive",
    "document_upload_many",
    "document_write_navindex",
    "extract_limits",
    "navindex_dir",
]

# More files than this in one upload are refused as a whole (Django's own cap is 100).
MAX_FILES_PER_UPLOAD = 20


@dataclass(frozen=True)
class UploadOutcome:
    filename: str
    document: Document | None = None
    created: bool = False
    error: str = ""  # why the file was refused; "" when it was accepted
    code: str = ""  # the refusal's code; "queue_unavailable": saved, failed, retryable
    folder: str = ""  # where it sat in the zip it came from
    archive: str = ""  # the zip it came from, "" for a file uploaded on its own
    index: IndexOutcome | None = None  # indexed in this process (``here``, the commands' door)

    @property
    def path(self) -> str:
        return f"{self.folder}{FOLDER_SEPARATOR}{self.filename}" if self.folder else self.filename


def archive_limits() -> ArchiveLimits:
    return ArchiveLimits(
        files=settings.LEGALNAV_MAX_ZIP_FILES,
        expanded_bytes=settings.LEGALNAV_MAX_ZIP_EXPANDED_BYTES,
        ratio=settings.LEGALNAV_MAX_ZIP_RATIO,
        file_bytes=settings.LEGALNAV_MAX_UPLOAD_BYTES,
    )


def document_upload_archive(
    *, matter: Matter, user: User, name: str, source: IO[bytes] | bytes, via: str = "page"
) -> list[UploadOutcome]:
    """Every file of a zip (and of the zips inside it) added as a document with its folder,
    each on its own like a file uploaded alone; files that are not documents come back as
    refused with the reason. A zip that cannot be opened or is past the bounds adds nothing and
    comes back as one refused outcome."""
    outcomes: list[UploadOutcome] = []
    try:
        for item in walk_archive(
            source, name, limits=archive_limits(), supported=SUPPORTED_EXTENSIONS
        ):
            if isinstance(item, ArchiveSkip):
                outcomes.append(
                    UploadOutcome(
                        filename=item.path, error=item.reason, code="skipped", archive=name
                    )
                )
                continue
            try:
                outcome = document_upload(
                    matter=matter,
                    user=user,
                    filename=item.name,
                    data=item.data,
                    via=via,
                    folder=item.folder,
                    archive=name,
                )
            except DocumentRejected as exc:
                outcome = UploadOutcome(filename=item.name, error=exc.message, code=exc.code)
            outcomes.append(replace(outcome, folder=item.folder, archive=name))
    except ExtractionError as exc:
        outcomes.append(UploadOutcome(filename=name, error=exc.message, code=exc.code))
    return outcomes


def _target(document: Document) -> str:
    return f"{document.key} {document.title} ({document.original_filename})"


def document_upload_many(
    *, matter: Matter, user: User, files: Sequence[UploadedFile]
) -> list[UploadOutcome]:
    """Add each file to the matter and queue it for indexing; one outcome per file, in order."""
    outcomes = []
    limit = settings.LEGALNAV_MAX_UPLOAD_BYTES
    for upload in files:
        name = os.path.basename(upload.name or "") or "document"
        if is_archive(name):
            outcomes += document_upload_archive(matter=matter, user=user, name=name, source=upload)
            continue
        try:
            # Refuse an oversized file before reading it into memory.
            if upload.size is not None and upload.size > limit:
                raise DocumentRejected(
                    "too_large",
                    f"“{name}” is {_human(upload.size)}, over the {_human(limit)} limit.",
                )
            data = upload.read()
            outcomes.append(document_upload(matter=matter, user=user, filename=name, data=data))
        except DocumentRejected as exc:
            outcomes.append(UploadOutcome(filename=name, error=exc.message, code=exc.code))
    return outcomes


def document_upload(
    *,
    matter: Matter,
    user: User,
    filename: str,
    data: bytes,
    via: str = "page",
    archive: str = "",
    here: bool = False,
    **details: object,
) -> UploadOutcome:
    """One file: stored, audited and queued for indexing in one step. Raises
    ``DocumentRejected`` (nothing stored). When the task queue is down the document is kept,
    marked failed ("the task queue is unavailable") and audited; the outcome says so.

    ``here``: index it in this process before returning instead of queueing it (the commands'
    door); a file already in the matter is indexed again only if it is not current (a failed
    one is retried, an indexed one left alone). The outcome's ``index`` says how it went."""
    require_open(matter)
    with transaction.atomic():
        doc, created = document_add(
            matter=matter,
            filename=filename,
            data=data,
            enqueue=False,
            **details,  # type: ignore[arg-type]
        )
        if created:
            audit_record(
                matter=matter,
                user=user,
                action=DocumentVerb.UPLOADED,
                target=_target(doc),
                detail={
                    "document_id": doc.pk,
                    "filename": filename,
                    "bytes": len(data),
                    "sha256": doc.sha256,
                    "via": via,
                    **({"folder": doc.folder, "archive": archive} if archive else {}),
                },
            )
    if here:
        index = document_index(document_id=doc.pk)
        doc.refresh_from_db()
        return UploadOutcome(filename=filename, document=doc, created=created, index=index)
    if created:
        try:
            document_enqueue_index(document=doc)
        except QueueUnavailable:
            _queue_down(doc, user, via)
            doc.refresh_from_db()
            return UploadOutcome(
                filename=filename,
                document=doc,
                created=True,
                error=f"“{filename}” was saved as {doc.key}, but {QueueUnavailable.message[0].lower()}"
                f"{QueueUnavailable.message[1:]}",
                code="queue_unavailable",
            )
    doc.refresh_from_db()
    return UploadOutcome(filename=filename, document=doc, created=created)


def _queue_down(document: Document, user: User, via: str) -> None:
    audit_action(
        document.matter,
        user,
        AuditEvent.Action.QUEUE_DOWN,
        _target(document),
        via,
        document_id=document.pk,
    )


def document_retry(*, document: Document, user: User, force: bool, via: str = "page") -> bool:
    """Retry a failed, cancelled or stalled document, or rebuild an indexed one (``force``: the
    page's Re-index and the admin's rebuild are this retry of a finished job). False when a worker is indexing it right now. Raises ``QueueUnavailable`` (audited; the
    document is then failed with that reason) when the task queue is down."""
    require_open(document.matter)
    status_before = document.status
    try:
        with transaction.atomic():
            queued = document_reindex(document=document, force=force)
            if queued:
                audit_action(
                    document.matter,
                    user,
                    DocumentVerb.REINDEXED,
                    _target(document),
                    via,
                    document_id=document.pk,
                    retry=status_before != Document.Status.INDEXED,
                    force=force,
                    status_before=status_before,
                )
    except QueueUnavailable:
        _queue_down(document, user, via)
        raise
    return queued


def document_cancel(*, document: Document, user: User, via: str = "page") -> bool:
    """Cancel a queued, indexing or stalled document. False when it had already ended."""
    name = actor_name(user)
    if not services.document_cancel(document=document, by=name):
        return False
    audit_action(
        document.matter,
        user,
        AuditEvent.Action.CANCELLED,
        _target(document),
        via,
        document_id=document.pk,
    )
    return True


def document_remove(*, document: Document, user: User, via: str = "page") -> None:
    """Delete a document with its clauses, vectors and files (audited in the same transaction)."""
    require_open(document.matter)
    matter = document.matter
    target = _target(document)
    detail = {
        "document_id": document.pk,
        "filename": document.original_filename,
        "sha256": document.sha256,
        "via": via,
    }
    with transaction.atomic():
        audit_record(
            matter=matter, user=user, action=DocumentVerb.DELETED, target=target, detail=detail
        )
        document_delete(document=document)


def document_update_details(
    *,
    document: Document,
    user: User,
    title: str,
    kind: str,
    effective_date: date | None,
    amends: Document | None,
) -> bool:
    """Correct what indexing guessed (title, kind, date) or say which document this one amends.

    Indexing no longer overwrites the title and kind once a person has set them. A change of
    ``amends`` re-indexes the document, since its references resolve into the amended one.
    Returns whether the document was queued again."""
    require_open(document.matter)
    if amends is not None and (amends.pk == document.pk or amends.matter_id != document.matter_id):
        raise ValueError("A document can only amend another document of the same matter.")
    relink = amends != document.amends
    changed = {
        "title": title.strip()[:300] or document.title,
        "kind": kind,
        "effective_date": effective_date,
        "amends": amends,
        "guess_metadata": False,
    }
    with transaction.atomic():
        for name, value in changed.items():
            setattr(document, name, value)
        document.save(update_fields=[*changed, "updated_at"])
        if relink and document.status != Document.Status.INDEXING:
            # Raises QueueUnavailable (the details are saved; the document failed, retryable).
            document_reindex(document=document, force=True)
            audit_record(
                matter=document.matter,
                user=user,
                action=DocumentVerb.REINDEXED,
                target=_target(document),
                detail={"reason": "amends changed", "amends": amends.key if amends else None},
            )
    return relink


_KIND_OF_CHANGE = (
    ("schedule", Document.Kind.SCHEDULE),
    ("attachment", Document.Kind.SCHEDULE),
    ("side letter", Document.Kind.SIDE_LETTER),
)


def document_link_review(
    *, document: Document, user: User, accept: bool, via: str = "page"
) -> Document | None:
    """Accept the amendment link legalnav proposed for ``document`` (it then amends the
    proposed document: the "as amended" view and the grid use it, and the document is
    re-indexed so that its references resolve there) or reject it (it is not proposed again).
    Audited. Returns the amended document on acceptance; raises ``ValueError`` when nothing is
    proposed or the proposed document has gone."""
    require_open(document.matter)
    proposal = dict(document.link_proposal or {})
    if proposal.get("state") != "proposed" or not proposal.get("target"):
        raise ValueError("No amendment link is proposed for this document.")
    target = Document.objects.filter(pk=proposal["target"], matter=document.matter).first()
    if accept and target is None:
        raise ValueError("The proposed document is no longer in this matter.")
    proposal["state"] = "accepted" if accept else "rejected"
    with transaction.atomic():
        Document.objects.filter(pk=document.pk).update(link_proposal=proposal)
        document.link_proposal = proposal
        audit_action(
            document.matter,
            user,
            DocumentVerb.LINK_REVIEWED,
            _target(document),
            via,
            document_id=document.pk,
            amends=target.key if target else proposal.get("target"),
            accepted=accept,
            words=proposal.get("words", "")[:300],
        )
        if accept:
            assert target is not None
            kind = document.kind
            if document.guess_metadata and kind == Document.Kind.AGREEMENT:
                # What it says it is: "Amendment No. 2 to …", "Schedule to …", "Side letter to …".
                what = str((proposal.get("reference") or {}).get("what", "amendment"))
                kind = next(
                    (k for word, k in _KIND_OF_CHANGE if what.startswith(word)),
                    Document.Kind.AMENDMENT,
                )
            document_update_details(
                document=document,
                user=user,
                title=document.title,
                kind=kind,
                effective_date=document.effective_date,
                amends=target,
            )
    return target if accept else None
