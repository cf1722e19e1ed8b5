"""What a person can do to a matter itself, one function per action for every door (the pages,
and the management commands that set matters up): open a matter, add a member, change a member's
role, remove a member.

Each checks access, calls the one service in ``matters.services`` that changes the data, and
writes the audit row in the same transaction, with ``via`` naming the door ("page", "api",
"mcp", "command"). A management command acts for whoever runs it on the server, who can change
the database directly anyway: with ``via="command"`` the access check is skipped and ``user``
may be None (recorded as the system).

Refusals: ``PermissionDenied`` (or ``Http404`` for a non-member, exactly as ``matter_for``), and
``MembershipError`` for a change that cannot be made (its message says why, for the person).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction

from legalnav.matters import services
from legalnav.matters.access import Action, require
from legalnav.matters.audit import audit_record
from legalnav.matters.models import AuditEvent, Matter, Membership
from legalnav.matters.selectors import matter_named
from legalnav.matters.services import MembershipError, RoleChange

__all__ = [
    "MembershipError",
    "matter_open",
    "member_add",
    "member_change_role",
    "member_remove",
]

COMMAND = "command"


def _may_manage(user: object | None, matter: Matter, via: str) -> None:
    if via != COMMAND:
        require(user=user, matter=matter, action=Action.MANAGE)


def matter_open(
    *, user: object | None, name: str, kind: str = "", description: str = "", via: str
) -> Matter:
    """Create a matter. Any signed-in user may; they become its first owner and see only what
    they add. A command may open one with no user: then only staff see it until an owner is
    added (``member_add``)."""
    if via != COMMAND and not getattr(user, "is_authenticated", False):
        raise PermissionDenied("Sign in to open a matter.")
    with transaction.atomic():
        matter = services.matter_create(owner=user, name=name, kind=kind, description=description)
        audit_record(
            matter=matter,
            user=user,
            action=AuditEvent.Action.CREATED,
            target=matter.name,
            detail={"kind": matter.kind, "via": via},
        )
    return matter


def matter_for_command(*, ref: str, kind: str = "", owner: str = "") -> tuple[Matter, bool]:
    """The matter a command names by id or exact name, and whether it was opened just now: a name
    no matter has opens one (audited as the command's); an unknown id is a ``LookupError``.

    ``owner`` (a username) makes that user an owner of the matter, new or existing, so that it
    shows on their matter list; a username no active user has is a ``LookupError`` and changes
    nothing."""
    user = None
    if owner:
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.filter(username=owner, is_active=True).first()
        if user is None:
            raise LookupError(f"No active user named “{owner}”.")
    found = matter_named(ref)
    if found is None and ref.strip().isdigit():
        raise LookupError(f"No matter with id {ref.strip()}.")
    if found is None:
        return matter_open(user=user, name=ref.strip(), kind=kind, via=COMMAND), True
    if kind and found.kind != kind:
        return found, False  # the caller refuses a matter of another kind; nothing changes
    if user is not None and not Membership.objects.filter(matter=found, user=user).exists():
        member_add(matter=found, user=None, username=owner, role=Membership.Role.OWNER, via=COMMAND)
    return found, False


def member_add(
    *, matter: Matter, user: object | None, username: str, role: str, via: str
) -> Membership:
    """Make an existing, active user a member of the matter (owners and staff)."""
    _may_manage(user, matter, via)
    with transaction.atomic():
        membership = services.membership_add(matter=matter, username=username, role=role)
        audit_record(
            matter=matter,
            user=user,
            action=AuditEvent.Action.MEMBER_ADDED,
            target=membership.user.get_username(),
            detail={"role": role, "via": via},
        )
    return membership


def member_change_role(
    *, matter: Matter, user: object | None, membership_id: int, role: str, via: str
) -> RoleChange:
    """Change a member's role (owners and staff). The last owner cannot be demoted. Choosing the
    role a member already has changes nothing and leaves no row."""
    _may_manage(user, matter, via)
    with transaction.atomic():
        change = services.membership_change(matter=matter, membership_id=membership_id, role=role)
        if change.changed:
            audit_record(
                matter=matter,
                user=user,
                action=AuditEvent.Action.MEMBER_CHANGED,
                target=change.membership.user.get_username(),
                detail={"from": change.before, "to": role, "via": via},
            )
    return change


def member_remove(
    *, matter: Matter, user: object | None, membership_id: int, via: str
) -> Membership:
    """Remove a member (owners and staff; an owner may remove themselves unless they are the
    last owner). Returns the removed row."""
    _may_manage(user, matter, via)
    with transaction.atomic():
        membership = services.membership_remove(matter=matter, membership_id=membership_id)
        audit_record(
            matter=matter,
            user=user,
            action=AuditEvent.Action.MEMBER_REMOVED,
            target=membership.user.get_username(),
            detail={"role": membership.role, "via": via},
        )
    return membership
