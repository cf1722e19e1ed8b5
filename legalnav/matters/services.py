"""Writes for matters: creating one, and who is a member of it with which role.

These are the data-level changes only. Who may make them, the audit row and the door they came
through are the business of ``matters.actions``, which calls these inside its own transaction,
so a row in the trail means the change happened and a change always leaves a row.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction

from legalnav.matters.models import Matter, Membership


class MembershipError(ValueError):
    """A membership change that cannot be made; ``message`` says why, for the person asking."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def matter_create(
    *, owner: object | None, name: str, kind: str = "", description: str = ""
) -> Matter:
    """Create a matter. ``owner`` (a signed-in user) is recorded as its creator and becomes its
    first owner; with no owner (a management command) only staff see it until someone is
    added."""
    owner_id = getattr(owner, "pk", None) if getattr(owner, "is_authenticated", False) else None
    if owner is not None and owner_id is None:
        raise ValueError("A matter's owner is a signed-in user.")
    with transaction.atomic():
        matter = Matter.objects.create(
            name=name.strip()[:200],
            kind=kind or Matter.Kind.TRANSACTION,
            description=description.strip(),
            created_by_id=owner_id,
        )
        if owner_id is not None:
            Membership.objects.create(matter=matter, user_id=owner_id, role=Membership.Role.OWNER)
    return matter


def _owner_count(matter: Matter) -> int:
    return Membership.objects.filter(matter=matter, role=Membership.Role.OWNER).count()


def membership_add(*, matter: Matter, username: str, role: str) -> Membership:
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
    return membership


@dataclass(frozen=True)
class RoleChange:
    membership: Membership
    before: str  # the role it had; equal to ``membership.role`` when nothing changed

    @property
    def changed(self) -> bool:
        return self.before != self.membership.role


def membership_change(*, matter: Matter, membership_id: int, role: str) -> RoleChange:
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
            return RoleChange(membership, before=role)
        if membership.role == Membership.Role.OWNER and _owner_count(matter) <= 1:
            raise MembershipError(
                f"{membership.user.get_username()} is the only owner; make someone else an owner "
                "first."
            )
        before = membership.role
        membership.role = role
        membership.save(update_fields=["role"])
    return RoleChange(membership, before=before)


def membership_remove(*, matter: Matter, membership_id: int) -> Membership:
    """Remove a member; returns the removed row (``user`` and ``role`` still readable). The last
    owner cannot be removed."""
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
        membership.delete()
    return membership
