"""Writes for documents: adding a file to a matter, indexing it, writing its navindex files.

Indexing follows the pattern of paperless-ngx's ``index_document`` and Zulip's embed worker:
claim the row with a conditional update, do the slow work (reading, extracting, parsing) outside
any transaction, then write every node, reference and term in one short transaction after
re-checking that the file has not changed meanwhile. A failure at any step leaves the previous
nodes in place (or none), records the reason on the document and can be retried.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Substr
from django.utils import timezone

from legalnav.core import jobs
from legalnav.core.lru import LruCache
from legalnav.documents import navindex, signals
from legalnav.documents.jobs import DOCUMENT as DOCUMENT_JOB
from legalnav.documents.llm_enrich import document_llm_enrich
from legalnav.documents.models import (
    NODE_FLAG_COLUMNS,
    PARSER_VERSION,
    CrossReference,
    DefinedTerm,
    Document,
    DocumentCopy,
    Node,
    document_upload_to,
)
from legalnav.documents.parsing import ParsedDocument, parse_document
from legalnav.documents.parsing.amends import (
    HEAD_CHARS,
    Candidate,
    Reference,
    propose,
    read_reference,
)
from legalnav.documents.parsing.amends import score as link_score
from legalnav.documents.parsing.enrich import RefIndex
from legalnav.documents.parsing.extract import (
    SUPPORTED_EXTENSIONS,
    ExtractionError,
    ExtractLimits,
    OcrOptions,
    extract_text,
)
from legalnav.documents.parsing.fingerprint import sketch
from legalnav.documents.parsing.structure import ParsedNode
from legalnav.documents.selectors import node_tree
from legalnav.matters.models import Matter

logger = logging.getLogger(__name__)


class DocumentRejected(ValueError):
    """A file that cannot become a document at all (empty, too large, unsupported type)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def extract_limits() -> ExtractLimits:
    """What one file may cost to parse, from settings (see ``ExtractLimits``)."""
    return ExtractLimits(
        expanded_bytes=settings.LEGALNAV_MAX_EXPANDED_BYTES,
        zip_parts=settings.LEGALNAV_MAX_ZIP_PARTS,
        zip_ratio=settings.LEGALNAV_MAX_ZIP_RATIO,
        pdf_pages=settings.LEGALNAV_MAX_PDF_PAGES,
    )


def ocr_options() -> OcrOptions:
    """How OCR may run, from settings: inside the indexing job's time limit, with a minute to
    spare for the clause tree and the vectors."""
    return OcrOptions(
        enabled=settings.LEGALNAV_OCR,
        language=settings.LEGALNAV_OCR_LANGUAGE,
        timeout_s=max(
            5, min(settings.LEGALNAV_OCR_TIMEOUT, settings.TASK_SOFT_TIME_LIMIT_INDEX - 60)
        ),
        memory_bytes=settings.LEGALNAV_OCR_MEMORY_MB * 1024 * 1024,
        max_pixels=settings.LEGALNAV_OCR_MAX_MEGAPIXELS * 1_000_000,
        max_pages=settings.LEGALNAV_OCR_MAX_PAGES,
        jobs=settings.LEGALNAV_OCR_JOBS,
        confidence_floor=float(settings.LEGALNAV_OCR_CONFIDENCE_FLOOR),
    )


def _human(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n / 1024:.0f} KB"


