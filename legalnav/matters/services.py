"""Writes for matters: creating one, and who is a member of it with which role.

These are the data-level changes only. Who may make them, the audit row and the door they came
through are the business of ``matters.actions``, which calls these inside its own transaction,
so a row in the trail means the change happened and a change always leaves a row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from legalnav.matters.models import AuditEvent, Matter, Membership
from legalnav.matters.selectors import open_work

if TYPE_CHECKING:
    from django.contrib.auth.models import User


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


def _member_locked(matter: Matter, membership_id: int) -> Membership:
    """The member, once the matter's owner rows are locked (inside a transaction), so that two
    owners demoting or removing each other at once cannot both win."""
    list(Membership.objects.select_for_update().filter(matter=matter, role=Membership.Role.OWNER))
    membership = (
        Membership.objects.select_related("user").filter(matter=matter, pk=membership_id).first()
    )
    if membership is None:
        raise MembershipError("That person is no longer a member of this matter.")
    return membership


def membership_change(*, matter: Matter, membership_id: int, role: str) -> RoleChange:
    """Change a member's role. The last owner cannot be demoted: a matter always has an owner."""
    if role not in Membership.Role.values:
        raise MembershipError(f"“{role}” is not a role; choose owner, editor or viewer.")
    with transaction.atomic():
        membership = _member_locked(matter, membership_id)
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
        membership = _member_locked(matter, membership_id)
        username = membership.user.get_username()
        if membership.role == Membership.Role.OWNER and _owner_count(matter) <= 1:
            raise MembershipError(
                f"{username} is the only owner and cannot be removed; make someone else an owner "
                "first."
            )
        membership.delete()
    return membership


# --- a matter's life: open -> closed -> purged ---------------------------------------------------


