from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ApiToken(models.Model):
    """A personal token for the JSON API and the MCP server, acting as its user.

    Only the SHA-256 of the secret is stored: the secret itself is shown once, when the token is
    created. The first characters (``prefix``) are kept so that the settings page can tell tokens
    apart. A revoked token is kept (with ``revoked_at``) so that the page can say when it stopped
    working; it never authenticates again. Nor does one past ``expires_at`` (chosen at creation;
    empty: it does not expire). A ``read`` token may read everything its user may read and write
    nothing (``legalnav.api.tokens.token_require_write``).
    """

    class Scope(models.TextChoices):
        READ_WRITE = "read_write", "Read and write"
        READ = "read", "Read only"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)  # sha256 hex of the whole secret
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.READ_WRITE)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="apitoken_user_created")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and not self.is_expired

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def read_only(self) -> bool:
        return self.scope == self.Scope.READ