def document_add(
    *,
    matter: Matter,
    filename: str,
    data: bytes,
    title: str = "",
    kind: str = "",
    amends: Document | None = None,
    effective_date: date | None = None,
    enqueue: bool = True,
    folder: str = "",
) -> tuple[Document, bool]:
    """Store a file as a document of the matter and queue it for indexing.

    Returns (document, created). The same bytes added twice to a matter give the existing
    document back, so a repeated upload neither duplicates nor re-indexes anything; when it
    came from another folder or under another name it is recorded as a copy of that document.
    ``folder``: where the file sat in the upload (text only, never a path on disk).
    """
    name = os.path.basename(filename) or "document"
    ext = os.path.splitext(name)[1].lower()
    if ext not in SUPPORTED_EXTENSIONS:
        raise DocumentRejected(
            "unknown_type",
            f"“{name}” is not a supported file type; legalnav reads "
            f"{', '.join(sorted(SUPPORTED_EXTENSIONS))}.",
        )
    if not data.strip():
        raise DocumentRejected("empty", f"“{name}” is empty.")
    limit = settings.LEGALNAV_MAX_UPLOAD_BYTES
    if len(data) > limit:
        raise DocumentRejected(
            "too_large", f"“{name}” is {_human(len(data))}, over the {_human(limit)} limit."
        )
    digest = hashlib.sha256(data).hexdigest()
    existing = Document.objects.filter(matter=matter, sha256=digest).first()
    if existing is not None:
        if (existing.folder, existing.original_filename) != (folder[:500], name[:300]):
            DocumentCopy.objects.get_or_create(
                document=existing, folder=folder[:500], filename=name[:300]
            )
        return existing, False
    doc = Document(
        matter=matter,
        title=(title or os.path.splitext(name)[0])[:300],
        kind=kind or Document.Kind.AGREEMENT,
        amends=amends,
        effective_date=effective_date,
        original_filename=name[:300],
        folder=folder[:500],
        sha256=digest,
        size_bytes=len(data),
        status=Document.Status.QUEUED,
        guess_metadata=not (title and kind),
    )
    doc.source_file.save(name, ContentFile(data), save=False)
    doc.save()
    if enqueue:
        document_enqueue_index(document=doc)
    return doc, True


def document_enqueue_index(*, document: Document) -> None:
    """Queue indexing once the surrounding transaction commits (so the worker sees the row).
    Raises ``QueueUnavailable`` (the row then failed, retryable) when the broker is down."""
    jobs.enqueue_on_commit("document", document.pk)


def document_reindex(*, document: Document, force: bool = False) -> bool:
    """Queue a document again: a retry after a failure, a cancelled or stalled run, or a forced
    rebuild of an indexed one. False when a worker is indexing it right now."""
    fields: dict[str, object] = {"progress": 0, "progress_note": ""}
    if force:
        fields["indexed_sha256"] = ""
    requeued = bool(
        Document.objects.filter(pk=document.pk)
        .filter(status=Document.Status.INDEXED)
        .update(status=Document.Status.QUEUED, attempts=0, updated_at=timezone.now(), **fields)
    )
    if requeued:
        jobs.enqueue_on_commit("document", document.pk)
        return True
    return jobs.job_retry(DOCUMENT, document.pk, **fields)


def document_cancel(*, document: Document, by: str = "") -> bool:
    """Stop a queued or running indexing job. A document that was indexed before keeps its
    clauses from that run and goes back to "indexed"; otherwise it ends "cancelled" (Retry)."""
    if not jobs.job_cancel(DOCUMENT, document.pk, by=by, progress=0, progress_note=""):
        return False
    # The last committed run's clauses are intact (a run writes them in one transaction).
    restored = (
        Document.objects.filter(pk=document.pk, status=Document.Status.CANCELLED)
        .exclude(indexed_at=None)
        .filter(node_count__gt=0)
        .update(
            status=Document.Status.INDEXED,
            indexed_sha256=F("sha256"),
            error_message="Re-indexing was cancelled; the clauses of the last completed run are kept.",
        )
    )
    if restored:
        logger.info("document %s: re-indexing cancelled, previous clauses kept", document.pk)
        # The run may have been stopped after storing its clauses but before writing their
        # navindex files: write them from the clauses that stand.
        try:
            _write_navindex_files(Document.objects.get(pk=document.pk))
        except OSError:
            logger.exception("navindex files of document %s could not be written", document.pk)
    return True


@dataclass(frozen=True)
class IndexOutcome:
    status: str  # "indexed" | "unchanged" | "failed" | "busy" | "gone" | "cancelled"
    nodes: int = 0
    message: str = ""


