"""The frame every page shares: signing in and out, the refusal pages, and the health check.
Page-by-page access, counts and behaviour are tested in tests/matters/test_views.py and
tests/documents/test_views.py."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.conftest import MatterFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "pw-for-tests"  # UserFactory's


def test_sign_in_goes_to_the_users_matters_and_sign_out_ends_the_session(client) -> None:
    mine = MembershipFactory(matter=MatterFactory(name="Atlas acquisition"))
    MatterFactory(name="Zephyr merger")
    assert client.get(reverse("matter-list"))["Location"].startswith(reverse("login"))
    login = client.get(reverse("login")).content.decode()
    assert 'for="id_username">Username<' in login and 'for="id_password">Password<' in login
    assert "csrfmiddlewaretoken" in login
    response = client.post(
        reverse("login"), {"username": mine.user.username, "password": PASSWORD}, follow=True
    )
    page = response.content.decode()
    assert "Atlas acquisition" in page and "Zephyr merger" not in page
    assert "Sign out" in page and 'href="#content"' in page  # the skip link
    out = client.post(reverse("logout"))
    assert out.status_code == 200 and "You have signed out" in out.content.decode()
    assert client.get(reverse("matter-list")).status_code == 302


def test_a_wrong_password_is_refused_with_a_message(client) -> None:
    user = UserFactory()
    response = client.post(reverse("login"), {"username": user.username, "password": "nope"})
    assert response.status_code == 200
    assert "That username and password did not match." in response.content.decode()


def test_sign_in_returns_to_the_page_asked_for(client) -> None:
    mine = MembershipFactory()
    target = reverse("matter-detail", args=[mine.matter.pk])
    sent = client.get(target)
    assert sent["Location"] == f"{reverse('login')}?next={target}"
    back = client.post(
        sent["Location"], {"username": mine.user.username, "password": PASSWORD, "next": target}
    )
    assert back["Location"] == target


def main_of(response) -> str:
    page = response.content.decode()
    return page[page.index("<main") :]


def test_not_found_page_does_not_say_whether_the_matter_exists(client) -> None:
    hidden = MatterFactory(name="Project Nightingale")
    client.force_login(UserFactory())
    existing = client.get(reverse("matter-detail", args=[hidden.pk]))
    missing = client.get(reverse("matter-detail", args=[hidden.pk + 1000]))
    assert existing.status_code == missing.status_code == 404
    # The same page either way (apart from the per-response CSRF token in the frame).
    assert main_of(existing) == main_of(missing)
    assert b"Nightingale" not in existing.content and b"Back to your matters" in existing.content


def test_healthz(client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
