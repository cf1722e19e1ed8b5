"""Signing in: single sign-on through a local OpenID Connect issuer with real signed tokens, a
second factor that a firm can require, the sign-in log, and what a deactivation ends."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse
from urllib.request import HTTPRedirectHandler, Request, build_opener

import pytest
from allauth.mfa.models import Authenticator
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client

from legalnav.accounts.models import AccessEvent
from legalnav.api.models import ApiToken
from legalnav.api.tokens import api_token_create
from legalnav.api.verbs import Verb as ApiVerb
from legalnav.matters.models import AuditEvent
from tests.accounts.issuer import Issuer, provider_settings, running, totp
from tests.conftest import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


class _NoRedirect(HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def _at_issuer(url: str) -> str:
    """What the browser does at the identity provider: follow its redirect back, unread."""
    opener = build_opener(_NoRedirect)
    try:
        opener.open(Request(url))
    except Exception as exc:  # urllib raises HTTPError for the unfollowed 302
        return exc.headers["Location"]  # type: ignore[attr-defined]
    raise AssertionError("the issuer did not redirect back")


def sso(client: Client) -> object:
    """Press "Sign in with Firm sign-in" and come back from the issuer; the response to the
    callback (allauth has checked the ID token by then)."""
    start = client.post("/accounts/oidc/firm/login/", {"process": "login"})
    assert start.status_code == 302, start.content[:300]
    back = urlparse(_at_issuer(start["Location"]))
    return client.get(back.path, {k: v[0] for k, v in parse_qs(back.query).items()})


@pytest.fixture
def issuer(settings):
    made = Issuer(users={"alice": {"email": "alice@firm.example", "name": "Alice Ng"}})
    with running(made) as live:
        settings.SOCIALACCOUNT_PROVIDERS = provider_settings(live)
        yield live


def test_single_sign_on_makes_the_person_and_signs_them_in(issuer):
    issuer.signs_in = "alice"
    client = Client()
    page = client.get("/accounts/login/").content.decode()
    assert "Sign in with Firm sign-in" in page
    done = sso(client)
    assert done.status_code == 302 and done["Location"] == "/"
    alice = get_user_model().objects.get(username="alice")
    assert alice.email == "alice@firm.example" and not alice.has_usable_password()
    assert client.get("/").status_code == 200  # signed in: the matters list
    event = AccessEvent.objects.get(kind="signed_in")
    assert (event.user, event.method, event.provider) == (alice, "sso", "firm")
    # No matter is visible until an owner adds them; adding one shows it.
    assert "Atlas" not in client.get("/").content.decode()
    MembershipFactory(user=alice, matter__name="Atlas acquisition")
    assert "Atlas acquisition" in client.get("/").content.decode()
    # The second time the same person is found again, not made again.
    client.post("/accounts/logout/")
    sso(client)
    assert get_user_model().objects.filter(email="alice@firm.example").count() == 1


def test_a_token_issued_for_another_application_is_refused(issuer):
    issuer.signs_in, issuer.audience = "alice", "some-other-app"
    client = Client()
    done = sso(client)
    assert not get_user_model().objects.filter(username="alice").exists()
    assert "_auth_user_id" not in client.session
    assert done.status_code == 401  # allauth's "could not sign you in" page
    assert client.get("/").status_code == 302  # still signed out


def test_a_required_second_factor_is_set_up_then_asked_for(issuer, settings):
    settings.LEGALNAV_REQUIRE_MFA = True
    settings.MFA_TOTP_TOLERANCE = 1  # the next login uses the following code, not the same one
    issuer.signs_in = "alice"
    client = Client()
    sso(client)
    # Nothing but setting it up until there is one.
    for url in ("/", "/settings/api-tokens/"):
        refused = client.get(url)
        assert refused.status_code == 302 and refused["Location"] == "/accounts/2fa/totp/activate/"
    setup_page = client.get("/accounts/2fa/totp/activate/")
    assert setup_page.status_code == 200, setup_page.content.decode()[-3000:]
    setup = setup_page.content.decode()
    secret = re.search(r'id="authenticator_secret"[^>]*value="([A-Z2-7]+)"', setup)
    secret = secret or re.search(r'value="([A-Z2-7]{16,})"', setup)
    assert secret, setup[-4000:]
    wrong = client.post("/accounts/2fa/totp/activate/", {"code": "000000"})
    assert wrong.status_code == 200 and not Authenticator.objects.exists()
    client.post("/accounts/2fa/totp/activate/", {"code": totp(secret.group(1))})
    alice = get_user_model().objects.get(username="alice")
    assert Authenticator.objects.filter(user=alice, type="totp").exists()
    assert client.get("/").status_code == 200
    # Recovery codes were made with it, to print and to sign in with if the phone is lost.
    assert Authenticator.objects.filter(user=alice, type="recovery_codes").exists()
    codes = client.get("/accounts/2fa/recovery-codes/")
    assert codes.status_code == 200
    printed = re.findall(r"\b[a-z0-9]{8}\b", codes.content.decode())
    unused = Authenticator.objects.get(user=alice, type="recovery_codes").wrap().get_unused_codes()
    assert set(unused) <= set(printed) and len(unused) >= 5

    # Next time: single sign-on, then the code before the session is theirs.
    client.post("/accounts/logout/")
    asked = sso(client)
    assert asked.status_code == 302 and "/accounts/2fa/authenticate/" in asked["Location"]
    assert client.get("/").status_code == 302
    client.post("/accounts/2fa/authenticate/", {"code": totp(secret.group(1), step=1)})
    assert client.get("/").status_code == 200
    last = AccessEvent.objects.filter(kind="signed_in").first()
    assert (last.method, last.second_factor) == ("sso", "totp")


def test_a_local_account_with_a_second_factor_is_asked_for_it(settings):
    from allauth.mfa.totp.internal.auth import TOTP

    user = UserFactory(username="bob")
    secret = "JBSWY3DPEHPK3PXP"
    TOTP.activate(user, secret)
    client = Client()
    response = client.post("/accounts/login/", {"username": "bob", "password": "pw-for-tests"})
    assert response.status_code == 302 and "/accounts/2fa/authenticate/" in response["Location"]
    assert client.get("/").status_code == 302  # not signed in yet
    client.post("/accounts/2fa/authenticate/", {"code": totp(secret)})
    assert client.get("/").status_code == 200
    # A wrong password is logged with the username tried, never the password.
    Client().post("/accounts/login/", {"username": "bob", "password": "guess-123"})
    failed = AccessEvent.objects.get(kind="failed")
    assert failed.username == "bob" and "guess" not in str(failed.detail)


def test_staff_are_required_a_second_factor_in_production(settings):
    settings.LEGALNAV_REQUIRE_MFA = False
    settings.LEGALNAV_REQUIRE_MFA_FOR_STAFF = True
    staff = UserFactory(username="root")
    staff.is_staff = True
    staff.save()
    client = Client()
    client.post("/accounts/login/", {"username": "root", "password": "pw-for-tests"})
    assert client.get("/")["Location"] == "/accounts/2fa/totp/activate/"
    reader = Client()
    reader.post(
        "/accounts/login/", {"username": UserFactory().username, "password": "pw-for-tests"}
    )
    assert reader.get("/").status_code == 200  # not staff: not required here


def test_deactivating_a_person_ends_their_sessions_and_tokens(settings):
    person = UserFactory(username="carol")
    browser = Client()
    browser.post("/accounts/login/", {"username": "carol", "password": "pw-for-tests"})
    assert browser.get("/").status_code == 200
    _, raw = api_token_create(user=person, name="laptop")
    api = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert api.get("/api/v1/matters").status_code == 200
    other = UserFactory()
    keep = Client()
    keep.force_login(other)

    person.is_active = False
    person.save()
    assert browser.get("/").status_code == 302  # signed out
    assert api.get("/api/v1/matters").status_code == 401
    assert ApiToken.objects.get(user=person).revoked_at is not None
    assert keep.get("/").status_code == 200  # nobody else's session ends
    assert Session.objects.count() == 1
    event = AccessEvent.objects.get(kind="deactivated")
    assert event.detail == {"sessions_ended": 1, "tokens_revoked": 1}
    # Reactivated, their old token stays revoked.
    person.is_active = True
    person.save()
    assert api.get("/api/v1/matters").status_code == 401


def test_staff_list_and_revoke_anyones_tokens_in_the_admin():
    owner = UserFactory(username="dana")
    token, _ = api_token_create(user=owner, name="CI job")
    staff = get_user_model().objects.create_superuser("root", "r@example.com", "pw-for-tests")
    client = Client()
    client.force_login(staff)
    listed = client.get("/admin/api/apitoken/").content.decode()
    assert "CI job" in listed and token.prefix in listed and token.digest not in listed
    response = client.post(
        "/admin/api/apitoken/", {"action": "revoke", "_selected_action": [token.pk]}, follow=True
    )
    assert b"Revoked 1 token" in response.content
    token.refresh_from_db()
    assert token.revoked_at is not None
    event = AuditEvent.objects.get(action=ApiVerb.TOKEN_REVOKED)
    assert event.user == staff and event.detail["owner"] == "dana" and event.matter is None