DOCUMENT = DOCUMENT_JOB


def document_index(*, document_id: int, owner: str | None = None) -> IndexOutcome:
    """Index one document now, in this process (commands, tests). A no-op when its file and the
    parser are unchanged; a failed or cancelled document is put back first (a retry)."""
    doc = Document.objects.filter(pk=document_id).first()
    if doc is None:
        return IndexOutcome("gone")
    if doc.is_current:
        return IndexOutcome("unchanged", nodes=doc.node_count)
    # Indexed from an older file or parser: rebuild. Failed or cancelled: try again.
    Document.objects.filter(pk=document_id, status=Document.Status.INDEXED).update(
        status=Document.Status.QUEUED, attempts=0
    )
    jobs.job_reset(DOCUMENT, document_id)
    document_index_job(document_id, owner or jobs.new_owner())
    doc = Document.objects.filter(pk=document_id).first()
    if doc is None:
        return IndexOutcome("gone")
    status = {"indexing": "busy", "queued": "busy"}.get(doc.status, doc.status)
    return IndexOutcome(status, nodes=doc.node_count, message=doc.error_message)


def document_index_job(
    document_id: int, owner: str, reraise: tuple[type[BaseException], ...] = ()
) -> str:
    """The job: claim the document for ``owner``, index it, end it indexed or failed.

    Safe to run twice: an unchanged document is left alone, one held by a live worker too.
    Every write after the claim is conditional on still holding it, so a cancelled run
    changes nothing more."""
    doc = Document.objects.filter(pk=document_id).first()
    if doc is None:
        return "gone"
    if doc.is_current:
        return "unchanged"
    outcome = jobs.run_claimed(
        DOCUMENT,
        document_id,
        owner=owner,
        work=lambda lease: _index_claimed(doc, lease),
        reraise=reraise,
    )
    if isinstance(outcome, jobs.Refusal):
        return outcome.reason
    status = Document.objects.filter(pk=document_id).values_list("status", flat=True).first()
    return status or "gone"


def _save_parsed(
    doc: Document,
    lease: jobs.Lease,
    parsed: Any,  # noqa: ANN401 - parsing.ParsedDocument
    extracted: Any,  # noqa: ANN401 - extract.Extracted
    digest: str,
    fail: Callable[[str, str], None],
) -> bool:
    """Replace the document's clauses with ``parsed`` and its text, in one transaction, only
    while this job holds it and the file is the one that was read; False when it stops here."""
    base_index = _base_ref_index(doc)
    with transaction.atomic():
        locked = Document.objects.select_for_update().filter(pk=doc.pk).first()
        if locked is None:
            return False
        if locked.status != Document.Status.INDEXING or locked.lease_owner != lease.owner:
            raise jobs.JobLost(f"document {doc.pk} was cancelled or taken over")
        if locked.sha256 != digest:
            fail("changed", "The file changed while it was being indexed; Retry reads it again.")
            return False
        count = _store(locked, parsed, extracted.text, base_index)
        # The document becomes "indexed" only once its navindex files exist (below).
        update = {
            "progress": 90,
            "progress_note": "Writing the navindex files",
            "error_code": "",
            "error_message": "",
            "indexed_sha256": digest,
            "parser_version": PARSER_VERSION,
            "vector_collection": "",  # the new text's vectors are stored below
            "text": extracted.text,
            "tags": parsed.tags,
            "node_count": count,
            "media_type": extracted.media_type,
            "extraction": {
                "warnings": list(extracted.warnings),
                "sketch": sketch(extracted.text),
                **({"ocr": extracted.ocr.to_json()} if extracted.ocr else {}),
            },
            "indexed_at": timezone.now(),
            "updated_at": timezone.now(),
        }
        if locked.guess_metadata:
            if parsed.title:
                update["title"] = _display_title(parsed.title)
            if locked.kind == Document.Kind.AGREEMENT:  # the default: a kind given is kept
                update["kind"] = parsed.kind
        if locked.effective_date is None and parsed.effective_date is not None:
            update["effective_date"] = parsed.effective_date
        Document.objects.filter(pk=doc.pk).update(**update)
    return True


