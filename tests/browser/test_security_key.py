"""A security key as the second factor, in chromium: added under "Sign-in security" with
chromium's virtual authenticator (WebAuthn over the DevTools protocol, a real attestation and a
real assertion checked by the server), then used to finish signing in."""

from __future__ import annotations

import pytest
from allauth.mfa.models import Authenticator

from legalnav.accounts.models import AccessEvent
from tests.browser.conftest import PASSWORD
from tests.conftest import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _password(page, username: str) -> None:  # type: ignore[no-untyped-def]
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in", exact=True).click()


def test_a_security_key_is_added_then_asked_for(page, settings):
    settings.MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = True  # the live server is http://localhost
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "usb",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    user = UserFactory(username="erin")
    _password(page, "erin")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)

    page.goto("/accounts/2fa/webauthn/add/")
    # Adding a factor asks for the password again first (allauth's reauthentication).
    page.wait_for_url("**/accounts/reauthenticate/**")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_url("**/accounts/2fa/webauthn/add/")
    page.get_by_label("Name").fill("Office key")
    page.locator("#mfa_webauthn_add").click()
    page.wait_for_url(lambda url: "/webauthn/add/" not in url)
    key = Authenticator.objects.get(user=user, type=Authenticator.Type.WEBAUTHN)
    assert key.wrap().name == "Office key"

    page.get_by_role("button", name="Sign out").click()
    _password(page, "erin")
    page.wait_for_url("**/accounts/2fa/authenticate/")
    page.locator("#mfa_webauthn_authenticate").click()
    page.wait_for_url(lambda url: "/accounts/" not in url)
    assert page.get_by_role("heading", name="Matters").first.is_visible()
    assert not page.js_errors
    last = AccessEvent.objects.filter(kind="signed_in").first()
    assert (last.user, last.method, last.second_factor) == (user, "password", "webauthn")
