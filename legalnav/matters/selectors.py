"""Reads for matters: the list a user sees, a matter's members."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max, QuerySet

from legalnav.documents.models import Document
from legalnav.matters.access import is_admin
from legalnav.matters.models import AuditEvent, Matter, Membership


@dataclass(frozen=True)
class MatterRow:
    """One line of the matters list."""

    matter: Matter
    role: str  # "owner", "editor", "viewer", or "admin" for staff who are not members
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


def matter_rows(*, user: object) -> list[MatterRow]:
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
    last_event = dict(
        AuditEvent.objects.filter(matter_id__in=ids)
        .order_by()
        .values("matter_id")
        .annotate(last=Max("at"))
        .values_list("matter_id", "last")
    )
    members = dict(
        Membership.objects.filter(matter_id__in=ids)
        .order_by()
        .values("matter_id")
        .annotate(n=Count("id"))
        .values_list("matter_id", "n")
    )
    roles: dict[int, str] = {}
    user_id = getattr(user, "pk", None)
    if user_id is not None and getattr(user, "is_authenticated", False):
        roles = dict(
            Membership.objects.filter(matter_id__in=ids, user_id=user_id).values_list(
                "matter_id", "role"
            )
        )
    admin = is_admin(user)
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


def membership_list(*, matter: Matter) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(matter=matter)
        .select_related("user")
        .order_by("user__username", "id")
    )
