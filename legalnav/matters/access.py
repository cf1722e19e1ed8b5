"""Who may do what in a matter: the one place every door (page, fragment, API, MCP, export) asks.

Roles: an *owner* manages members and sees the audit trail; an *editor* may also upload, re-index
and delete documents; a *viewer* may read and ask.

Staff (``is_staff`` or ``is_superuser``) are members like anyone else unless the deployment turns
on ``LEGALNAV_STAFF_SEE_ALL_MATTERS``: then they act as "admin" (every action) in every matter,
and each time one opens a matter they are not a member of, ``require`` writes a "staff_access"
audit row (at most one per user and matter per ``STAFF_ACCESS_EVERY``, so the trail stays
readable) and marks the matter ``staff_view`` for the page's banner. Every door (page, fragment,
API, MCP, export) goes through ``require``, so none can skip the row.

A user who is not a member gets 404, never 403, so that matter ids do not leak; a member whose
role is too weak for the action gets 403 (``PermissionDenied``), since they know the matter exists.
"""

from __future__ import annotations

import enum
from datetime import timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone

from legalnav.core.lookup import row_or_404
from legalnav.matters.audit import audit_record
from legalnav.matters.models import AuditEvent, Matter, Membership

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

STAFF_ACCESS_EVERY = timedelta(hours=1)


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


# What a matter that is not open refuses: it is read-only for everyone, staff included. Owners
# keep MANAGE (reopen, members, retention, purge) and everyone keeps VIEW (reading, exports).
WRITES: frozenset[Action] = frozenset({Action.ASK, Action.EDIT})


class MatterClosed(PermissionDenied):
    """A question, upload, grid or other change refused because the matter is closed or purged.
    Its message says so, and who can reopen it."""

    def __init__(self, matter: Matter) -> None:
        if matter.is_purged:
            when = f" on {matter.purged_at:%d %B %Y}" if matter.purged_at else ""
            message = f"This matter was purged{when}: its documents and work no longer exist."
        else:
            when = f" on {matter.closed_at:%d %B %Y}" if matter.closed_at else ""
            message = (
                f"This matter was closed{when} and is read-only: nothing can be asked, "
                "uploaded or changed in it. An owner can reopen it."
            )
        super().__init__(message)
        self.matter = matter


def require_open(matter: Matter) -> None:
    """Refuse a change to a matter that is not open (read from the database now: the row in
    hand may be older than a close). For the actions whose doors check the role themselves, and
    for commands, which act for no user."""
    state = Matter.objects.filter(pk=matter.pk).values("status", "closed_at", "purged_at").first()
    if state is None:
        raise Http404("No such matter.")
    if state["status"] != Matter.Status.OPEN:
        for field, value in state.items():
            setattr(matter, field, value)
        raise MatterClosed(matter)


def is_admin(user: User | AnonymousUser) -> bool:
    """Staff or superuser: the site's administrators. For matters this alone grants nothing (see
    ``staff_sees_all``); evaluation runs, which belong to no matter, use it directly."""
    return bool(
        getattr(user, "is_authenticated", False)
        and (getattr(user, "is_staff", False) or getattr(user, "is_superuser", False))
    )


def staff_sees_all(user: User | AnonymousUser) -> bool:
    """Whether the user acts as "admin" in every matter: staff, with the setting on."""
    return bool(settings.LEGALNAV_STAFF_SEE_ALL_MATTERS) and is_admin(user)


def visible_matters(user: User | AnonymousUser) -> QuerySet[Matter]:
    """The matters the user may read: those they are a member of, or all of them for staff with
    ``LEGALNAV_STAFF_SEE_ALL_MATTERS`` on. For lists that do not go through ``require`` (the
    Django admin)."""
    if staff_sees_all(user):
        return Matter.objects.all()
    if not getattr(user, "is_authenticated", False):
        return Matter.objects.none()
    return Matter.objects.filter(memberships__user=user)


