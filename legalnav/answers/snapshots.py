"""What an answer cited, kept as it was when the answer was checked.

A citation row keeps the text its quotation was checked against (and its hash), the version of
the document (the file's hash), the provision's offsets in the extracted text, and the lines
the side panel and the memo show (the provision with its sub-clauses, its heading trail, a
little text before and after). Re-indexing, editing or deleting the document later changes none
of it; the panel says when the provision has changed or gone since, and links to the current one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from legalnav.documents.models import Document, Node
from legalnav.documents.parsing.layout import tidy

MAX_LINES = 80  # sub-clauses of one cited provision kept in full (the panel's limit too)
CONTEXT_CHARS = 320  # text kept before and after the provision


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def resolve_node(document: Document, node_ref: str) -> Node | None:
    """The node a citation names: a node id, or a printed clause ("clause:2.01(a)") resolved
    to the section or article it names, as validation resolves it."""
    if node_ref.startswith("clause:"):
        head = node_ref.split(":", 1)[1].split("(")[0]
        return (
            Node.objects.filter(document=document, label=head, kind__in=["section", "article"])
            .order_by("order")
            .first()
        )
    return Node.objects.filter(document=document, node_id=node_ref).first()


def provision_text(document: Document, node: Node) -> str:
    """The provision with its sub-clauses: what a quotation from it is checked against (both
    the reader's text and the file's, see ``citations.checkable_text``)."""
    from legalnav.answers.citations import checkable_text

    parts = list(
        Node.objects.filter(
            document_id=node.document_id, order__gte=node.order, start__lt=node.subtree_end
        )
        .order_by("order")
        .values_list("text", flat=True)
    )
    return checkable_text(tidy(document.text[node.start : node.subtree_end]), parts)


def head(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;") + " …"


def tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    return "… " + (cut.split(" ", 1)[1] if " " in cut else cut)


def build(document: Document, node: Node, cited_text: str) -> dict[str, Any]:
    """The snapshot of one cited provision (JSON for ``Citation.snapshot``)."""
    subtree = list(
        Node.objects.filter(
            document_id=node.document_id, order__gte=node.order, start__lt=node.subtree_end
        )
        .only("node_id", "order", "level", "kind", "ref", "heading", "text")
        .order_by("order")[: MAX_LINES + 1]
    )
    ancestors = list(
        Node.objects.filter(
            document_id=node.document_id,
            start__lte=node.start,
            subtree_end__gte=node.subtree_end,
            level__lt=node.level,
        )
        .only("node_id", "ref", "heading", "level", "kind")
        .order_by("level", "order")
    )
    before = (
        Node.objects.filter(document_id=node.document_id, order__lt=node.order)
        .exclude(pk__in=[a.pk for a in ancestors])
        .only("text")
        .order_by("-order")
        .first()
    )
    after = (
        Node.objects.filter(document_id=node.document_id, start__gte=node.subtree_end)
        .only("text")
        .order_by("order")
        .first()
    )
    return {
        "document": {
            "key": document.key,
            "title": document.title,
            "kind": document.kind,
            "effective_date": document.effective_date.isoformat()
            if document.effective_date
            else None,
            "sha256": document.indexed_sha256 or document.sha256,
        },
        "node": {
            "node_id": node.node_id,
            "ref": node.ref,
            "heading": node.heading,
            "kind": node.kind,
            "level": node.level,
            "start": node.start,
            "end": node.subtree_end,
        },
        "sha256": sha256(cited_text),
        "lines": [
            {
                "node_id": n.node_id,
                "ref": n.ref,
                "heading": n.heading,
                "kind": n.kind,
                "depth": max(0, n.level - node.level),
                "text": n.text,
            }
            for n in subtree[:MAX_LINES]
        ],
        "truncated": len(subtree) > MAX_LINES,
        "ancestors": [
            {"node_id": a.node_id, "ref": a.ref, "heading": a.heading, "kind": a.kind}
            for a in ancestors
        ],
        "before": tail(before.text, CONTEXT_CHARS) if before is not None else "",
        "after": head(after.text, CONTEXT_CHARS) if after is not None else "",
    }


@dataclass(slots=True)
class SnapNode:
    """A node as the snapshot has it (the attributes the templates read from a Node)."""

    node_id: str
    ref: str = ""
    heading: str = ""
    kind: str = ""
    level: int = 0

    def get_kind_display(self) -> str:
        return dict(Node.Kind.choices).get(self.kind, self.kind)


@dataclass(slots=True)
class SnapDocument:
    key: str
    title: str
    kind: str
    effective_date: date | None
    pk: int | None = None  # the live document, while it exists

    def get_kind_display(self) -> str:
        return dict(Document.Kind.choices).get(self.kind, self.kind)


@dataclass(slots=True)
class Status:
    """How the cited provision stands now against what was cited."""

    state: str  # same | changed | gone | unknown
    current: Node | None = None  # the provision as it is now, when it still exists
    notes: list[str] = field(default_factory=list)


def status(*, snapshot: dict[str, Any], document: Document | None, node_ref: str) -> Status:
    """Compare the snapshot with the matter as it is now (two or three small queries)."""
    if not snapshot:
        return Status("unknown")
    if document is None:
        return Status("gone", notes=["The document has been deleted since this answer."])
    current = resolve_node(document, node_ref)
    if current is None:
        return Status(
            "gone", notes=["This provision is no longer in the document (it was re-indexed)."]
        )
    was = snapshot.get("node", {})
    version = snapshot.get("document", {}).get("sha256")
    if (
        version == (document.indexed_sha256 or document.sha256)
        and current.start == was.get("start")
        and current.subtree_end == was.get("end")
    ):
        return Status("same", current)
    text = Document.objects.filter(pk=document.pk).values_list("text", flat=True).first() or ""
    now = tidy(text[current.start : current.subtree_end])
    if sha256(now) == snapshot.get("sha256"):
        return Status("same", current)
    return Status(
        "changed",
        current,
        notes=["The provision reads differently now; the text below is what the answer cited."],
    )


def citation_rows(
    *, answer: Any, checks: list[Any], documents: dict[str, Document], start_order: int = 0
) -> list[Any]:
    """Unsaved ``Citation`` rows for validation's checks, each with its verdict, the marker's
    place in the answer and the snapshot of what it cited."""
    from legalnav.answers.models import Citation

    nodes: dict[tuple[str, str], Node | None] = {}
    snaps: dict[tuple[str, str], dict[str, Any]] = {}
    rows = []
    for i, c in enumerate(checks):
        doc = documents.get(c.doc_key)
        key = (c.doc_key, c.node_id)
        if doc is not None and key not in nodes:
            nodes[key] = resolve_node(doc, c.node_id)
            node = nodes[key]
            if node is not None and c.cited_text is not None:
                snaps[key] = build(doc, node, c.cited_text)
        cited = c.cited_text or ""
        rows.append(
            Citation(
                answer=answer,
                document=doc,
                node=nodes.get(key),
                doc_key=c.doc_key,
                node_ref=c.node_id[:200],
                quote=c.quote,
                valid=c.ok,
                problem=c.problem[:200],
                verdict=c.verdict,
                marker_start=c.marker_start if c.marker_start >= 0 else None,
                order=start_order + i,
                cited_text=cited,
                cited_sha256=sha256(cited) if cited else "",
                snapshot=snaps.get(key, {}),
            )
        )
    return rows


def evidence_text(document: Document, start: int, end: int, limit: int = 700) -> str:
    """The passage the answerer saw (the panels show this much of it)."""
    text = tidy(document.text[start : min(end, start + limit)])
    return text + (" …" if end - start > limit else "")
