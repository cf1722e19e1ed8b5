"""The API token settings page: create (the secret shown once), list, revoke; only your own."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from legalnav.api.models import ApiToken
from legalnav.api.tokens import MAX_ACTIVE_TOKENS, api_token_create, api_token_user
from tests.conftest import UserFactory

pytestmark = pytest.mark.django_db
URL = "/settings/api-tokens/"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_page_needs_a_signed_in_user():
    response = Client().get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_create_shows_the_secret_once_and_stores_only_its_hash():
    user = UserFactory()
    client = signed_in(user)
    response = client.post(URL, {"name": "Claude Desktop"})
    assert response.status_code == 200  # the secret is in this response, not behind a redirect
    page = response.content.decode()
    secret = re.search(r'value="(lnav_[A-Za-z0-9_-]+)"', page).group(1)
    token = ApiToken.objects.get(user=user)
    assert token.name == "Claude Desktop" and secret.startswith(token.prefix)
    assert secret not in (token.digest, token.prefix)
    assert api_token_user(raw=secret).user == user
    again = client.get(URL).content.decode()
    assert secret not in again and token.prefix in again  # shown once; the prefix stays


def test_revoke_your_own_token_only():
    user, other = UserFactory(), UserFactory()
    mine, raw = api_token_create(user=user, name="mine")
    theirs, their_raw = api_token_create(user=other, name="theirs")
    client = signed_in(user)
    assert client.post(f"{URL}{theirs.pk}/revoke/").status_code == 404
    assert api_token_user(raw=their_raw) is not None
    response = client.post(f"{URL}{mine.pk}/revoke/", follow=True)
    assert "Revoked" in response.content.decode()
    assert api_token_user(raw=raw) is None
    mine.refresh_from_db()
    assert mine.revoked_at is not None
    assert client.get(f"{URL}{mine.pk}/revoke/").status_code == 405  # POST only


def test_create_refusals_keep_what_was_typed():
    user = UserFactory()
    client = signed_in(user)
    response = client.post(URL, {"name": "   "})
    assert response.status_code == 422 and "Give the token a name" in response.content.decode()
    for i in range(MAX_ACTIVE_TOKENS):
        api_token_create(user=user, name=f"t{i}")
    response = client.post(URL, {"name": "one more"})
    assert response.status_code == 422 and 'value="one more"' in response.content.decode()
    assert ApiToken.objects.filter(user=user).count() == MAX_ACTIVE_TOKENS


def test_the_page_escapes_token_names():
    user = UserFactory()
    api_token_create(user=user, name="<script>alert(1)</script>")
    page = signed_in(user).get(URL).content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_create_needs_csrf():
    user = UserFactory()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post(URL, {"name": "x"}).status_code == 403
    assert not ApiToken.objects.exists()
