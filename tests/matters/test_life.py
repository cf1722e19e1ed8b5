"""A matter's life: closing makes it read-only for everyone through every door, reopening is an
owner's, a purge needs an owner's request and another person's (staff) confirmation with the name
typed, a purge that stops half-way says why and finishes when run again, and staff see the
matters due for purge."""

from __future__ import annotations

import io
from datetime import date, timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from legalnav.answers import actions as answer_actions
from legalnav.answers.models import Question
from legalnav.api.tokens import api_token_create
from legalnav.documents.models import Document
from legalnav.matters import actions
from legalnav.matters.access import MatterClosed
from legalnav.matters.models import AuditEvent, Matter, Membership
from legalnav.matters.signals import matter_purging
from legalnav.review import actions as review_actions
from legalnav.review.services import ColumnSpec
from tests.answers.test_views import index_agreement
from tests.conftest import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db

VIA = "page"


@pytest.fixture
def staff(db):
    return UserFactory(is_staff=True)


def _bearer(user) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {api_token_create(user=user, name='t')[1]}"}


def test_a_closed_matter_refuses_questions_uploads_and_grids_at_every_door(client, matter, owner):
    index_agreement(matter)
    actions.matter_close(matter=matter, user=owner, via=VIA)
    matter.refresh_from_db()
    assert matter.status == Matter.Status.CLOSED and matter.closed_by == owner
    # The actions themselves (every door goes through them).
    with pytest.raises(MatterClosed, match="closed .* read-only"):
        answer_actions.question_ask(
            matter=matter, user=owner, question="Which law governs?", mode="navembed", via=VIA
        )
    with pytest.raises(MatterClosed):
        review_actions.grid_create(
            matter=matter,
            user=owner,
            title="g",
            columns=[ColumnSpec("Governing Law", "Which law?", "text")],
            document_ids=None,
            mode="offline",
            via=VIA,
        )
    assert not Question.objects.filter(matter=matter).exists()
    # The API says why, with its own code.
    auth = _bearer(owner)
    asked = client.post(
        f"/api/v1/matters/{matter.pk}/queries",
        {"question": "Which law governs?", "mode": "navembed"},
        content_type="application/json",
        **auth,
    )
    assert asked.status_code == 409 and asked.json()["error"]["code"] == "matter_closed"
    upload = client.post(
        f"/api/v1/matters/{matter.pk}/documents",
        {"file": SimpleUploadedFile("x.txt", b"Some agreement text.")},
        **auth,
    )
    assert upload.status_code == 409
    assert Document.objects.filter(matter=matter).count() == 1
    # Reading still works, on the page with a banner saying so.
    client.force_login(owner)
    page = client.get(reverse("matter-detail", args=[matter.pk]))
    assert page.status_code == 200 and "This matter is closed" in page.content.decode()
    ask = client.post(reverse("matter-ask", args=[matter.pk]), {"question": "Which law governs?"})
    assert ask.status_code == 403 and "read-only" in ask.content.decode()
    assert client.get(f"/api/v1/matters/{matter.pk}", **auth).json()["status"] == "closed"


def test_closing_is_refused_while_work_runs_and_reopening_is_an_owners(matter, owner):
    editor = MembershipFactory(matter=matter, role=Membership.Role.EDITOR).user
    Question.objects.create(
        matter=matter, question="q", mode="navembed", status=Question.Status.QUEUED
    )
    with pytest.raises(actions.MatterLifeError, match="Answering: 1"):
        actions.matter_close(matter=matter, user=owner, via=VIA)
    Question.objects.filter(matter=matter).update(status=Question.Status.CANCELLED)
    with pytest.raises(PermissionDenied):
        actions.matter_close(matter=matter, user=editor, via=VIA)
    actions.matter_close(matter=matter, user=owner, via=VIA)
    with pytest.raises(PermissionDenied):
        actions.matter_reopen(matter=matter, user=editor, via=VIA)
    actions.matter_reopen(matter=matter, user=owner, via=VIA)
    matter.refresh_from_db()
    assert matter.status == Matter.Status.OPEN and matter.closed_at is None
    trail = list(
        AuditEvent.objects.filter(matter=matter).order_by("id").values_list("action", flat=True)
    )
    assert trail[-2:] == ["closed", "reopened"]


