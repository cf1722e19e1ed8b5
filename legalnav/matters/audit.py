"""The audit trail: who uploaded, re-indexed, deleted, asked and exported what, and when.

Rows are written by the actions (``<app>/actions.py``), in the transaction of the change they
record, with ``detail["via"]`` naming the door: "page", "api", "mcp" or "command".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar

from django.db.models import Model, QuerySet

from legalnav.core.jobs import QueueUnavailable
from legalnav.matters.models import AuditEvent, Matter

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# --- the verbs ----------------------------------------------------------------------------------
# Each app registers the verbs it writes in its AppConfig.ready() (the matters' own and the shared
# job verbs are AuditEvent.Action). A row's action is its verb's text, checked here when it is
# written rather than by the column's choices, so a new verb needs no migration.


@dataclass(frozen=True)
class VerbInfo:
    label: str
    in_matter: bool  # False: written outside any matter (evaluation runs, staff on tokens)


_VERBS: dict[str, VerbInfo] = {}


def register_verbs(choices: Iterable[tuple[str, str]], *, in_matter: bool = True) -> None:
    """Register verbs (a TextChoices class's ``choices``, or (value, label) pairs). The same verb
    twice with another label is a programming error."""
    for value, label in choices:
        known = _VERBS.get(value)
        if known is not None and known.label != label:
            raise ValueError(f"Audit verb {value!r} is registered twice, as {known.label!r} too.")
        _VERBS[value] = VerbInfo(label=str(label), in_matter=in_matter)


def verb_label(value: str) -> str:
    info = _VERBS.get(value)
    return info.label if info else value.replace("_", " ").capitalize()


def matter_verbs() -> list[tuple[str, str]]:
    """(value, label) of every verb a matter's trail can hold, for its filter."""
    return [(v, i.label) for v, i in _VERBS.items() if i.in_matter]


def audit_record(
    *,
    matter: Matter | None,
    user: User | None,
    action: str,
    target: str = "",
    detail: dict[str, Any] | None = None,
) -> AuditEvent:
    """Write one audit row. ``action`` is one of ``AuditEvent.Action``; ``target`` names what was
    acted on in words a reader understands ("D12 Supply Agreement.pdf", "question Q7"). ``matter``
    is None only for what belongs to no matter (evaluation runs); ``user`` None (or anonymous) is
    recorded as the system, e.g. a management command run without a user."""
    if str(action) not in _VERBS:
        raise ValueError(
            f"Unknown audit verb {action!r}: register it in its app's ready() (register_verbs)."
        )
    actor = user if getattr(user, "is_authenticated", False) else None
    return AuditEvent.objects.create(
        matter=matter,
        user=actor,
        action=action,
        target=target[:300],
        detail=detail or {},
    )


def audit_action(
    matter: Matter | None,
    user: User | None,
    action: str,
    target: str,
    via: str,
    **detail: Any,
) -> AuditEvent:
    """The audit row of an action taken through a door (``via``: "page", "api", "mcp", …): the
    ``detail`` given, then the door, as every action records it."""
    return audit_record(
        matter=matter, user=user, action=action, target=target, detail={**detail, "via": via}
    )


def audit_list(*, matter: Matter) -> QuerySet[AuditEvent]:
    return AuditEvent.objects.filter(matter=matter).select_related("user").order_by("-at", "-id")


M = TypeVar("M", bound=Model)


class JobQueueDown(Exception, Generic[M]):
    """A job's row (``.item``: a question, a grid) was saved and marked failed because the task
    queue is unavailable; it can be sent again once the queue is back. Doors answer 503 with
    Retry-After. Each app names the row's type and its key in the audit detail (``id_key``) in
    a subclass: ``class JobQueueDown(audit.JobQueueDown[Grid])``."""

    message = QueueUnavailable.message
    retry_after = QueueUnavailable.retry_after
    id_key = "id"

    def __init__(self, item: M) -> None:
        super().__init__(self.message)
        self.item: M = item

    @classmethod
    def recorded(cls, matter: Matter, user: User | None, item: M, target: str, via: str) -> Self:
        """Audit that the queue refused ``item``'s job (``queue_down_record``), and the
        exception for the door: ``raise JobQueueDown.recorded(...) from None``."""
        queue_down_record(
            matter=matter,
            user=user,
            item=item,
            target=target,
            detail={cls.id_key: item.pk, "via": via},
        )
        return cls(item)


def queue_down_record(
    *, matter: Matter, user: User | None, item: Model, target: str, detail: dict[str, Any]
) -> None:
    """Audit that the queue refused a job: the row as it was left (its error message read back)."""
    item.refresh_from_db()
    audit_record(
        matter=matter,
        user=user,
        action=AuditEvent.Action.QUEUE_DOWN,
        target=target,
        detail=detail | {"error": getattr(item, "error_message", "")},
    )