def _index_claimed(doc: Document, lease: jobs.Lease) -> None:
    def progress(pct: int, note: str) -> None:
        lease.check()
        lease.update(progress=pct, progress_note=note[:200])

    def fail(code: str, message: str) -> None:
        lease.fail(message, code, progress=0, progress_note="")

    progress(5, "Reading the file")
    try:
        with doc.source_file.open("rb") as fh:
            data = fh.read()
    except (OSError, ValueError) as exc:
        return fail("missing_file", f"The stored file could not be read ({exc}).")
    digest = hashlib.sha256(data).hexdigest()

    try:
        extracted = extract_text(
            data,
            doc.original_filename,
            max_bytes=settings.LEGALNAV_MAX_UPLOAD_BYTES,
            limits=extract_limits(),
            ocr=ocr_options(),
        )
    except ExtractionError as exc:
        return fail(exc.code, exc.message)
    progress(30, "Finding the clause structure")

    try:
        parsed = parse_document(extracted.text)
    except jobs.PASS_THROUGH:
        raise
    except Exception as exc:  # a parser bug: say so, keep the traceback in the log
        logger.exception("parsing document %s failed", doc.pk)
        return fail("parse_error", f"The document could not be parsed ({exc.__class__.__name__}).")
    if not parsed.nodes:
        return fail("no_text", "No text was found in the document.")
    progress(70, f"Saving {len(parsed.nodes)} clauses")

    if not _save_parsed(doc, lease, parsed, extracted, digest, fail):
        return None

    doc.refresh_from_db()
    lease.check()
    # Judgments only: research builds the case card (documents/signals.py); never fails
    # indexing on a reading error.
    signals.document_text_saved.send(sender=Document, document=doc)
    lease.check()
    document_llm_enrich(document=doc)  # optional Claude summaries; never fails indexing
    lease.check()
    try:
        _write_navindex_files(doc)
    except OSError as exc:
        return fail("navindex_write", f"The navindex files could not be written ({exc}).")
    # Retrieval embeds the passages and stores their vectors here, inside this job (see
    # documents/signals.py); an exception from it fails the document like any other step.
    signals.document_indexed.send(sender=Document, document=doc, progress=progress)
    if not lease.finish(progress=100, progress_note=""):
        return None
    # Amendments of this document may now resolve references into it.
    for amendment in Document.objects.filter(amends=doc, status=Document.Status.INDEXED):
        document_resolve_base_references(document=amendment)
    document_propose_links(document=doc)  # never fails indexing (see there)
    return None


def _candidate(doc: Document, text: str) -> Candidate:
    # A title that is only the file's name says nothing of what the document names itself
    # ("… SERVICES AGREEMENT_POWEROF" is a power of attorney, not the Services Agreement).
    title = "" if doc.title == os.path.splitext(doc.original_filename)[0] else doc.title
    return Candidate.of(str(doc.pk), text, title, doc.effective_date)


# Each indexed document read as a possible amended agreement (its head's words, dates and
# title), kept per process under what it was read from: reading one costs milliseconds of
# regular expressions, and a data room being indexed asks for all of them again whenever a new
# document names an instrument (2,000 documents took hours, read afresh each time).
# How many documents' candidates a process keeps at most (about 3 KB each).
CANDIDATES_KEPT = 20_000
_CANDIDATES: LruCache[tuple[object, ...], Candidate] = LruCache(CANDIDATES_KEPT)
_CANDIDATES_LOCK = threading.Lock()
# How many heads one query reads when candidates are missing.
_HEADS_PER_QUERY = 500


def _candidate_key(doc: Document) -> tuple[object, ...]:
    """What a document's candidate is read from: its text changes only with ``updated_at``."""
    return (doc.pk, doc.updated_at, doc.title, doc.original_filename, doc.effective_date)


