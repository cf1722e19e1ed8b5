"""Staff access is explicit: by default a staff user (or superuser) is a member like anyone else,
on the pages and through an API token; with LEGALNAV_STAFF_SEE_ALL_MATTERS on, they may open a
matter they are not a member of, the page says so, and the visit is in the matter's audit trail
(once an hour per user and matter, so the trail stays readable)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from legalnav.answers.services import query_create
from legalnav.api.tokens import api_token_create
from legalnav.matters.access import STAFF_ACCESS_EVERY
from legalnav.matters.models import AuditEvent, Membership
from tests.conftest import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db
BANNER = "You are viewing this matter as staff, not as a member"


def staff_rows(matter) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(matter=matter, action=AuditEvent.Action.STAFF_ACCESS))


@pytest.fixture
def staff():
    return UserFactory(is_staff=True, is_superuser=True)


def _pages(matter, query) -> list[str]:
    return [
        reverse("matter-detail", args=[matter.pk]),
        reverse("matter-ask", args=[matter.pk]),
        reverse("matter-history", args=[matter.pk]),
        reverse("answer-detail", args=[matter.pk, query.pk]),
        reverse("matter-members", args=[matter.pk]),
        reverse("matter-audit", args=[matter.pk]),
    ]


def test_by_default_staff_who_are_not_members_are_refused_everywhere(client, matter, staff):
    query = query_create(matter=matter, user=None, question="Who?", enqueue=False)
    client.force_login(staff)
    for url in _pages(matter, query):
        assert client.get(url).status_code == 404, url
    assert client.post(reverse("answer-memo", args=[matter.pk, query.pk])).status_code == 404
    assert matter.name not in client.get(reverse("matter-list")).content.decode()
    api = Client(HTTP_AUTHORIZATION=f"Bearer {api_token_create(user=staff, name='t')[1]}")
    assert api.get(f"/api/v1/matters/{matter.pk}").status_code == 404
    assert api.get(f"/api/v1/matters/{matter.pk}/documents").status_code == 404
    assert api.get("/api/v1/matters").json()["count"] == 0
    assert staff_rows(matter) == []


def test_with_the_setting_staff_are_let_in_bannered_and_audited_once_an_hour(
    client, matter, staff, settings
):
    settings.LEGALNAV_STAFF_SEE_ALL_MATTERS = True
    query = query_create(matter=matter, user=None, question="Who?", enqueue=False)
    client.force_login(staff)
    for url in _pages(matter, query):
        response = client.get(url)
        assert response.status_code == 200, url
        assert BANNER in response.content.decode(), url
    # One row for all those visits within the hour, naming who, where and what they first did.
    (row,) = staff_rows(matter)
    assert row.user == staff and row.target == matter.name
    assert row.detail["first_action"] == "view"
    # An hour on, the next visit is recorded again.
    AuditEvent.objects.filter(pk=row.pk).update(
        at=timezone.now() - STAFF_ACCESS_EVERY - timedelta(minutes=1)
    )
    assert client.get(reverse("matter-detail", args=[matter.pk])).status_code == 200
    assert len(staff_rows(matter)) == 2
    # The owner sees the visits in the trail.
    owner = MembershipFactory(matter=matter, role=Membership.Role.OWNER).user
    client.force_login(owner)
    trail = client.get(reverse("matter-audit", args=[matter.pk])).content.decode()
    assert "Viewed as staff (not a member)" in trail and BANNER not in trail


def test_with_the_setting_the_api_lets_staff_in_and_audits_it(matter, staff, settings):
    settings.LEGALNAV_STAFF_SEE_ALL_MATTERS = True
    api = Client(HTTP_AUTHORIZATION=f"Bearer {api_token_create(user=staff, name='t')[1]}")
    assert api.get(f"/api/v1/matters/{matter.pk}").json()["role"] == "admin"
    assert api.get(f"/api/v1/matters/{matter.pk}/documents").status_code == 200
    (row,) = staff_rows(matter)
    assert row.user == staff


def test_staff_who_are_members_see_no_banner_and_leave_no_row(client, matter, staff, settings):
    settings.LEGALNAV_STAFF_SEE_ALL_MATTERS = True
    MembershipFactory(matter=matter, user=staff, role=Membership.Role.VIEWER)
    client.force_login(staff)
    response = client.get(reverse("matter-detail", args=[matter.pk]))
    assert response.status_code == 200 and BANNER not in response.content.decode()
    assert staff_rows(matter) == []


def test_members_who_are_not_staff_see_no_banner(client, matter, owner, settings):
    settings.LEGALNAV_STAFF_SEE_ALL_MATTERS = True
    client.force_login(owner)
    response = client.get(reverse("matter-detail", args=[matter.pk]))
    assert response.status_code == 200 and BANNER not in response.content.decode()
    assert staff_rows(matter) == []
