from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A personal token for the JSON API and the MCP server, acting as its user.

    Only the SHA-256 of the secret is stored: the secret itself is shown once, when the token is
    created. The first characters (``prefix``) are kept so that the settings page can tell tokens
    apart. A revoked token is kept (with ``revoked_at``) so that the page can say when it stopped
    working; it never authenticates again.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)  # sha256 hex of the whole secret
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="apitoken_user_created")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
