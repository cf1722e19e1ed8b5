from __future__ import annotations

from django.conf import settings
from django.db import models


class AccessEvent(models.Model):
    """The sign-in log: every sign-in, failed attempt and deactivation, kept apart from the
    matters' audit trail (it belongs to no matter and grows with every visit). Read-only in the
    admin for staff."""

    class Kind(models.TextChoices):
        SIGNED_IN = "signed_in", "Signed in"
        FAILED = "failed", "Failed to sign in"
        SIGNED_OUT = "signed_out", "Signed out"
        DEACTIVATED = "deactivated", "Deactivated"

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    username = models.CharField(max_length=150, blank=True)  # as typed, for a failed attempt
    method = models.CharField(max_length=20, blank=True)  # "password" or "sso"
    provider = models.CharField(max_length=100, blank=True)  # the identity provider, for sso
    second_factor = models.CharField(max_length=20, blank=True)  # "totp", "webauthn", ...
    address = models.GenericIPAddressField(null=True, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["user", "-at"], name="accessevent_user_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.get_kind_display()} {self.username}"
