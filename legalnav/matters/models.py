from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class MatterQuerySet(models.QuerySet["Matter"]):
    def visible_to(self, user: User) -> MatterQuerySet:
        """Matters the user may see: their memberships; every matter for staff only when
        ``LEGALNAV_STAFF_SEE_ALL_MATTERS`` is on (``matters.access.staff_sees_all``)."""
        if not getattr(user, "is_authenticated", False):
            return self.none()
        if settings.LEGALNAV_STAFF_SEE_ALL_MATTERS and (
            getattr(user, "is_staff", False) or getattr(user, "is_superuser", False)
        ):
            return self
        return self.member_of(user)

    def member_of(self, user: User) -> MatterQuerySet:
        """Matters the user is a member of, whatever the staff setting."""
        if not getattr(user, "is_authenticated", False):
            return self.none()
        return self.filter(memberships__user=user).distinct()


class Matter(models.Model):
    """A set of documents reviewed together: a transaction set or a body of judgments."""

    class Kind(models.TextChoices):
        TRANSACTION = "transaction", "Transaction set"
        RESEARCH = "research", "Research matter"

    class Status(models.TextChoices):
        # open -> closed (read-only; an owner may reopen) -> purged (its content destroyed; the
        # row, its members and its audit trail stay, so that who purged it and when is kept)
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"
        PURGED = "purged", "Purged"

    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.TRANSACTION)
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The client's retention: from this day the matter is due for purge (listed for staff).
    retain_until = models.DateField(null=True, blank=True, db_index=True)
    # A purge is asked for by an owner and confirmed by staff (two people, each typing the name).
    purge_requested_at = models.DateTimeField(null=True, blank=True)
    purge_requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    purged_at = models.DateTimeField(null=True, blank=True)
    purged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # What the last purge attempt could not remove (a vector store that did not answer, say): the
    # matter stays closed with its purge asked for, and the purge can be run again.
    purge_error = models.TextField(blank=True)

    objects = MatterQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def is_purged(self) -> bool:
        return self.status == self.Status.PURGED


class Membership(models.Model):
    """Who may see a matter, and what they may do in it."""

    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        EDITOR = "editor", "Editor"
        VIEWER = "viewer", "Viewer"

    matter = models.ForeignKey(Matter, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["matter", "user"], name="membership_unique_user")
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.matter} ({self.role})"


class AuditEvent(models.Model):
    """One thing someone did in a matter, or outside any matter (an evaluation run: ``matter`` is
    empty). Rows are only ever added."""

    class Action(models.TextChoices):
        EXPORTED = "exported", "Exported"
        MEMBER_ADDED = "member_added", "Added member"
        MEMBER_CHANGED = "member_changed", "Changed member role"
        MEMBER_REMOVED = "member_removed", "Removed member"
        CREATED = "created", "Created matter"
        RETRIED = "retried", "Retried"
        CANCELLED = "cancelled", "Cancelled"
        QUEUE_DOWN = "queue_down", "Could not queue (task queue unavailable)"
        # A staff user opened a matter they are not a member of (LEGALNAV_STAFF_SEE_ALL_MATTERS);
        # recorded at most once per user and matter per STAFF_ACCESS_EVERY (matters.access).
        STAFF_ACCESS = "staff_access", "Viewed as staff (not a member)"
        # The review grid (legalnav.review.actions).
        # Playbooks (legalnav.review.playbooks): saved by staff outside any matter, applied in one.
        # A matter's life (legalnav.matters.actions).
        CLOSED = "closed", "Closed matter"
        REOPENED = "reopened", "Reopened matter"
        RETENTION_SET = "retention_set", "Set retention date"
        PURGE_REQUESTED = "purge_requested", "Asked for the matter to be purged"
        PURGE_WITHDRAWN = "purge_withdrawn", "Withdrew the purge request"
        # Written outside the matter (``matter`` empty, the id in ``detail``): it must outlive
        # whatever happens to the matter's own rows.
        PURGED = "purged", "Purged matter"
        HANDOVER_EXPORTED = "handover_exported", "Exported the matter for handover"
        # Staff revoking someone's API token (legalnav.api), outside any matter. Sign-ins and
        # deactivations are in the sign-in log (legalnav.accounts.models.AccessEvent).

    # Empty for what belongs to no matter: evaluation runs score gold sets, never a matter's
    # documents, and their start, retry and cancel are audited all the same.
    matter = models.ForeignKey(
        Matter, null=True, blank=True, on_delete=models.CASCADE, related_name="audit_events"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # A registered verb (matters.audit.register_verbs): the matters' own are ``Action``, each other
    # app's in its ``verbs.py``; text rather than choices, so that a new verb needs no migration.
    action = models.CharField(max_length=40)
    target = models.CharField(max_length=300, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["matter", "-at"], name="audit_matter_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.user} {self.action} {self.target}"

    @property
    def action_label(self) -> str:
        from legalnav.matters.audit import verb_label

        return verb_label(self.action)
