"""The audit trail: who uploaded, re-indexed, deleted, asked and exported what, and when."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from legalnav.matters.models import AuditEvent, Matter


def audit_record(
    *,
    matter: Matter,
    user: object | None,
    action: str,
    target: str = "",
    detail: dict[str, Any] | None = None,
) -> AuditEvent:
    """Write one audit row. ``action`` is one of ``AuditEvent.Action``; ``target`` names what was
    acted on in words a reader understands ("D12 Supply Agreement.pdf", "question Q7")."""
    actor = user if getattr(user, "is_authenticated", False) else None
    return AuditEvent.objects.create(
        matter=matter,
        user=actor,
        action=action,
        target=target[:300],
        detail=detail or {},
    )


def audit_list(*, matter: Matter) -> QuerySet[AuditEvent]:
    return AuditEvent.objects.filter(matter=matter).select_related("user").order_by("-at", "-id")