class MatterLifeError(ValueError):
    """A change of a matter's state that cannot be made now; ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _locked(matter: Matter) -> Matter:
    locked = Matter.objects.select_for_update().get(pk=matter.pk)
    for field in (
        "status",
        "closed_at",
        "closed_by_id",
        "purge_requested_at",
        "purge_requested_by_id",
        "purged_at",
        "purged_by_id",
        "retain_until",
        "purge_error",
    ):
        setattr(matter, field, getattr(locked, field))
    return matter


def _actor_id(user: User | None) -> int | None:
    return getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None


def matter_close(*, matter: Matter, user: User | None) -> Matter:
    """Close an open matter: read-only from now on. Refused while work is still queued or running
    in it (cancel it or let it finish first), so that nothing writes into a closed matter."""
    with transaction.atomic():
        _locked(matter)
        if matter.status != Matter.Status.OPEN:
            raise MatterLifeError(f"This matter is already {matter.get_status_display().lower()}.")
        busy = open_work(matter)
        if busy:
            raise MatterLifeError(
                "Work is still queued or running in this matter (" + "; ".join(busy) + "). "
                "Cancel it or let it finish, then close the matter."
            )
        matter.status = Matter.Status.CLOSED
        matter.closed_at = timezone.now()
        matter.closed_by_id = _actor_id(user)
        matter.save(update_fields=["status", "closed_at", "closed_by", "updated_at"])
    return matter


def _require_closed(matter: Matter, *, if_open: str, if_purged: str) -> None:
    """Refuse unless the matter is closed, saying why for an open and for a purged one."""
    if matter.status != Matter.Status.CLOSED:
        raise MatterLifeError(if_open if matter.status == Matter.Status.OPEN else if_purged)


def matter_reopen(*, matter: Matter) -> Matter:
    """Reopen a closed matter (a purge asked for is withdrawn with it). A purged matter stays
    purged: there is nothing left to reopen."""
    with transaction.atomic():
        _locked(matter)
        _require_closed(
            matter,
            if_open="Only a closed matter can be reopened.",
            if_purged="A purged matter cannot be reopened: its content no longer exists.",
        )
        matter.status = Matter.Status.OPEN
        matter.closed_at = matter.closed_by = None
        matter.purge_requested_at = matter.purge_requested_by = None
        matter.save(
            update_fields=[
                "status",
                "closed_at",
                "closed_by",
                "purge_requested_at",
                "purge_requested_by",
                "updated_at",
            ]
        )
    return matter


def matter_set_retention(*, matter: Matter, retain_until: date | None) -> Matter:
    if matter.is_purged:
        raise MatterLifeError("This matter was purged; it keeps nothing to retain.")
    matter.retain_until = retain_until
    matter.save(update_fields=["retain_until", "updated_at"])
    return matter


def check_typed_name(matter: Matter, typed: str) -> None:
    if typed.strip() != matter.name.strip():
        raise MatterLifeError(
            "Type the matter's name exactly as it is shown to confirm; nothing was changed."
        )


def matter_request_purge(*, matter: Matter, user: User | None, typed_name: str) -> Matter:
    """Ask for the matter to be purged (its owner, typing its name). It must be closed first."""
    check_typed_name(matter, typed_name)
    with transaction.atomic():
        _locked(matter)
        _require_closed(
            matter,
            if_open="Close the matter before asking for it to be purged.",
            if_purged="This matter was already purged.",
        )
        matter.purge_requested_at = timezone.now()
        matter.purge_requested_by_id = _actor_id(user)
        matter.save(update_fields=["purge_requested_at", "purge_requested_by", "updated_at"])
    return matter


def matter_withdraw_purge(*, matter: Matter) -> Matter:
    with transaction.atomic():
        _locked(matter)
        if matter.purge_requested_at is None or matter.is_purged:
            raise MatterLifeError("No purge of this matter is waiting to be confirmed.")
        matter.purge_requested_at = matter.purge_requested_by = None
        matter.save(update_fields=["purge_requested_at", "purge_requested_by", "updated_at"])
    return matter


def matter_purge_ready(*, matter: Matter) -> Matter:
    """Lock the matter and check that it may be purged now: closed, nothing running in it."""
    _locked(matter)
    if matter.is_purged:
        raise MatterLifeError("This matter was already purged.")
    if matter.status != Matter.Status.CLOSED:
        raise MatterLifeError("Close the matter before purging it.")
    busy = open_work(matter)
    if busy:
        raise MatterLifeError("Work is still queued or running in this matter: " + "; ".join(busy))
    return matter


def database_drop_freed_pages() -> None:
    """After a purge: on SQLite, fold the write-ahead log into the file and truncate it, so the
    deleted rows' old pages (overwritten in the file: ``secure_delete``) do not linger in the log.
    PostgreSQL keeps dead row versions until VACUUM reclaims them (see "Retention and purge" in
    docs/people-and-matters.md)."""
    from django.db import connection

    if connection.vendor == "sqlite" and not connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def matter_purge_failed(*, matter: Matter, reason: str) -> None:
    Matter.objects.filter(pk=matter.pk).update(purge_error=reason[:2000])
    matter.purge_error = reason[:2000]


def matter_mark_purged(*, matter: Matter, user: User | None) -> Matter:
    """Record the purge done: the row stays as a tombstone (name, members, dates), its
    description (the client's words) goes."""
    matter.status = Matter.Status.PURGED
    matter.purged_at = timezone.now()
    matter.purged_by_id = _actor_id(user)
    matter.description = ""
    matter.purge_error = ""
    matter.save(
        update_fields=[
            "status",
            "purged_at",
            "purged_by",
            "description",
            "purge_error",
            "updated_at",
        ]
    )
    return matter


# Audit rows of a purged matter keep who did what and when; what they quoted of its content (a
# question's words, a document's name, a cell's value) goes. These verbs name people or the matter
# itself, not its content, and keep their target.
KEEP_TARGET = frozenset(
    {
        AuditEvent.Action.MEMBER_ADDED,
        AuditEvent.Action.MEMBER_CHANGED,
        AuditEvent.Action.MEMBER_REMOVED,
        AuditEvent.Action.CREATED,
        AuditEvent.Action.STAFF_ACCESS,
        AuditEvent.Action.CLOSED,
        AuditEvent.Action.REOPENED,
        AuditEvent.Action.RETENTION_SET,
        AuditEvent.Action.PURGE_REQUESTED,
        AuditEvent.Action.PURGE_WITHDRAWN,
    }
)
# Words kept in ``detail``: the door, roles and modes. Numbers and yes/no values are kept too.
KEEP_WORDS = frozenset({"via", "role", "from", "to", "mode", "kind", "setting", "first_action"})
PURGED_MARK = "[purged]"


def _scrubbed(detail: Any) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            if isinstance(value, bool | int | float) or value is None:
                kept[key] = value
            elif key in KEEP_WORDS and isinstance(value, str) and len(value) <= 40:
                kept[key] = value
    kept["purged"] = True
    return kept


def audit_scrub(*, matter: Matter) -> int:
    """Strip the matter's audit rows of any content they quoted; returns how many changed."""
    changed = 0
    rows = AuditEvent.objects.filter(matter=matter).only("id", "action", "target", "detail")
    for row in rows.iterator(chunk_size=500):
        target = row.target if row.action in KEEP_TARGET else PURGED_MARK if row.target else ""
        detail = _scrubbed(row.detail)
        if target != row.target or detail != row.detail:
            AuditEvent.objects.filter(pk=row.pk).update(target=target, detail=detail)
            changed += 1
    return changed
