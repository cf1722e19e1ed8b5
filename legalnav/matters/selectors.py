"""Reads for matters: a matter's members. (The matters list, with each matter's document
counts, is a read of documents: ``legalnav.documents.selectors.matter_rows``.)"""

from __future__ import annotations

from django.db.models import QuerySet

from legalnav.matters.models import Matter, Membership


def membership_list(*, matter: Matter) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(matter=matter)
        .select_related("user")
        .order_by("user__username", "id")
    )


def matter_named(ref: str) -> Matter | None:
    """A matter by its id ("12") or its exact name (the commands' way of naming one)."""
    ref = ref.strip()
    if ref.isdigit():
        return Matter.objects.filter(pk=int(ref)).first()
    return Matter.objects.filter(name=ref).first()
