"""Reads for documents. Every door to a document goes through ``document_for``, which asks
``matter_for`` (404 for a non-member, 403 for a role too weak for the action)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from django.db.models import Count, F, Max
from django.http import Http404

from legalnav.core.lookup import aggregate_by
from legalnav.documents.models import Document, Node
from legalnav.documents.parsing.extract.archive import FOLDER_SEPARATOR
from legalnav.documents.parsing.fingerprint import likely_copies
from legalnav.matters.access import Action, matter_for, staff_sees_all
from legalnav.matters.models import AuditEvent, Matter, Membership

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User


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


def matter_documents(*, matter: Matter) -> list[Document]:
    """The matter's documents by folder and date, each with ``amended_by`` (the documents that
    amend it) and ``copy_count`` (the same file uploaded again), in one query."""
    docs = list(
        Document.objects.filter(matter=matter)
        .select_related("amends")
        .defer("text", "amends__text")
        .annotate(copy_count=Count("copies"))
        .order_by("folder", F("effective_date").asc(nulls_last=True), "id")
    )
    amended_by: dict[int, list[Document]] = {}
    for d in docs:
        if d.amends_id is not None:
            amended_by.setdefault(d.amends_id, []).append(d)
    by_id = {d.pk: d for d in docs}
    for d in docs:
        d.amended_by = amended_by.get(d.pk, [])  # type: ignore[attr-defined]
        proposal = d.link_proposal or {}
        target = by_id.get(proposal.get("target") or 0)
        d.proposed_target = (  # type: ignore[attr-defined]
            target if d.amends_id is None and proposal.get("state") == "proposed" else None
        )
    return docs


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


def matter_overview(*, documents: list[Document], params: dict[str, str]) -> MatterOverview:
    """Counts and folders over all the matter's ``documents``; the filters (``folder``: that
    folder and those below it, ``status``, ``kind``, ``q``: words of the title or file name)
    and ``page`` pick what is shown."""
    folder = params.get("folder", "")
    status = params.get("status", "")
    kind = params.get("kind", "")
    words = params.get("q", "").strip().lower()
    by_status: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    folders: dict[str, int] = {}
    for d in documents:
        by_status[d.status] = by_status.get(d.status, 0) + 1
        by_kind[d.kind] = by_kind.get(d.kind, 0) + 1
        folders[d.folder] = folders.get(d.folder, 0) + 1

    def picked(d: Document) -> bool:
        if folder and not (d.folder == folder or d.folder.startswith(folder + FOLDER_SEPARATOR)):
            return False
        if status == "busy":
            if d.status not in ("queued", "indexing"):
                return False
        elif status and d.status != status:
            return False
        if kind and d.kind != kind:
            return False
        return not words or words in f"{d.title} {d.original_filename}".lower()

    chosen = [d for d in documents if picked(d)]
    pages = max(1, -(-len(chosen) // PAGE_SIZE))
    try:
        page = min(max(1, int(params.get("page", "1"))), pages)
    except ValueError:
        page = 1
    labels = dict(Document.Kind.choices)
    sketches = [
        (d.pk, d.extraction.get("sketch") or [])
        for d in documents
        if d.status == Document.Status.INDEXED and d.extraction.get("sketch")
    ]
    by_id = {d.pk: d for d in documents}
    return MatterOverview(
        total=len(documents),
        by_status=by_status,
        by_kind=sorted(((k, labels.get(k, k), n) for k, n in by_kind.items()), key=lambda x: -x[2]),
        folders=_folder_rows(folders),
        shown=chosen[(page - 1) * PAGE_SIZE : page * PAGE_SIZE],
        matching=len(chosen),
        page=page,
        pages=pages,
        filters={
            k: v
            for k, v in (("folder", folder), ("status", status), ("kind", kind), ("q", words))
            if v
        },
        copies=[(by_id[a], by_id[b], sim) for a, b, sim in likely_copies(sketches)][:50],
    )
