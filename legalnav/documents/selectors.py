"""Reads for documents, always through the matters a user may see."""

from __future__ import annotations

from django.db.models import Count, Max, Q, QuerySet
from django.http import Http404

from legalnav.documents.models import NODE_FLAG_COLUMNS, Document, Node
from legalnav.matters.models import Matter


def matter_list(*, user: object) -> QuerySet[Matter]:
    return (
        Matter.objects.visible_to(user)
        .annotate(
            document_count=Count("documents", distinct=True),
            indexed_count=Count("documents", filter=Q(documents__status="indexed"), distinct=True),
            last_activity=Max("documents__updated_at"),
        )
        .order_by("name", "id")
    )


def matter_get(*, user: object, matter_id: int) -> Matter:
    matter = Matter.objects.visible_to(user).filter(pk=matter_id).first()
    if matter is None:
        raise Http404("No such matter.")
    return matter


def document_list(*, matter: Matter) -> QuerySet[Document]:
    return (
        Document.objects.filter(matter=matter)
        .select_related("amends")
        .defer("text")
        .order_by("effective_date", "id")
    )


def document_get(*, user: object, document_id: int) -> Document:
    doc = (
        Document.objects.filter(pk=document_id, matter__in=Matter.objects.visible_to(user))
        .select_related("matter", "amends")
        .first()
    )
    if doc is None:
        raise Http404("No such document.")
    return doc


def node_outline(*, document: Document) -> QuerySet[Node]:
    return (
        Node.objects.filter(document=document)
        .order_by("order")
        .only(
            "id",
            "node_id",
            "parent_id",
            "level",
            "kind",
            "ref",
            "heading",
            "text",
            *NODE_FLAG_COLUMNS,
        )
    )