def _other_candidates(matter_id: int, exclude: int) -> list[Candidate]:
    """The matter's other indexed documents as candidates, in id order: each read from its head
    once per process, and the heads of only those not read before fetched."""
    docs = list(
        Document.objects.filter(matter_id=matter_id, status=Document.Status.INDEXED)
        .exclude(pk=exclude)
        .only("id", "title", "original_filename", "effective_date", "updated_at")
        .order_by("id")
    )
    with _CANDIDATES_LOCK:
        known = {d.pk: _CANDIDATES.get(_candidate_key(d)) for d in docs}
    missing = [pk for pk, c in known.items() if c is None]
    heads: dict[int, str] = {}
    for i in range(0, len(missing), _HEADS_PER_QUERY):
        heads.update(
            Document.objects.filter(pk__in=missing[i : i + _HEADS_PER_QUERY])
            .annotate(head=Substr("text", 1, HEAD_CHARS))
            .values_list("pk", "head")
        )
    return [known[d.pk] or _kept_candidate(d, heads.get(d.pk) or "") for d in docs]


def _kept_candidate(doc: Document, head: str) -> Candidate:
    """``_candidate``, kept for the next time (``_CANDIDATES``)."""
    key = _candidate_key(doc)
    with _CANDIDATES_LOCK:
        found = _CANDIDATES.get(key)
    if found is None:
        found = _candidate(doc, head)
        with _CANDIDATES_LOCK:
            _CANDIDATES.get_or_make(key, lambda: found)
    return found


def _propose_for(doc: Document, text: str, others: Callable[[], list[Candidate]]) -> None:
    """Read what ``doc`` amends and keep the proposal, unless a person has decided already.
    ``others`` gives the candidates (only asked for when ``doc`` names something)."""
    reference = read_reference(text)
    if reference is None:
        Document.objects.filter(pk=doc.pk).exclude(link_proposal={}).update(link_proposal={})
        return
    proposal = propose(text, others())
    record = {
        "reference": {
            "what": reference.what,
            "title": reference.title,
            "date": reference.date.isoformat() if reference.date else None,
            "number": reference.number,
            "words": reference.words,
        },
        "target": int(proposal.key) if proposal else None,
        "words": proposal.words if proposal else reference.words,
        "reasons": list(proposal.reasons) if proposal else [],
        "score": proposal.score if proposal else None,
        "state": "proposed" if proposal else "none",
    }
    Document.objects.filter(pk=doc.pk).update(link_proposal=record)


def document_propose_links(*, document: Document) -> None:
    """After ``document`` is indexed: propose what it amends (among the matter's indexed
    documents), and look again at the documents that name an instrument not found so far, in
    case this is it. A link a person accepted or rejected is left as it is. The other
    documents' heads are read only when a proposal is to be made (most documents name no other
    instrument, and most waiting references do not fit the new document), so indexing a data
    room does not read every head once per document. An error here is logged and never fails
    indexing."""
    try:
        doc = Document.objects.get(pk=document.pk)
        heads: list[list[Candidate]] = []

        def others() -> list[Candidate]:
            if not heads:
                heads.append(_other_candidates(doc.matter_id, doc.pk))
            return heads[0]

        if doc.amends_id is None and doc.link_proposal.get("state") not in ("accepted", "rejected"):
            _propose_for(doc, doc.text, others)
        fresh = _kept_candidate(doc, doc.text[:HEAD_CHARS])
        waiting = (
            Document.objects.filter(
                matter_id=doc.matter_id,
                status=Document.Status.INDEXED,
                amends__isnull=True,
                link_proposal__state__in=["none", "proposed"],
            )
            .exclude(pk=doc.pk)
            .only("pk", "link_proposal")
        )
        for other in waiting:
            ref = other.link_proposal.get("reference") or {}
            reference = Reference(
                ref.get("what", ""),
                ref.get("title", ""),
                date.fromisoformat(ref["date"]) if ref.get("date") else None,
                ref.get("number", ""),
                ref.get("words", ""),
            )
            if link_score(reference, fresh)[0] <= 0:
                continue  # the new document is not the instrument it names
            text = Document.objects.filter(pk=other.pk).values_list("text", flat=True).first()
            _propose_for(
                other,
                text or "",
                lambda other=other: [c for c in others() if c.key != str(other.pk)] + [fresh],
            )
    except Exception:  # noqa: BLE001 - a proposal is a convenience; indexing has succeeded
        logger.exception("proposing amendment links for document %s failed", document.pk)