def _member_role(user: User | AnonymousUser, matter: Matter) -> str | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return (
        Membership.objects.filter(matter=matter, user=user).values_list("role", flat=True).first()
    )


def role_of(*, user: User | AnonymousUser, matter: Matter) -> str | None:
    """The user's role in the matter ("owner", "editor", "viewer"), "admin" for staff when
    ``LEGALNAV_STAFF_SEE_ALL_MATTERS`` is on, or None."""
    if staff_sees_all(user):
        return "admin"
    return _member_role(user, matter)


def can(
    *, user: User | AnonymousUser, matter: Matter, action: Action, role: str | None = None
) -> bool:
    """Whether the user may take the action; pass ``role`` when it is already known (saves a
    query)."""
    role = role if role is not None else role_of(user=user, matter=matter)
    if role == "admin":
        return True
    return role is not None and action in ALLOWED.get(role, frozenset())


def require_starter_or_editor(
    *,
    user: User | AnonymousUser,
    matter: Matter,
    started_by_id: int | None,
    refusal: str,
    role: str | None = None,
) -> None:
    """Let the person who started a job (asked the question, made the grid) stop it, and an
    editor or owner of the matter; anyone else (a viewer) gets PermissionDenied(``refusal``)."""
    if started_by_id is not None and started_by_id == getattr(user, "pk", None):
        return
    if not can(user=user, matter=matter, action=Action.EDIT, role=role):
        raise PermissionDenied(refusal)


def require(*, user: User | AnonymousUser, matter: Matter, action: Action) -> str:
    """The user's role if they may take ``action`` in a matter already loaded; otherwise the same
    refusal as ``matter_for``: Http404 for a non-member, PermissionDenied for a weak role.

    Staff let in by ``LEGALNAV_STAFF_SEE_ALL_MATTERS`` to a matter they are not a member of are
    audited here (``staff_access_record``) and the matter is marked ``staff_view``."""
    role = role_of(user=user, matter=matter)
    if role is None:
        raise Http404("No such matter.")
    if not can(user=user, matter=matter, action=action, role=role):
        raise PermissionDenied(
            f"Your role in this matter ({role}) does not allow this ({action.value})."
        )
    if action in WRITES and not matter.is_open:
        raise MatterClosed(matter)
    staff_view = role == "admin" and _member_role(user, matter) is None
    if staff_view:
        staff_access_record(user=user, matter=matter, action=action)
    matter.staff_view = staff_view  # type: ignore[attr-defined]
    return role


def staff_access_record(*, user: User | AnonymousUser, matter: Matter, action: Action) -> bool:
    """Record that a staff user opened a matter they are not a member of, unless the same user
    already has such a row for this matter within ``STAFF_ACCESS_EVERY``. Returns whether a row
    was written.

    A write on what may be a GET: deliberate, like an access log; a race between two requests
    can at worst write two rows in the same hour."""
    since = timezone.now() - STAFF_ACCESS_EVERY
    recent = AuditEvent.objects.filter(
        matter=matter, user=user, action=AuditEvent.Action.STAFF_ACCESS, at__gte=since
    )
    if recent.exists():
        return False
    audit_record(
        matter=matter,
        user=user,
        action=AuditEvent.Action.STAFF_ACCESS,
        target=matter.name,
        detail={"first_action": action.value, "setting": "LEGALNAV_STAFF_SEE_ALL_MATTERS"},
    )
    return True


def matter_for(
    *, user: User | AnonymousUser, matter_id: object, action: Action = Action.VIEW
) -> Matter:
    """The matter if the user may take ``action`` in it: Http404 for a non-member or an unknown or
    malformed id, PermissionDenied for a member whose role does not allow the action.

    The matter comes back with ``user_role`` set, for templates and later checks."""
    matter = row_or_404(Matter.objects.all(), matter_id, "No such matter.")
    matter.user_role = require(user=user, matter=matter, action=action)  # type: ignore[attr-defined]
    return matter
