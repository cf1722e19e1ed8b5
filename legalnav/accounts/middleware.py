"""A firm can require a second factor: a signed-in person without one (no TOTP app, no security
key) is sent to set one up before they can do anything else. Required for everyone with
``LEGALNAV_REQUIRE_MFA``, for staff with ``LEGALNAV_REQUIRE_MFA_FOR_STAFF`` (on by default in
production). The API is not affected: tokens are their own credential."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from legalnav.matters.access import is_admin

# Paths a person who must set up a second factor can still reach.
OPEN_PREFIXES = ("/accounts/2fa/", "/accounts/logout/", "/accounts/reauthenticate/", "/static/")
OPEN_PATHS = ("/healthz",)


def second_factor_required(user: object) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(settings.LEGALNAV_REQUIRE_MFA) or (
        bool(settings.LEGALNAV_REQUIRE_MFA_FOR_STAFF) and is_admin(user)
    )


def has_second_factor(user: object) -> bool:
    from allauth.mfa.models import Authenticator
    from allauth.mfa.utils import is_mfa_enabled

    return is_mfa_enabled(user, [Authenticator.Type.TOTP, Authenticator.Type.WEBAUTHN])


class RequireSecondFactorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path
        if (
            not path.startswith(OPEN_PREFIXES)
            and path not in OPEN_PATHS
            and not path.startswith("/api/")
            and second_factor_required(request.user)
            and not has_second_factor(request.user)
        ):
            target = reverse("mfa_activate_totp")
            if request.headers.get("HX-Request"):
                response = HttpResponse(status=204)
                response["HX-Redirect"] = target
                return response
            messages.info(
                request,
                "This site requires a second factor: set up an authenticator app to go on.",
            )
            return HttpResponseRedirect(target)
        return self.get_response(request)
