"""allauth, fitted to a firm: nobody signs themselves up (staff add local accounts; the firm's
identity provider adds its people on their first sign-in), and a person made by single sign-on
is named by the identity provider's username for them."""

from __future__ import annotations

import time
from typing import Any

from allauth.account import app_settings
from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.internal.flows.login import get_authentication_records
from allauth.core import context
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.http import HttpRequest
from django.urls import reverse


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        return False

    def is_reauthentication_required(self, *, app: str, **kwargs: Any) -> bool:
        """A person who signs in only through the firm's identity provider has no password to
        type again: a sign-on within the reauthentication window stands for it (otherwise
        setting up a second factor would be refused to them for good)."""
        required = super().is_reauthentication_required(app=app, **kwargs)
        request = self.request or context.request
        user = getattr(request, "user", None)
        if not required or user is None or not user.is_authenticated or user.has_usable_password():
            return required
        window = app_settings.REAUTHENTICATION_TIMEOUT
        records = get_authentication_records(request, user)
        return not any(float(r.get("at", 0)) > time.time() - window for r in records)

    def get_reauthentication_methods(self, user: Any) -> list[dict[str, Any]]:
        methods = super().get_reauthentication_methods(user)
        if methods or not getattr(user, "is_authenticated", False):
            return methods
        # Only single sign-on: sign in again through it.
        return [{"id": "sso", "description": "Sign in again", "url": reverse("login")}]


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest, sociallogin: Any) -> bool:
        return True  # only the configured providers exist (settings.SOCIALACCOUNT_PROVIDERS)

    def populate_user(self, request: HttpRequest, sociallogin: Any, data: dict[str, Any]):  # type: ignore[no-untyped-def]
        user = super().populate_user(request, sociallogin, data)
        claims = sociallogin.account.extra_data or {}
        info = claims.get("userinfo", claims) if isinstance(claims, dict) else {}
        name = info.get("preferred_username") or (info.get("email") or "").split("@")[0]
        if name and not user.username:
            user.username = str(name)[:150]
        return user