_SMALL = {"of", "and", "the", "to", "for", "in", "on", "or", "a", "an", "by", "with", "at", "as"}


def _display_title(title: str) -> str:
    """ "SECOND AMENDMENT TO CREDIT AGREEMENT" -> "Second Amendment to Credit Agreement"."""
    if not title.isupper():
        return title[:300]
    words = title.lower().split()
    out = [w if (i and w in _SMALL) else w[:1].upper() + w[1:] for i, w in enumerate(words)]
    return " ".join(out)[:300]


def _db_ref_index(document: Document) -> tuple[RefIndex, list[int]]:
    """A RefIndex over a stored document's nodes, and the database id of each index slot."""
    rows = list(
        Node.objects.filter(document=document)
        .order_by("order")
        .values_list("id", "parent_id", "kind", "label", "scope")
    )
    pos = {row[0]: i for i, row in enumerate(rows)}
    nodes: list[ParsedNode] = []
    for _id, _parent, kind, label, scope in rows:
        nodes.append(ParsedNode(kind, "", label, "", 0, 0, 0, 0, 0, "", scope=scope))
    for i, row in enumerate(rows):
        if row[1] is not None and row[1] in pos:
            nodes[i].parent = pos[row[1]]
            nodes[pos[row[1]]].children.append(i)
    return RefIndex(nodes), [row[0] for row in rows]


def _base_ref_index(doc: Document) -> tuple[RefIndex, list[int]] | None:
    base = doc.amends
    if base is None or base.status != Document.Status.INDEXED:
        return None
    return _db_ref_index(base)


def _store(
    doc: Document,
    parsed: ParsedDocument,
    text: str,
    base_index: tuple[RefIndex, list[int]] | None,
) -> int:
    """Replace the document's nodes, cross-references and defined terms; returns the nodes."""
    Node.objects.filter(document=doc).delete()
    ids = _store_nodes(doc, parsed)
    _store_refs(parsed, ids, base_index)
    _store_terms(doc, parsed, ids)
    return len(ids)


def _store_nodes(doc: Document, parsed: ParsedDocument) -> list[int]:
    """The nodes with their parents; returns their ids in reading order."""
    rows = [
        Node(
            document=doc,
            node_id=nd.node_id[:200],
            order=order,
            level=nd.level,
            kind=nd.kind,
            ref=nd.ref[:120],
            label=nd.label[:120],
            scope=nd.scope[:60],
            heading=nd.heading[:300],
            text=nd.text,
            start=nd.start,
            end=nd.end,
            subtree_end=max(nd.subtree_end, nd.end),
            **{column: bool(nd.flags.get(name)) for name, column in navindex.FLAG_FIELDS},
            text_length=len(nd.text),
            summary=nd.summary,
            keywords=nd.keywords,
        )
        for order, nd in enumerate(parsed.nodes)
    ]
    created = Node.objects.bulk_create(rows, batch_size=500)
    ids = [n.pk for n in created]
    if any(i is None for i in ids):  # a backend that does not return ids from bulk inserts
        lookup = dict(Node.objects.filter(document=doc).values_list("order", "id"))
        ids = [lookup[i] for i in range(len(rows))]
    for row, nd, pk in zip(created, parsed.nodes, ids, strict=True):
        row.pk = pk
        row.parent_id = ids[nd.parent] if nd.parent is not None else None
    Node.objects.bulk_update([r for r in created if r.parent_id], ["parent"], batch_size=500)
    return ids


