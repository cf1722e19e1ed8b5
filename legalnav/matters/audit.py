"""The audit trail: who uploaded, re-indexed, deleted, asked and exported what, and when.

Rows are written by the actions (``<app>/actions.py``), in the transaction of the change they
record, with ``detail["via"]`` naming the door: "page", "api", "mcp" or "command".
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from legalnav.matters.models import AuditEvent, Matter


def audit_record(
    *,
    matter: Matter | None,
    user: object | None,
    action: str,
    target: str = "",
    detail: dict[str, Any] | None = None,
) -> AuditEvent:
    """Write one audit row. ``action`` is one of ``AuditEvent.Action``; ``target`` names what was
    acted on in words a reader understands ("D12 Supply Agreement.pdf", "question Q7"). ``matter``
    is None only for what belongs to no matter (evaluation runs); ``user`` None (or anonymous) is
    recorded as the system, e.g. a management command run without a user."""
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
