"""What the accounts app does when something happens to a person (connected in ``ready()``).

- Signed in, signed out, or failed to sign in (``user_logged_in``, ``user_logged_out``,
  ``user_login_failed``): a row of the sign-in log (``AccessEvent``), with how (password, single sign-on and which provider, and whether a second factor was
  used) and from which address. A failed attempt names the username tried, never the password.
- Deactivated (``is_active`` turned off, by staff in the admin or by a command): every session of
  theirs ends at once and ``signals.user_deactivated`` lets the API app revoke their tokens.
"""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

from django.contrib.sessions.models import Session
from django.http import HttpRequest

from legalnav.accounts.models import AccessEvent
from legalnav.accounts.signals import user_deactivated

logger = logging.getLogger(__name__)

AUTHENTICATION_RECORDS = "account_authentication_methods"  # allauth's record in the session


def _address(request: HttpRequest | None) -> str | None:
    address = str(getattr(request, "META", {}).get("REMOTE_ADDR", "")) if request else ""
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return None
    return address


def how_signed_in(request: HttpRequest | None) -> dict[str, Any]:
    """What the session says about how its person signed in: "password" or "sso" (with the
    provider), and the second factor used if any."""
    records = []
    if request is not None and hasattr(request, "session"):
        records = request.session.get(AUTHENTICATION_RECORDS) or []
    how: dict[str, Any] = {"method": "password"}
    for record in records if isinstance(records, list) else []:
        method = record.get("method")
        if method == "socialaccount":
            how = {"method": "sso", "provider": record.get("provider", "")}
        elif method == "mfa":
            how["second_factor"] = record.get("type", "")
    return how


def signed_in(sender: Any, request: HttpRequest | None = None, user: Any = None, **kw: Any) -> None:
    how = how_signed_in(request)
    AccessEvent.objects.create(
        kind=AccessEvent.Kind.SIGNED_IN,
        user=user,
        username=user.get_username() if user else "",
        method=how["method"],
        provider=how.get("provider", ""),
        second_factor=how.get("second_factor", ""),
        address=_address(request),
    )


def signed_out(
    sender: Any, request: HttpRequest | None = None, user: Any = None, **kw: Any
) -> None:
    if user is not None:
        AccessEvent.objects.create(
            kind=AccessEvent.Kind.SIGNED_OUT,
            user=user,
            username=user.get_username(),
            address=_address(request),
        )


def sign_in_failed(
    sender: Any, credentials: dict[str, Any] | None = None, request: Any = None, **kw: Any
) -> None:
    AccessEvent.objects.create(
        kind=AccessEvent.Kind.FAILED,
        username=str((credentials or {}).get("username", ""))[:150],
        method="password",
        address=_address(request),
    )


def note_activity(sender: Any, instance: Any, **kw: Any) -> None:
    """Remember, before a save, whether the person was active (for the receiver below)."""
    fields = kw.get("update_fields")
    if instance.pk is None or (fields is not None and "is_active" not in fields):
        # New, or a save that cannot deactivate (every sign-in saves last_login alone).
        instance._was_active = False
        return
    instance._was_active = (
        sender.objects.filter(pk=instance.pk).values_list("is_active", flat=True).first() or False
    )


def end_access_if_deactivated(sender: Any, instance: Any, created: bool, **kw: Any) -> None:
    if created or instance.is_active or not getattr(instance, "_was_active", False):
        return
    ended = end_sessions(instance)
    replies = user_deactivated.send(sender=sender, user=instance, by=None)
    AccessEvent.objects.create(
        kind=AccessEvent.Kind.DEACTIVATED,
        user=instance,
        username=instance.get_username(),
        detail={"sessions_ended": ended, "tokens_revoked": sum(int(r or 0) for _, r in replies)},
    )


def end_sessions(user: Any) -> int:
    """End every session of the person: those allauth tracks, and any other session row that
    names them (signed in before tracking began). Returns how many ended."""
    from allauth.usersessions.models import UserSession

    keys = set(UserSession.objects.filter(user=user).values_list("session_key", flat=True))
    UserSession.objects.filter(user=user).delete()
    user_id = str(user.pk)
    for session in Session.objects.exclude(session_key__in=keys).iterator(chunk_size=500):
        try:
            if str(session.get_decoded().get("_auth_user_id")) == user_id:
                keys.add(session.session_key)
        except Exception:  # an unreadable session signs nobody in
            continue
    return Session.objects.filter(session_key__in=keys).delete()[0]