def test_a_purge_needs_a_closed_matter_an_owners_request_and_another_person_from_staff(
    matter, owner, staff
):
    with pytest.raises(actions.MatterLifeError, match="Close the matter"):
        actions.matter_purge_request(matter=matter, user=owner, typed_name=matter.name, via=VIA)
    actions.matter_close(matter=matter, user=owner, via=VIA)
    with pytest.raises(actions.MatterLifeError, match="Type the matter's name"):
        actions.matter_purge_request(matter=matter, user=owner, typed_name="something", via=VIA)
    # Staff cannot purge what no owner asked to purge; an owner cannot confirm.
    with pytest.raises(actions.MatterLifeError, match="ask for the purge first"):
        actions.matter_purge(matter=matter, user=staff, typed_name=matter.name, via=VIA)
    actions.matter_purge_request(matter=matter, user=owner, typed_name=matter.name, via=VIA)
    with pytest.raises(PermissionDenied, match="Only staff"):
        actions.matter_purge(matter=matter, user=owner, typed_name=matter.name, via=VIA)
    # A member of staff who is the owner that asked cannot confirm their own request.
    owner.is_staff = True
    owner.save()
    with pytest.raises(actions.MatterLifeError, match="another member of staff"):
        actions.matter_purge(matter=matter, user=owner, typed_name=matter.name, via=VIA)
    with pytest.raises(actions.MatterLifeError, match="Type the matter's name"):
        actions.matter_purge(matter=matter, user=staff, typed_name=matter.name + "x", via=VIA)
    matter.refresh_from_db()
    assert matter.status == Matter.Status.CLOSED
    removed = actions.matter_purge(matter=matter, user=staff, typed_name=matter.name, via=VIA)
    assert removed["documents"] == 0
    matter.refresh_from_db()
    assert matter.status == Matter.Status.PURGED and matter.purged_by == staff
    with pytest.raises(actions.MatterLifeError, match="cannot be reopened"):
        actions.matter_reopen(matter=matter, user=owner, via=VIA)


def test_a_purge_that_stops_says_why_and_finishes_when_run_again(matter, owner, staff):
    index_agreement(matter)
    actions.matter_close(matter=matter, user=owner, via=VIA)
    actions.matter_purge_request(matter=matter, user=owner, typed_name=matter.name, via=VIA)
    calls = []

    def store_down(sender, *, matter, **kwargs):
        calls.append(matter.pk)
        if len(calls) == 1:
            raise ConnectionError("the vector store did not answer")
        return {}

    matter_purging.connect(store_down, dispatch_uid="test-store-down")
    try:
        with pytest.raises(actions.PurgeFailed, match="did not answer.*run it again"):
            actions.matter_purge(matter=matter, user=staff, typed_name=matter.name, via=VIA)
        matter.refresh_from_db()
        assert matter.status == Matter.Status.CLOSED and "did not answer" in matter.purge_error
        assert not AuditEvent.objects.filter(action=AuditEvent.Action.PURGED).exists()
        actions.matter_purge(matter=matter, user=staff, typed_name=matter.name, via=VIA)
    finally:
        matter_purging.disconnect(dispatch_uid="test-store-down")
    matter.refresh_from_db()
    assert matter.status == Matter.Status.PURGED and matter.purge_error == ""
    assert not Document.objects.filter(matter=matter).exists()


def test_staff_see_the_matters_due_and_others_do_not(client, matter, owner, staff):
    other = MembershipFactory().matter
    actions.matter_set_retention(
        matter=matter, user=owner, retain_until=date.today() - timedelta(days=1), via=VIA
    )
    Matter.objects.filter(pk=other.pk).update(retain_until=date.today() + timedelta(days=30))
    assert actions.matters_due_for_purge() == [matter]
    client.force_login(owner)
    assert client.get(reverse("matter-retention")).status_code == 403
    response = client.post(reverse("matter-purge", args=[matter.pk]), {"typed_name": matter.name})
    assert response.status_code == 403
    client.force_login(staff)
    page = client.get(reverse("matter-retention")).content.decode()
    assert matter.name in page and other.name not in page
    out = io.StringIO()
    call_command("purge_matter", "--due", stdout=out)
    assert matter.name in out.getvalue() and other.name not in out.getvalue()


def test_the_command_refuses_without_yes_and_for_an_unknown_matter(matter):
    with pytest.raises(CommandError, match="--yes"):
        call_command("purge_matter", str(matter.pk))
    with pytest.raises(CommandError, match="No matter with id"):
        call_command("purge_matter", "999999", "--yes")
    matter.refresh_from_db()
    assert matter.status == Matter.Status.OPEN


def test_the_api_purge_is_staffs_and_a_non_member_learns_nothing(client, matter, owner, staff):
    outsider = UserFactory()
    base = f"/api/v1/matters/{matter.pk}"
    assert client.post(f"{base}/close", **_bearer(outsider)).status_code == 404
    assert client.post(f"{base}/close", **_bearer(owner)).status_code == 200
    body = {"name": matter.name}
    json = "application/json"
    refused = client.post(f"{base}/purge", body, content_type=json, **_bearer(outsider))
    assert refused.status_code == 404
    refused = client.post(f"{base}/purge", body, content_type=json, **_bearer(owner))
    assert refused.status_code == 403
    early = client.post(f"{base}/purge", body, content_type=json, **_bearer(staff))
    assert (
        early.status_code == 409 and "ask for the purge first" in early.json()["error"]["message"]
    )
    wrong = client.post(
        f"{base}/purge-request", {"name": "nope"}, content_type=json, **_bearer(owner)
    )
    assert wrong.status_code == 409
    matter.refresh_from_db()
    assert matter.status == Matter.Status.CLOSED and matter.purge_requested_at is None
