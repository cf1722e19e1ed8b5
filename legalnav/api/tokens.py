"""API tokens: created (the secret shown once), listed, revoked, and checked on every request.

A token is ``lnav_`` followed by 43 URL-safe characters (256 random bits). The database keeps its
SHA-256 only, so a leaked database does not leak working tokens; lookups are by that digest, so
checking a token costs one indexed query and never compares secrets character by character.

A token may expire (``expires_at``, chosen at creation) and may be read-only. The scope is
enforced in one place, ``token_require_write``, which every write of ``api.writes``
calls first: both doors that take tokens (the JSON API and the MCP server) write only through
those services, with the user that ``api_token_authenticate`` returned, which carries the token
it came with (``acting_token``). Pages act for a signed-in user, who carries no token, and are
never limited by one.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.utils import timezone

from legalnav.api.errors import ApiError
from legalnav.api.models import ApiToken
from legalnav.api.verbs import Verb as ApiVerb
from legalnav.matters.access import is_admin
from legalnav.matters.audit import audit_action

if TYPE_CHECKING:
    from django.contrib.auth.models import User

TOKEN_PREFIX = "lnav_"
PREFIX_CHARS = 12  # "lnav_" and 7 characters of the secret, shown on the settings page
MAX_ACTIVE_TOKENS = 20  # per user
TOUCH_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often
MAX_EXPIRY = timedelta(days=3660)  # about ten years: further than that is "never"
TOKEN_PAGE = "/settings/api-tokens/"
_SHAPE = re.compile(r"^lnav_[A-Za-z0-9_-]{20,100}$")
# The attribute of the user object that names the token it acts with (see acting_token).
_ACTING = "legalnav_acting_token"


class TokenRefused(ValueError):
    """A token that cannot be created (no name, too many active tokens, a bad expiry)."""


class TokenInvalid(ValueError):
    """A presented token that does not authenticate; the message says why, without the secret."""


@dataclass(frozen=True, slots=True)
class TokenUser:
    """Who a presented token acts for."""

    user: User  # the Django user
    token: ApiToken


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def api_token_create(
    *,
    user: User,
    name: str,
    expires_at: datetime | None = None,
    scope: str = ApiToken.Scope.READ_WRITE,
) -> tuple[ApiToken, str]:
    """A new token for ``user``; returns the row and the secret, which is never shown again.
    ``expires_at`` None: the token does not expire. ``scope`` "read": it may not write."""
    name = " ".join((name or "").split())[:100]
    if not name:
        raise TokenRefused("Give the token a name, such as the tool that will use it.")
    if scope not in ApiToken.Scope.values:
        raise TokenRefused("Choose what the token may do: read and write, or read only.")
    now = timezone.now()
    if expires_at is not None and expires_at <= now:
        raise TokenRefused("Choose an expiry date in the future.")
    if expires_at is not None and expires_at - now > MAX_EXPIRY:
        raise TokenRefused("Choose an expiry within ten years, or none.")
    active = (
        ApiToken.objects.filter(user=user, revoked_at__isnull=True)
        .exclude(expires_at__lte=now)
        .count()
    )
    if active >= MAX_ACTIVE_TOKENS:
        raise TokenRefused(
            f"You have {active} active tokens, the most allowed; revoke one you no longer use."
        )
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=raw[:PREFIX_CHARS],
        digest=_digest(raw),
        expires_at=expires_at,
        scope=scope,
    )
    return token, raw


def api_token_list(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at", "-id")


def api_token_revoke(*, user: User, token_id: object) -> ApiToken | None:
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


def api_token_revoke_by_staff(*, staff: object, token: ApiToken) -> bool:
    """Revoke anyone's token (staff, from the admin), audited outside any matter. False when it
    was already revoked."""
    if not is_admin(staff):
        raise PermissionDenied("Only staff revoke other people's tokens.")
    revoked = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    if revoked:
        audit_action(
            None,
            staff,
            ApiVerb.TOKEN_REVOKED,
            f"{token.user.get_username()}: {token.name} ({token.prefix}…)",
            "admin",
            token_id=token.pk,
            owner=token.user.get_username(),
        )
    return bool(revoked)


def revoke_all_of_deactivated(sender: object = None, *, user: User, **kwargs: object) -> int:
    """Every live token of a deactivated person, revoked (``accounts.signals.user_deactivated``)."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


def api_token_authenticate(*, raw: str | None) -> TokenUser:
    """The active user a presented token acts for; ``TokenInvalid`` when it is unknown,
    malformed, revoked or expired, or its user is deactivated.

    The user comes back carrying the token (``acting_token``), so that the services it is handed
    to can hold it to the token's scope."""
    if not raw or not _SHAPE.match(raw):
        raise TokenInvalid("The API token is unknown or has been revoked.")
    token = (
        ApiToken.objects.filter(digest=_digest(raw), revoked_at__isnull=True)
        .select_related("user")
        .first()
    )
    if token is None or not token.user.is_active:
        raise TokenInvalid("The API token is unknown or has been revoked.")
    now = timezone.now()
    if token.expires_at is not None and token.expires_at <= now:
        raise TokenInvalid(
            f"The API token “{token.name}” ({token.prefix}…) expired on "
            f"{token.expires_at:%Y-%m-%d %H:%M} UTC; create a new one at {TOKEN_PAGE}."
        )
    if token.last_used_at is None or now - token.last_used_at > TOUCH_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    user = token.user
    setattr(user, _ACTING, token)  # a fresh instance per call: nothing is shared between calls
    return TokenUser(user=user, token=token)


def api_token_user(*, raw: str | None) -> TokenUser | None:
    """``api_token_authenticate``, with None for a token that does not authenticate."""
    try:
        return api_token_authenticate(raw=raw)
    except TokenInvalid:
        return None


def acting_token(user: User) -> ApiToken | None:
    """The token a user object acts with: set by ``api_token_authenticate``; None for a user
    signed in on the pages (or a command)."""
    token = getattr(user, _ACTING, None)
    return token if isinstance(token, ApiToken) else None


def token_require_write(user: User) -> None:
    """Refuse a write (403 ``read_only_token``) when the user acts with a read-only token.

    The one check of a token's scope: every write of ``api.writes`` calls it before
    anything else, and the JSON API and the MCP server write only through those writes."""
    token = acting_token(user)
    if token is not None and token.read_only:
        raise ApiError(
            403,
            "read_only_token",
            f"The API token “{token.name}” ({token.prefix}…) is read-only: it may read but not "
            "upload, delete, re-index, ask, retry or cancel. Use a token that may write "
            f"(create one at {TOKEN_PAGE}).",
        )


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


__all__ = [
    "TokenInvalid",
    "TokenRefused",
    "TokenUser",
    "acting_token",
    "api_token_authenticate",
    "api_token_create",
    "api_token_list",
    "api_token_revoke",
    "api_token_user",
    "bearer_token",
    "token_require_write",
]
