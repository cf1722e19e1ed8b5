"""Writes for matters: creating one, and who is a member of it with which role.

Every change is recorded in the matter's audit trail in the same transaction, so a row in the
trail means the change happened and a change always leaves a row.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from legalnav.matters.audit import audit_record
from legalnav.matters.models import AuditEvent, Matter, Membership


class MembershipError(ValueError):
    """A membership change that cannot be made; ``message`` says why, for the person asking."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def matter_create(*, user: object, name: str, kind: str = "", description: str = "") -> Matter:
    """Create a matter; its creator (a signed-in user) becomes its first owner."""
    creator_id = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
    if creator_id is None:
        raise ValueError("A matter is created by a signed-in user, who becomes its owner.")
    with transaction.atomic():
        matter = Matter.objects.create(
            name=name.strip()[:200],
            kind=kind or Matter.Kind.TRANSACTION,
            description=description.strip(),
            created_by_id=creator_id,
        )
        Membership.objects.create(matter=matter, user_id=creator_id, role=Membership.Role.OWNER)
        audit_record(matter=matter, user=user, action=AuditEvent.Action.CREATED, target=matter.name)
    return matter


def _owner_count(matter: Matter) -> int:
    return Membership.objects.filter(matter=matter, role=Membership.Role.OWNER).count()


def membership_add(*, matter: Matter, actor: object, username: str, role: str) -> Membership:
    """Make an existing user a member of the matter with the given role."""
    if role not in Membership.Role.values:
        raise MembershipError(f"“{role}” is not a role; choose owner, editor or viewer.")
    username = username.strip()
    user = get_user_model().objects.filter(username__iexact=username, is_active=True).first()
    if user is None:
        raise MembershipError(
            f"There is no active user named “{username}”. An administrator creates accounts."
        )
    with transaction.atomic():
        existing = Membership.objects.filter(matter=matter, user=user).first()
        if existing is not None:
            raise MembershipError(
                f"{user.get_username()} is already a member ({existing.get_role_display()}); "
                "change their role in the list instead."
            )
        membership = Membership.objects.create(matter=matter, user=user, role=role)
        audit_record(
            matter=matter,
            user=actor,
            action=AuditEvent.Action.MEMBER_ADDED,
            target=user.get_username(),
            detail={"role": role},
        )
    return membership


def membership_change(
    *, matter: Matter, actor: object, membership_id: int, role: str
) -> Membership:
    """Change a member's role. The last owner cannot be demoted: a matter always has an owner."""
    if role not in Membership.Role.values:
        raise MembershipError(f"“{role}” is not a role; choose owner, editor or viewer.")
    with transaction.atomic():
        # Lock the matter's owner rows so two owners demoting each other at once cannot both win.
        list(
            Membership.objects.select_for_update().filter(matter=matter, role=Membership.Role.OWNER)
        )
        membership = (
            Membership.objects.select_related("user")
            .filter(matter=matter, pk=membership_id)
            .first()
        )
        if membership is None:
            raise MembershipError("That person is no longer a member of this matter.")
        if membership.role == role:
            return membership
        if membership.role == Membership.Role.OWNER and _owner_count(matter) <= 1:
            raise MembershipError(
                f"{membership.user.get_username()} is the only owner; make someone else an owner "
                "first."
            )
        before = membership.role
        membership.role = role
        membership.save(update_fields=["role"])
        audit_record(
            matter=matter,
            user=actor,
            action=AuditEvent.Action.MEMBER_CHANGED,
            target=membership.user.get_username(),
            detail={"from": before, "to": role},
        )
    return membership


def membership_remove(*, matter: Matter, actor: object, membership_id: int) -> str:
    """Remove a member; returns their username. The last owner cannot be removed."""
    with transaction.atomic():
        list(
            Membership.objects.select_for_update().filter(matter=matter, role=Membership.Role.OWNER)
        )
        membership = (
            Membership.objects.select_related("user")
            .filter(matter=matter, pk=membership_id)
            .first()
        )
        if membership is None:
            raise MembershipError("That person is no longer a member of this matter.")
        username = membership.user.get_username()
        if membership.role == Membership.Role.OWNER and _owner_count(matter) <= 1:
            raise MembershipError(
                f"{username} is the only owner and cannot be removed; make someone else an owner "
                "first."
            )
        role = membership.role
        membership.delete()
        audit_record(
            matter=matter,
            user=actor,
            action=AuditEvent.Action.MEMBER_REMOVED,
            target=username,
            detail={"role": role},
        )
    return username
