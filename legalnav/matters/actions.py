"""What a person can do to a matter itself, one function per action for every door (the pages,
the API and the management commands): open a matter, add a member, change a member's role, remove
a member; close it, reopen it, set its retention date, ask for its purge and purge it.

Each checks access, calls the one service in ``matters.services`` that changes the data, and
writes the audit row in the same transaction, with ``via`` naming the door ("page", "api",
"mcp", "command"). A management command acts for whoever runs it on the server, who can change
the database directly anyway: with ``via="command"`` the access check is skipped and ``user``
may be None (recorded as the system).

Refusals: ``PermissionDenied`` (or ``Http404`` for a non-member, exactly as ``matter_for``), and
``MembershipError`` for a change that cannot be made (its message says why, for the person).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from legalnav.matters import handover, services
from legalnav.matters.access import Action, is_admin, require
from legalnav.matters.audit import audit_action, audit_record
from legalnav.matters.models import AuditEvent, Matter, Membership
from legalnav.matters.selectors import matter_named
from legalnav.matters.services import MatterLifeError, MembershipError, RoleChange
from legalnav.matters.signals import matter_purging

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

__all__ = [
    "Handover",
    "MatterLifeError",
    "MembershipError",
    "PurgeFailed",
    "matter_close",
    "matter_handover",
    "matter_open",
    "matter_purge",
    "matter_purge_request",
    "matter_purge_withdraw",
    "matter_reopen",
    "matter_set_retention",
    "member_add",
    "member_change_role",
    "member_remove",
]

COMMAND = "command"


def _may_manage(user: User | None, matter: Matter, via: str) -> None:
    if via != COMMAND:
        require(user=user, matter=matter, action=Action.MANAGE)


def matter_open(
    *, user: User | None, name: str, kind: str = "", description: str = "", via: str
) -> Matter:
    """Create a matter. Any signed-in user may; they become its first owner and see only what
    they add. A command may open one with no user: then only staff see it until an owner is
    added (``member_add``)."""
    if via != COMMAND and not getattr(user, "is_authenticated", False):
        raise PermissionDenied("Sign in to open a matter.")
    with transaction.atomic():
        matter = services.matter_create(owner=user, name=name, kind=kind, description=description)
        audit_action(matter, user, AuditEvent.Action.CREATED, matter.name, via, kind=matter.kind)
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
    *, matter: Matter, user: User | None, username: str, role: str, via: str
) -> Membership:
    """Make an existing, active user a member of the matter (owners and staff)."""
    _may_manage(user, matter, via)
    with transaction.atomic():
        membership = services.membership_add(matter=matter, username=username, role=role)
        audit_action(
            matter,
            user,
            AuditEvent.Action.MEMBER_ADDED,
            membership.user.get_username(),
            via,
            role=role,
        )
    return membership


def member_change_role(
    *, matter: Matter, user: User | None, membership_id: int, role: str, via: str
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


def member_remove(*, matter: Matter, user: User | None, membership_id: int, via: str) -> Membership:
    """Remove a member (owners and staff; an owner may remove themselves unless they are the
    last owner). Returns the removed row."""
    _may_manage(user, matter, via)
    with transaction.atomic():
        membership = services.membership_remove(matter=matter, membership_id=membership_id)
        audit_action(
            matter,
            user,
            AuditEvent.Action.MEMBER_REMOVED,
            membership.user.get_username(),
            via,
            role=membership.role,
        )
    return membership


# --- a matter's life -------------------------------------------------------------------------


class PurgeFailed(RuntimeError):
    """A receiver could not remove its part of the matter: the matter stays closed with its purge
    asked for and the reason kept (``Matter.purge_error``); running the purge again finishes it."""


def matter_close(*, matter: Matter, user: User | None, via: str) -> Matter:
    """Close the matter (owners): read-only for everyone from now on."""
    _may_manage(user, matter, via)
    with transaction.atomic():
        services.matter_close(matter=matter, user=user)
        audit_action(matter, user, AuditEvent.Action.CLOSED, matter.name, via)  # fmt: skip
    return matter


def matter_reopen(*, matter: Matter, user: User | None, via: str) -> Matter:
    """Reopen a closed matter (owners); a purge asked for is withdrawn with it."""
    _may_manage(user, matter, via)
    with transaction.atomic():
        services.matter_reopen(matter=matter)
        audit_action(matter, user, AuditEvent.Action.REOPENED, matter.name, via)  # fmt: skip
    return matter


def matter_set_retention(
    *, matter: Matter, user: User | None, retain_until: date | None, via: str
) -> Matter:
    """Set (or clear) the day from which the matter is due for purge (owners)."""
    _may_manage(user, matter, via)
    with transaction.atomic():
        before = matter.retain_until
        services.matter_set_retention(matter=matter, retain_until=retain_until)
        dates = {
            "from": before.isoformat() if before else None,
            "to": retain_until.isoformat() if retain_until else None,
        }
        audit_action(matter, user, AuditEvent.Action.RETENTION_SET, matter.name, via, **dates)
    return matter


def matter_purge_request(*, matter: Matter, user: User | None, typed_name: str, via: str) -> Matter:
    """An owner asks for the closed matter to be purged, typing its name; staff confirm."""
    _may_manage(user, matter, via)
    with transaction.atomic():
        services.matter_request_purge(matter=matter, user=user, typed_name=typed_name)
        audit_action(matter, user, AuditEvent.Action.PURGE_REQUESTED, matter.name, via)  # fmt: skip
    return matter


def matter_purge_withdraw(*, matter: Matter, user: User | None, via: str) -> Matter:
    """Withdraw a purge asked for (its owners, or the staff who would confirm it)."""
    if via != COMMAND and not is_admin(user):
        _may_manage(user, matter, via)
    with transaction.atomic():
        services.matter_withdraw_purge(matter=matter)
        audit_action(matter, user, AuditEvent.Action.PURGE_WITHDRAWN, matter.name, via)  # fmt: skip
    return matter


def _may_confirm_purge(user: User | None, matter: Matter, via: str) -> None:
    """Staff confirm a purge an owner asked for; not the same person, so that two people agreed.
    A command (a script run by whoever runs the server) needs neither."""
    if via == COMMAND:
        return
    if not is_admin(user):
        raise PermissionDenied("Only staff can confirm a purge, once an owner has asked for it.")
    if matter.purge_requested_at is None:
        raise MatterLifeError("An owner of the matter has to ask for the purge first.")
    if matter.purge_requested_by_id is not None and matter.purge_requested_by_id == getattr(
        user, "pk", None
    ):
        raise MatterLifeError(
            "You asked for this purge yourself: another member of staff has to confirm it."
        )


def matter_purge(*, matter: Matter, user: User | None, typed_name: str, via: str) -> dict[str, int]:
    """Destroy every trace of the matter's content (staff, confirming an owner's request, typing
    the name; or a command). Each app removes its own part (``matters.signals.matter_purging``);
    the matter's audit rows lose what they quoted; the matter row stays, purged, with its members
    and its audit trail. The purge is audited outside the matter, with who, when and how much
    was removed. Returns those counts. Raises ``PurgeFailed`` (the reason kept on the matter) when
    a part could not be removed; running it again finishes the work."""
    services.check_typed_name(matter, typed_name)
    with transaction.atomic():
        services.matter_purge_ready(matter=matter)
        _may_confirm_purge(user, matter, via)
    removed: dict[str, int] = {}
    try:
        for _receiver, counts in matter_purging.send(sender=Matter, matter=matter):
            for key, value in (counts or {}).items():
                removed[key] = removed.get(key, 0) + int(value)
        with transaction.atomic():
            removed["audit_rows_scrubbed"] = services.audit_scrub(matter=matter)
            requested_by = matter.purge_requested_by_id
            services.matter_mark_purged(matter=matter, user=user)
            audit_record(
                matter=None,
                user=user,
                action=AuditEvent.Action.PURGED,
                target=matter.name,
                detail={
                    "matter_id": matter.pk,
                    "requested_by": requested_by,
                    "via": via,
                    **removed,
                },
            )
    except Exception as exc:
        logger.exception("purging matter %s failed", matter.pk)
        reason = f"{exc.__class__.__name__}: {exc}"[:500]
        services.matter_purge_failed(matter=matter, reason=reason)
        raise PurgeFailed(
            f"The purge stopped before it finished ({reason}). What was removed stays removed; "
            "run it again to finish."
        ) from exc
    services.database_drop_freed_pages()
    return removed


def matters_due_for_purge() -> list[Matter]:
    """Closed or open matters whose retention date has come, and those with a purge asked for:
    what staff are shown to act on."""
    from django.db.models import Q
    from django.utils import timezone

    today = timezone.localdate()
    return list(
        Matter.objects.exclude(status=Matter.Status.PURGED)
        .filter(Q(retain_until__lte=today) | Q(purge_requested_at__isnull=False))
        .select_related("purge_requested_by")
        .order_by("retain_until", "name")
    )


def purge_counts_in_words(removed: dict[str, Any]) -> str:
    return ", ".join(f"{key.replace('_', ' ')}: {value}" for key, value in sorted(removed.items()))


# --- handing a matter over ---------------------------------------------------------------------


@dataclass(frozen=True)
class Handover:
    filename: str
    chunks: Iterator[bytes]  # the zip, written as it is read
    counts: handover.HandoverCounts


def matter_handover(*, matter: Matter, user: User | None, via: str) -> Handover:
    """The whole matter as one zip for handing it over (owners): documents in their folders,
    answers with their citations and memos, grids as XLSX, the audit trail and the members as
    CSV. A closed matter can be handed over; a purged one has nothing left to hand over. The
    export is audited when it starts; the zip is written as it is sent."""
    _may_manage(user, matter, via)
    if matter.is_purged:
        raise MatterLifeError("This matter was purged: there is nothing left to hand over.")
    audit_record(
        matter=matter,
        user=user,
        action=AuditEvent.Action.HANDOVER_EXPORTED,
        target=matter.name,
        detail={"via": via, "parts": handover.parts()},
    )
    counts = handover.HandoverCounts()
    stamp = timezone.now().strftime("%Y%m%d")
    name = slugify(matter.name)[:60] or "matter"
    return Handover(
        filename=f"legalnav-handover-{name}-{stamp}.zip",
        chunks=handover.handover_chunks(matter, user, counts),
        counts=counts,
    )
