"""Signing in as a firm's person would, in chromium: single sign-on through a local OpenID Connect
issuer (real RS256-signed ID tokens), a second factor the firm requires set up on first sign-in
(the secret read off the page, the code computed as an authenticator app does), then asked for on
the next sign-in."""

from __future__ import annotations

import pytest
from allauth.mfa.models import Authenticator
from django.contrib.auth import get_user_model

from legalnav.accounts.models import AccessEvent
from tests.accounts.issuer import Issuer, provider_settings, running, totp
from tests.browser.conftest import shot
from tests.conftest import MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _single_sign_on(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/accounts/login/")
    page.get_by_role("link", name="Sign in with Firm sign-in").click()
    page.get_by_role("button", name="Continue").click()  # allauth asks before leaving the site


def test_single_sign_on_with_a_required_second_factor(page, settings):
    settings.LEGALNAV_REQUIRE_MFA = True
    settings.MFA_TOTP_TOLERANCE = 1
    issuer = Issuer(users={"alice": {"email": "alice@firm.example", "name": "Alice Ng"}})
    with running(issuer) as live:
        settings.SOCIALACCOUNT_PROVIDERS = provider_settings(live)
        live.signs_in = "alice"

        _single_sign_on(page)
        # Signed in by the issuer, then sent to set up a second factor before anything else.
        page.wait_for_url("**/accounts/2fa/totp/activate/")
        assert page.get_by_text("requires a second factor").first.is_visible()
        secret = page.locator("#authenticator_secret").input_value()
        shot(page, "sign-in-second-factor-setup")
        page.locator("#id_code").fill(totp(secret))
        page.get_by_role("button", name="Activate").click()
        page.wait_for_url(lambda url: "/totp/activate/" not in url)
        alice = get_user_model().objects.get(username="alice")
        assert Authenticator.objects.filter(user=alice, type="totp").exists()
        MembershipFactory(user=alice, matter__name="Atlas acquisition")
        page.goto("/")
        assert page.get_by_role("link", name="Atlas acquisition").is_visible()

        # Signed out, and in again: the code is asked for before the matters show.
        page.get_by_role("button", name="Sign out").click()
        _single_sign_on(page)
        page.wait_for_url("**/accounts/2fa/authenticate/")
        page.goto("/")
        assert "/accounts/login/" in page.url  # nothing without the code
        _single_sign_on(page)
        page.wait_for_url("**/accounts/2fa/authenticate/")
        page.locator("#id_code").fill(totp(secret, step=1))
        page.get_by_role("button", name="Sign In").click()
        page.wait_for_url(lambda url: "/accounts/" not in url)
        assert page.get_by_role("link", name="Atlas acquisition").is_visible()
        assert not page.js_errors
    last = AccessEvent.objects.filter(kind="signed_in").first()
    assert (last.user.username, last.method, last.provider, last.second_factor) == (
        "alice",
        "sso",
        "firm",
        "totp",
    )