def _store_refs(
    parsed: ParsedDocument, ids: list[int], base_index: tuple[RefIndex, list[int]] | None
) -> None:
    """Cross-references, resolved in the document or (an amendment's) in the one it amends."""
    refs = []
    for ref in parsed.refs:
        target_id = ids[ref.target] if ref.target is not None else None
        reason = ""
        if target_id is None:
            if base_index is not None and not ref.external:
                found = base_index[0].resolve(ref.kind, ref.target_ref, "", None)
                if found is not None:
                    target_id = base_index[1][found]
            if target_id is None:
                reason = "external" if (ref.external or ref.qualifier) else "missing"
        refs.append(
            CrossReference(
                source_id=ids[ref.source],
                target_id=target_id,
                kind=ref.kind,
                text=ref.text[:300],
                target_ref=ref.target_ref[:120],
                qualifier=ref.qualifier[:200],
                start=ref.start,
                end=ref.end,
                unresolved_reason=reason,
            )
        )
    CrossReference.objects.bulk_create(refs, batch_size=1000)


def _store_terms(doc: Document, parsed: ParsedDocument, ids: list[int]) -> None:
    """Defined terms with the node defining each and the nodes using it."""
    terms = DefinedTerm.objects.bulk_create(
        [
            DefinedTerm(document=doc, term=t.term[:200], defining_node_id=ids[t.node])
            for t in parsed.terms
        ],
        batch_size=500,
    )
    term_ids = [t.pk for t in terms]
    if any(i is None for i in term_ids):
        lookup = dict(DefinedTerm.objects.filter(document=doc).values_list("term", "id"))
        term_ids = [lookup[t.term[:200]] for t in parsed.terms]
    through = DefinedTerm.used_in.through
    uses = [
        through(definedterm_id=tid, node_id=ids[n])
        for tid, t in zip(term_ids, parsed.terms, strict=True)
        for n in sorted(set(t.uses))
    ]
    through.objects.bulk_create(uses, batch_size=2000)


def document_resolve_base_references(*, document: Document) -> int:
    """Resolve an amendment's references into the document it amends; returns how many."""
    base_index = _base_ref_index(document)
    if base_index is None:
        return 0
    index, ids = base_index
    resolved = 0
    with transaction.atomic():
        pending = CrossReference.objects.select_for_update().filter(
            source__document=document, target__isnull=True
        )
        for ref in pending:
            if ref.unresolved_reason == "external" and not ref.qualifier:
                continue  # a statute
            found = index.resolve(ref.kind, ref.target_ref, "", None)
            if found is not None:
                ref.target_id = ids[found]
                ref.unresolved_reason = ""
                ref.save(update_fields=["target", "unresolved_reason"])
                resolved += 1
    if resolved:
        document_write_navindex(document=document)
    return resolved


# --- navindex files -------------------------------------------------------------------------


def document_navindex(*, document: Document) -> navindex.IndexDocument:
    """The navindex of a stored document, built from its nodes and resolved references."""
    xrefs: dict[int, list[str]] = {}
    for source_id, target_node_id, target_doc_id in (
        CrossReference.objects.filter(source__document=document, target__isnull=False)
        .order_by("source_id", "start")
        .values_list("source_id", "target__node_id", "target__document_id")
    ):
        ident = (
            target_node_id if target_doc_id == document.pk else f"D{target_doc_id}:{target_node_id}"
        )
        lst = xrefs.setdefault(source_id, [])
        if ident not in lst:
            lst.append(ident)

    def branch(n: Node) -> navindex.IndexNode:
        return navindex.IndexNode(
            node_id=n.node_id,
            ref=n.ref,
            title=n.heading,
            summary=n.summary,
            keywords=list(n.keywords or []),
            text=n.text,
            flags={name: getattr(n, attr) for name, attr in navindex.FLAG_FIELDS},
            cross_refs=xrefs.get(n.pk, []),
        )

    roots = node_tree(
        document=document,
        make=branch,
        fields=("ref", "heading", "summary", "keywords", "text", *NODE_FLAG_COLUMNS),
    )
    tags = document.tags or {}
    return navindex.IndexDocument(
        key=document.key,
        title=document.title,
        kind=document.kind,
        effective_date=document.effective_date.isoformat() if document.effective_date else None,
        amends=document.amends.key if document.amends_id else None,
        jurisdiction=str(tags.get("jurisdiction") or ""),
        topics=list(tags.get("topics") or []),
        roots=roots,
    )


