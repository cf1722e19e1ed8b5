"""Reads for documents. Every door to a document goes through ``document_for``, which asks
``matter_for`` (404 for a non-member, 403 for a role too weak for the action)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from django.core.cache import cache
from django.db.models import Count, F, Max, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import OrderBy
from django.db.models.functions import Coalesce, Substr
from django.http import Http404

from legalnav.core import jobs
from legalnav.core.lookup import aggregate_by
from legalnav.documents.models import Document, DocumentCopy, Node
from legalnav.documents.parsing.extract.archive import FOLDER_SEPARATOR
from legalnav.documents.parsing.fingerprint import likely_copies
from legalnav.matters.access import Action, matter_for, staff_sees_all
from legalnav.matters.models import AuditEvent, Matter, Membership

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

logger = logging.getLogger(__name__)


def document_for(
    *, user: User | AnonymousUser, document_id: int, action: Action = Action.VIEW
) -> Document:
    """The document if the user may take ``action`` in its matter (three queries). Its text is
    deferred: pages read node text, not the whole extracted text."""
    doc = (
        Document.objects.select_related("amends")
        .defer("text", "amends__text")
        .filter(pk=document_id)
        .first()
    )
    if doc is None:
        raise Http404("No such document.")
    doc.matter = matter_for(user=user, matter_id=doc.matter_id, action=action)
    return doc


def node_get(*, document: Document, node_id: str) -> Node:
    node = (
        Node.objects.filter(document=document, node_id=node_id)
        .only("id", "node_id", "ref", "heading", "text", "kind", "level", "document_id")
        .first()
    )
    if node is None:
        raise Http404("No such provision.")
    return node


# --- a document's clauses, in reading order and as a tree ---------------------------------------

# What every reader of the clauses needs: which node it is and where it hangs.
_PLACE_FIELDS = ("id", "parent_id", "node_id")


class Branch(Protocol):
    """What a tree is built of: anything with a list of children (the API's ``TreeNode``, the
    navindex's ``IndexNode``)."""

    children: list[Any]


B = TypeVar("B", bound=Branch)


def document_nodes(*, document: Document, fields: Iterable[str] = ()) -> list[Node]:
    """The document's nodes in reading order, in one query, loading only their id, parent and
    node id besides ``fields`` (reading any other field costs a query per node)."""
    return list(
        Node.objects.filter(document=document)
        .order_by("order")
        .only(*dict.fromkeys((*_PLACE_FIELDS, *fields)))
    )


def node_tree(
    *, document: Document, make: Callable[[Node], B], fields: Iterable[str] = ()
) -> list[B]:
    """The document's clause tree, in one query: ``make`` turns each node (with ``fields``
    loaded) into a branch with an empty ``children`` list, and the top-level branches come back,
    each with its children in reading order. A node whose parent does not come before it is
    placed at the top level, so every node appears exactly once."""
    branches: dict[int, B] = {}
    roots: list[B] = []
    for node in document_nodes(document=document, fields=fields):
        branch = make(node)
        branches[node.pk] = branch
        parent = branches.get(node.parent_id) if node.parent_id else None
        (parent.children if parent is not None else roots).append(branch)
    return roots


# --- the matters list ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MatterRow:
    """One line of the matters list."""

    matter: Matter
    role: str  # "owner", "editor", "viewer", or "admin" for staff (LEGALNAV_STAFF_SEE_ALL_MATTERS)
    documents: int
    indexed: int
    busy: int  # queued or indexing
    failed: int
    members: int
    last_activity: datetime | None

    @property
    def status(self) -> str:
        if self.failed:
            return "failed"
        if self.busy:
            return "indexing"
        return "ready" if self.documents else "empty"


def matter_rows(*, user: User | AnonymousUser) -> list[MatterRow]:
    """The matters the user may see with their counts, in a fixed number of queries (five,
    however many matters): the matters, then document, member, audit and role figures grouped
    by matter."""
    matters = list(Matter.objects.visible_to(user).order_by("name", "id"))
    ids = [m.pk for m in matters]
    if not ids:
        return []
    per_status: dict[int, dict[str, int]] = {}
    last_doc: dict[int, datetime] = {}
    for row in (
        Document.objects.filter(matter_id__in=ids)
        .order_by()
        .values("matter_id", "status")
        .annotate(n=Count("id"), last=Max("updated_at"))
    ):
        per_status.setdefault(row["matter_id"], {})[row["status"]] = row["n"]
        if row["last"] and (
            row["matter_id"] not in last_doc or row["last"] > last_doc[row["matter_id"]]
        ):
            last_doc[row["matter_id"]] = row["last"]
    last_event = aggregate_by(AuditEvent.objects.filter(matter_id__in=ids), "matter_id", Max("at"))
    members = aggregate_by(Membership.objects.filter(matter_id__in=ids), "matter_id", Count("id"))
    roles: dict[int, str] = {}
    user_id = getattr(user, "pk", None)
    if user_id is not None and getattr(user, "is_authenticated", False):
        roles = dict(
            Membership.objects.filter(matter_id__in=ids, user_id=user_id).values_list(
                "matter_id", "role"
            )
        )
    admin = staff_sees_all(user)
    rows = []
    for m in matters:
        counts = per_status.get(m.pk, {})
        times = [t for t in (m.updated_at, last_doc.get(m.pk), last_event.get(m.pk)) if t]
        rows.append(
            MatterRow(
                matter=m,
                role=roles.get(m.pk) or ("admin" if admin else ""),
                documents=sum(counts.values()),
                indexed=counts.get(Document.Status.INDEXED, 0),
                busy=counts.get(Document.Status.QUEUED, 0)
                + counts.get(Document.Status.INDEXING, 0),
                failed=counts.get(Document.Status.FAILED, 0),
                members=members.get(m.pk, 0),
                last_activity=max(times) if times else None,
            )
        )
    return rows


PAGE_SIZE = 50
# Likely copies listed on the matter page, most alike first.
COPIES_SHOWN = 50
# How long a matter's likely copies are kept; the key changes whenever an indexed document
# does (see ``matter_likely_copies``), so this only bounds how long dead keys linger.
COPIES_CACHE_SECONDS = 3600
# While documents are being indexed, the likely copies last found are shown for this long before
# they are found again (each poll of a data room being indexed would otherwise find them anew).
COPIES_WHILE_INDEXING_S = 30.0
_BUSY = (Document.Status.QUEUED, Document.Status.INDEXING)


def _listing_order() -> tuple[str | OrderBy, ...]:
    """The matter page's order: by folder, then date (undated last), then id."""
    return ("folder", F("effective_date").asc(nulls_last=True), "id")


@dataclass(frozen=True)
class MatterOverview:
    """What the matter page shows of a data room: counts, folders, the page of documents the
    filters pick, and likely copies."""

    total: int
    by_status: dict[str, int]
    by_kind: list[tuple[str, str, int]]  # (kind, label, count)
    folders: list[tuple[str, str, int, int]]  # (folder, its last part, depth, count)
    shown: list[Document]
    matching: int
    page: int
    pages: int
    filters: dict[str, str]
    copies: list[tuple[Document, Document, float]]

    @property
    def indexed(self) -> int:
        return self.by_status.get("indexed", 0)

    @property
    def waiting(self) -> int:
        return self.by_status.get("queued", 0) + self.by_status.get("indexing", 0)

    @property
    def failed(self) -> int:
        return self.by_status.get("failed", 0)

    @property
    def cancelled(self) -> int:
        return self.by_status.get("cancelled", 0)

    @property
    def done(self) -> int:
        return sum(self.by_status.get(s, 0) for s in ("indexed", "failed", "cancelled"))

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100


def _folder_rows(counts: dict[str, int]) -> list[tuple[str, str, int, int]]:
    """Every folder and each folder above it, with the documents at or below it, in tree order."""
    total: dict[str, int] = {}
    for folder, n in counts.items():
        if not folder:
            continue
        parts = folder.split(FOLDER_SEPARATOR)
        for depth in range(1, len(parts) + 1):
            key = FOLDER_SEPARATOR.join(parts[:depth])
            total[key] = total.get(key, 0) + n
    return [
        (f, f.split(FOLDER_SEPARATOR)[-1], f.count(FOLDER_SEPARATOR), total[f])
        for f in sorted(total, key=lambda f: f.split(FOLDER_SEPARATOR))
    ]


def _picked(
    documents: QuerySet[Document], *, folder: str, status: str, kind: str, words: str
) -> QuerySet[Document]:
    """The documents the matter page's filters pick, as one queryset for the database."""
    if folder:
        # At or below the folder, compared as Python compares strings: ``folder__startswith``
        # would be a LIKE, which SQLite matches without regard to case, and a plain prefix
        # would take "A / B2" for a folder below "A / B".
        below = folder + FOLDER_SEPARATOR
        documents = documents.alias(folder_head=Substr("folder", 1, len(below))).filter(
            Q(folder=folder) | Q(folder_head=below)
        )
    if status == "busy":
        documents = documents.filter(status__in=_BUSY)
    elif status:
        documents = documents.filter(status=status)
    if kind:
        documents = documents.filter(kind=kind)
    if words:
        documents = documents.filter(
            Q(title__icontains=words) | Q(original_filename__icontains=words)
        )
    return documents


def _shown(documents: QuerySet[Document], *, matter: Matter, start: int) -> list[Document]:
    """One page of ``documents`` in the page's order, loaded whole (text aside) with what they
    amend and how many copies of their file were uploaded, each with ``amended_by`` (the
    documents that amend it) and ``proposed_target`` (the document its proposed amendment link
    points at, while it amends none): two queries for the page and one or two for those."""
    # The page's ids first, then its rows: sorting the picked rows whole would read every one of
    # them to the end (on SQLite, past its text, to the JSON columns stored after it), where the
    # ids sort on the folder and date alone (an index holds them: documents.0009).
    ids = list(
        documents.order_by(*_listing_order()).values_list("pk", flat=True)[
            start : start + PAGE_SIZE
        ]
    )
    if not ids:
        return []
    copies = (
        DocumentCopy.objects.filter(document=OuterRef("pk"))
        .order_by()
        .values("document")
        .annotate(n=Count("id"))
        .values("n")
    )
    place = {pk: n for n, pk in enumerate(ids)}
    rows: list[Document] = sorted(
        Document.objects.filter(pk__in=ids)
        .order_by()
        .select_related("amends")
        .defer("text", "amends__text", "amends__extraction")
        .annotate(copy_count=Coalesce(Subquery(copies), 0)),
        key=lambda d: place[d.pk],
    )
    amended_by: dict[int, list[Document]] = {}
    for a in (
        Document.objects.filter(matter=matter, amends_id__in=ids)
        .only("id", "amends_id")
        .order_by(*_listing_order())
    ):
        amended_by.setdefault(a.amends_id or 0, []).append(a)
    proposed: dict[int, int] = {}
    for d in rows:
        proposal = d.link_proposal or {}
        target = proposal.get("target")
        if d.amends_id is None and proposal.get("state") == "proposed" and isinstance(target, int):
            proposed[d.pk] = target
    targets = (
        Document.objects.filter(matter=matter, pk__in=set(proposed.values()))
        .only("id", "title")
        .in_bulk()
        if proposed
        else {}
    )
    for d in rows:
        d.amended_by = amended_by.get(d.pk, [])  # type: ignore[attr-defined]
        d.proposed_target = targets.get(proposed.get(d.pk, 0))  # type: ignore[attr-defined]
    return rows


def matter_stale_candidates(*, matter: Matter) -> list[Document]:
    """The matter's indexing jobs that may have nobody working on them (``jobs.may_be_stale``:
    usually none), with only what ``jobs.is_stale`` and ``jobs.job_poll_check`` read of them:
    a data room being indexed has thousands of jobs open, and the page polls every 2 s."""
    return list(
        Document.objects.filter(matter=matter, status__in=_BUSY)
        .filter(jobs.may_be_stale(jobs.spec_for("document")))
        .order_by()
        .only("id", "status", "lease_expires_at", "updated_at")
    )


def matter_likely_copies(
    *, matter: Matter, indexed: int, newest: datetime | None, indexing: bool = False
) -> list[tuple[Document, Document, float]]:
    """The matter's indexed documents with (nearly) the same text, most alike first (at most
    ``COPIES_SHOWN`` pairs). ``indexed`` (how many are indexed) and ``newest`` (their latest
    ``updated_at``) name the state they were found in: finding them reads every indexed
    document's sketch, so the pairs are kept in the cache under that state, and a poll of an
    unchanged data room reads only the documents named in them (their titles fresh). A document
    indexed, re-indexed or removed changes one or the other, and with it the key.

    While documents are still ``indexing``, the key changes with nearly every poll of a large
    data room (0.97 s to find them again at 10,000 documents): the pairs last found are shown
    for up to ``COPIES_WHILE_INDEXING_S``. Once nothing is indexing they are exact again."""
    if indexed < 2:
        return []
    stamp = newest.timestamp() if newest is not None else 0
    key = f"matter-likely-copies:1:{matter.pk}:{indexed}:{stamp}"
    latest_key = f"matter-likely-copies:1:{matter.pk}:latest"
    pairs: list[tuple[int, int, float]] | None = _cache_get(key)
    if pairs is None and indexing:
        found_at, last = _cache_get(latest_key) or (0.0, None)
        if time.time() - found_at < COPIES_WHILE_INDEXING_S:
            pairs = last
    if pairs is None:
        sketches = [
            (pk, sk)
            for pk, sk in Document.objects.filter(matter=matter, status=Document.Status.INDEXED)
            .order_by(*_listing_order())
            .values_list("pk", "extraction__sketch")
            if sk
        ]
        pairs = likely_copies(sketches)[:COPIES_SHOWN]
        _cache_set(key, pairs)
        _cache_set(latest_key, (time.time(), pairs))
    if not pairs:
        return []
    named = {pk for a, b, _ in pairs for pk in (a, b)}
    docs = Document.objects.filter(matter=matter, pk__in=named).only("id", "title").in_bulk()
    return [(docs[a], docs[b], sim) for a, b, sim in pairs if a in docs and b in docs]


def _cache_get(key: str) -> Any:
    # A memo, not a record: if the cache cannot be read or written (Redis restarting, SQLite
    # busy with a worker's write), the copies are found again rather than the page failing.
    try:
        return cache.get(key)
    except Exception:
        logger.warning("the cache could not be read (%s)", key, exc_info=True)
        return None


def _cache_set(key: str, value: object) -> None:
    try:
        cache.set(key, value, timeout=COPIES_CACHE_SECONDS)
    except Exception:
        logger.warning("the cache could not be written (%s)", key, exc_info=True)


def matter_overview(*, matter: Matter, params: dict[str, str]) -> MatterOverview:
    """Counts and folders over all the matter's documents; the filters (``folder``: that folder
    and those below it, ``status`` ("busy": queued or indexing), ``kind``, ``q``: words of the
    title or file name) and ``page`` pick what is shown. The database counts, filters and cuts
    the page: a fixed number of queries, however many documents, and only the page's rows and
    the likely copies' ids, titles (and, when the indexed documents changed, sketches) read."""
    folder = params.get("folder", "")
    status = params.get("status", "")
    kind = params.get("kind", "")
    words = params.get("q", "").strip().lower()
    documents = Document.objects.filter(matter=matter)
    by_status: dict[str, int] = {}
    newest: datetime | None = None
    for row in (
        documents.order_by().values("status").annotate(n=Count("id"), newest=Max("updated_at"))
    ):
        by_status[row["status"]] = row["n"]
        if row["status"] == Document.Status.INDEXED:
            newest = row["newest"]
    total = sum(by_status.values())
    by_kind = aggregate_by(documents, "kind", Count("id"))
    folders = aggregate_by(documents, "folder", Count("id"))
    filtered = bool(folder or status or kind or words)
    chosen = _picked(documents, folder=folder, status=status, kind=kind, words=words)
    matching = chosen.count() if filtered else total
    pages = max(1, -(-matching // PAGE_SIZE))
    try:
        page = min(max(1, int(params.get("page", "1"))), pages)
    except ValueError:
        page = 1
    labels = dict(Document.Kind.choices)
    return MatterOverview(
        total=total,
        by_status=by_status,
        by_kind=sorted(
            ((k, labels.get(k, k), n) for k, n in by_kind.items()), key=lambda x: (-x[2], x[1])
        ),
        folders=_folder_rows(folders),
        shown=_shown(chosen, matter=matter, start=(page - 1) * PAGE_SIZE) if matching else [],
        matching=matching,
        page=page,
        pages=pages,
        filters={
            k: v
            for k, v in (("folder", folder), ("status", status), ("kind", kind), ("q", words))
            if v
        },
        copies=matter_likely_copies(
            matter=matter,
            indexed=by_status.get(Document.Status.INDEXED, 0),
            newest=newest,
            indexing=any(by_status.get(s, 0) for s in _BUSY),
        ),
    )
