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


def open_work(matter: Matter) -> list[str]:
    """What is still queued or running in the matter, in words ("Answering: 2"): every kind of
    job whose row belongs to a matter (core.jobs.SPECS)."""
    from legalnav.core.jobs import SPECS

    busy = []
    for spec in SPECS.values():
        model = spec.model_class()
        if "matter" not in {f.name for f in model._meta.get_fields()}:
            continue  # belongs to no matter, or through a row that does (a grid's chunks)
        count = model._default_manager.filter(matter=matter, status__in=spec.open_statuses).count()
        if count:
            busy.append(f"{spec.noun}: {count}")
    return busy