def navindex_dir(matter_id: int) -> Path:
    return Path(settings.NAVINDEX_DIR) / f"matter-{matter_id}"


def document_write_navindex(*, document: Document, out_dir: Path | None = None) -> list[Path]:
    """Write <doc>.index.json and <doc>.full.json (readable) and their .min.json forms."""
    if document.status != Document.Status.INDEXED:
        return []
    return _write_navindex_files(document, out_dir)


def _write_navindex_files(document: Document, out_dir: Path | None = None) -> list[Path]:
    built = document_navindex(document=document)
    index = navindex.build_index(built)
    full = navindex.build_full(built)
    folder = out_dir or navindex_dir(document.matter_id)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in (
        (f"{document.key}.index.json", navindex.dumps_readable(index)),
        (f"{document.key}.full.json", navindex.dumps_readable(full)),
        (f"{document.key}.index.min.json", navindex.dumps_optimised(index)),
        (f"{document.key}.full.min.json", navindex.dumps_optimised(full)),
    ):
        path = folder / name
        tmp = path.with_suffix(".tmp")
        tmp.write_text(content, encoding="utf-8")
        os.replace(tmp, path)  # readers never see a half-written file
        written.append(path)
    return written


def document_delete(*, document: Document, strict: bool = False) -> None:
    """Delete a document and every trace of it: its clause rows (with the row), its navindex
    files, its source file (unless another document shares it), and, through
    ``signals.document_deleting``, its vectors and cached indexes. ``strict`` (a purge) makes a
    store that cannot remove its vectors an error instead of a logged warning."""
    folder = navindex_dir(document.matter_id)
    key = document.key
    storage_name = document.source_file.name
    storage = document.source_file.storage
    # Its vectors and cached indexes go first, while its text can still be read.
    signals.document_deleting.send(sender=Document, document=document, strict=strict)
    document.delete()
    for suffix in (".index.json", ".full.json", ".index.min.json", ".full.min.json"):
        (folder / f"{key}{suffix}").unlink(missing_ok=True)
    if storage_name and not Document.objects.filter(source_file=storage_name).exists():
        storage.delete(storage_name)


def matter_documents_purge(sender: object = None, *, matter: Matter) -> dict[str, int]:
    """``matters.signals.matter_purging``: delete every document of the matter as
    ``document_delete`` does (strictly), then its navindex folder and whatever is left in its
    upload folder that no other matter's document uses. Idempotent."""
    deleted = 0
    for pk in list(Document.objects.filter(matter=matter).values_list("pk", flat=True)):
        document = Document.objects.filter(pk=pk).first()
        if document is not None:
            document_delete(document=document, strict=True)
            deleted += 1
    files = 0
    folder = navindex_dir(matter.pk)
    if folder.exists():
        files += sum(1 for p in folder.rglob("*") if p.is_file())
        shutil.rmtree(folder)
    uploads = Path(settings.MEDIA_ROOT) / document_upload_to(Document(matter_id=matter.pk), "")
    if uploads.is_dir():
        root = Path(settings.MEDIA_ROOT)
        for path in sorted(uploads.rglob("*"), reverse=True):
            name = path.relative_to(root).as_posix()
            if path.is_file() and not Document.objects.filter(source_file=name).exists():
                path.unlink()  # an upload of this matter's no document kept (a failed one)
                files += 1
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
        if not any(uploads.iterdir()):
            uploads.rmdir()
    return {"documents": deleted, "files_left_behind_removed": files}
