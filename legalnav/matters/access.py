"""Who may do what in a matter: the one place every door (page, fragment, API, MCP, export) asks.

Roles: an *owner* manages members and sees the audit trail; an *editor* may also upload, re-index
and delete documents; a *viewer* may read and ask. Staff (admins) may do everything everywhere.

A user who is not a member gets 404, never 403, so that matter ids do not leak; a member whose
role is too weak for the action gets 403 (``PermissionDenied``), since they know the matter exists.
"""

from __future__ import annotations

import enum

from django.core.exceptions import PermissionDenied
from django.http import Http404

from legalnav.matters.models import Matter, Membership


class Action(enum.Enum):
    VIEW = "view"  # read documents, answers, history; export memos
    ASK = "ask"  # put questions
    EDIT = "edit"  # upload, re-index, delete documents
    MANAGE = "manage"  # members, audit trail, rename or delete the matter


ALLOWED: dict[str, frozenset[Action]] = {
    Membership.Role.OWNER: frozenset(Action),
    Membership.Role.EDITOR: frozenset({Action.VIEW, Action.ASK, Action.EDIT}),
    Membership.Role.VIEWER: frozenset({Action.VIEW, Action.ASK}),
}


def is_admin(user: object) -> bool:
    return bool(
        getattr(user, "is_authenticated", False)
        and (getattr(user, "is_staff", False) or getattr(user, "is_superuser", False))
    )


def role_of(*, user: object, matter: Matter) -> str | None:
    """The user's role in the matter ("owner", "editor", "viewer"), "admin" for staff, or None."""
    if is_admin(user):
        return "admin"
    if not getattr(user, "is_authenticated", False):
        return None
    return (
        Membership.objects.filter(matter=matter, user=user).values_list("role", flat=True).first()
    )


def can(*, user: object, matter: Matter, action: Action, role: str | None = None) -> bool:
    """Whether the user may take the action; pass ``role`` when it is already known (saves a
    query)."""
    role = role if role is not None else role_of(user=user, matter=matter)
    if role == "admin":
        return True
    return role is not None and action in ALLOWED.get(role, frozenset())


def require(*, user: object, matter: Matter, action: Action) -> str:
    """The user's role if they may take ``action`` in a matter already loaded; otherwise the same
    refusal as ``matter_for``: Http404 for a non-member, PermissionDenied for a weak role."""
    role = role_of(user=user, matter=matter)
    if role is None:
        raise Http404("No such matter.")
    if not can(user=user, matter=matter, action=action, role=role):
        raise PermissionDenied(
            f"Your role in this matter ({role}) does not allow this ({action.value})."
        )
    return role


def matter_for(*, user: object, matter_id: object, action: Action = Action.VIEW) -> Matter:
    """The matter if the user may take ``action`` in it: Http404 for a non-member or an unknown or
    malformed id, PermissionDenied for a member whose role does not allow the action.

    The matter comes back with ``user_role`` set, for templates and later checks."""
    try:
        pk = int(str(matter_id))
    except (TypeError, ValueError):
        raise Http404("No such matter.") from None
    matter = Matter.objects.filter(pk=pk).first()
    if matter is None:
        raise Http404("No such matter.")
    matter.user_role = require(user=user, matter=matter, action=action)  # type: ignore[attr-defined]
    return matter
