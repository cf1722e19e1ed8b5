"""Reads for documents. Every door to a document goes through ``document_for``, which asks
``matter_for`` (404 for a non-member, 403 for a role too weak for the action)."""

from __future__ import annotations

from django.db.models import F
from django.http import Http404

from legalnav.documents.models import Document, Node
from legalnav.matters.access import Action, matter_for
from legalnav.matters.models import Matter


def document_for(*, user: object, document_id: int, action: Action = Action.VIEW) -> Document:
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
    """The matter's documents by date, each with ``amended_by`` (the documents that amend it),
    in one query."""
    docs = list(
        Document.objects.filter(matter=matter)
        .select_related("amends")
        .defer("text", "amends__text")
        .order_by(F("effective_date").asc(nulls_last=True), "id")
    )
    amended_by: dict[int, list[Document]] = {}
    for d in docs:
        if d.amends_id is not None:
            amended_by.setdefault(d.amends_id, []).append(d)
    for d in docs:
        d.amended_by = amended_by.get(d.pk, [])  # type: ignore[attr-defined]
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
