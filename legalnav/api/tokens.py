"""API tokens: created (the secret shown once), listed, revoked, and checked on every request.

A token is ``lnav_`` followed by 43 URL-safe characters (256 random bits). The database keeps its
SHA-256 only, so a leaked database does not leak working tokens; lookups are by that digest, so
checking a token costs one indexed query and never compares secrets character by character.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import QuerySet
from django.utils import timezone

from legalnav.api.models import ApiToken

TOKEN_PREFIX = "lnav_"
PREFIX_CHARS = 12  # "lnav_" and 7 characters of the secret, shown on the settings page
MAX_ACTIVE_TOKENS = 20  # per user
TOUCH_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often
_SHAPE = re.compile(r"^lnav_[A-Za-z0-9_-]{20,100}$")


class TokenRefused(ValueError):
    """A token that cannot be created (no name, too many active tokens)."""


@dataclass(frozen=True, slots=True)
class TokenUser:
    """Who a presented token acts for."""

    user: object  # the Django user
    token: ApiToken


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def api_token_create(*, user: object, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user``; returns the row and the secret, which is never shown again."""
    name = " ".join((name or "").split())[:100]
    if not name:
        raise TokenRefused("Give the token a name, such as the tool that will use it.")
    active = ApiToken.objects.filter(user=user, revoked_at__isnull=True).count()
    if active >= MAX_ACTIVE_TOKENS:
        raise TokenRefused(
            f"You have {active} active tokens, the most allowed; revoke one you no longer use."
        )
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name, prefix=raw[:PREFIX_CHARS], digest=_digest(raw)
    )
    return token, raw


def api_token_list(*, user: object) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at", "-id")


def api_token_revoke(*, user: object, token_id: object) -> ApiToken | None:
    """Revoke one of the user's own tokens; None when it is not theirs (or does not exist)."""
    try:
        pk = int(str(token_id))
    except (TypeError, ValueError):
        return None
    token = ApiToken.objects.filter(user=user, pk=pk).first()
    if token is None:
        return None
    if token.revoked_at is None:
        ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        token.refresh_from_db()
    return token


def api_token_user(*, raw: str | None) -> TokenUser | None:
    """The active user a presented token acts for, or None (unknown, malformed, revoked, or the
    user is deactivated)."""
    if not raw or not _SHAPE.match(raw):
        return None
    token = (
        ApiToken.objects.filter(digest=_digest(raw), revoked_at__isnull=True)
        .select_related("user")
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > TOUCH_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return TokenUser(user=token.user, token=token)


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


__all__ = [
    "TokenRefused",
    "TokenUser",
    "api_token_create",
    "api_token_list",
    "api_token_revoke",
    "api_token_user",
    "bearer_token",
]
