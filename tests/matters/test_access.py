from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from legalnav.answers.verbs import Verb as AnswerVerb
from legalnav.documents.verbs import Verb as DocumentVerb
from legalnav.matters.access import Action, can, matter_for, role_of
from legalnav.matters.audit import audit_list, audit_record
from legalnav.matters.models import AuditEvent, Membership
from tests.conftest import MatterFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("role", "allowed"),
    [
        ("owner", {Action.VIEW, Action.ASK, Action.EDIT, Action.MANAGE}),
        ("editor", {Action.VIEW, Action.ASK, Action.EDIT}),
        ("viewer", {Action.VIEW, Action.ASK}),
    ],
)
def test_each_role_may_do_exactly_its_actions(role: str, allowed: set[Action]) -> None:
    member = MembershipFactory(role=role)
    for action in Action:
        expected = action in allowed
        assert can(user=member.user, matter=member.matter, action=action) is expected
        if expected:
            got = matter_for(user=member.user, matter_id=member.matter.pk, action=action)
            assert got == member.matter and got.user_role == role
        else:
            with pytest.raises(PermissionDenied):
                matter_for(user=member.user, matter_id=member.matter.pk, action=action)


def test_non_members_anonymous_and_bad_ids_get_404() -> None:
    matter = MatterFactory()
    stranger = UserFactory()
    for user in (stranger, AnonymousUser()):
        assert role_of(user=user, matter=matter) is None
        with pytest.raises(Http404):
            matter_for(user=user, matter_id=matter.pk)
    for bad in (999_999, "abc", None, "1; drop table"):
        with pytest.raises(Http404):
            matter_for(user=stranger, matter_id=bad)


def test_a_membership_in_one_matter_opens_no_other() -> None:
    member = MembershipFactory(role=Membership.Role.OWNER)
    other = MatterFactory()
    with pytest.raises(Http404):
        matter_for(user=member.user, matter_id=other.pk)


def test_staff_may_do_everything_when_the_setting_is_on(settings) -> None:
    settings.LEGALNAV_STAFF_SEE_ALL_MATTERS = True
    admin = UserFactory(is_staff=True)
    matter = MatterFactory()
    assert role_of(user=admin, matter=matter) == "admin"
    assert matter_for(user=admin, matter_id=matter.pk, action=Action.MANAGE) == matter


def test_staff_are_like_anyone_else_by_default() -> None:
    for admin in (UserFactory(is_staff=True), UserFactory(is_superuser=True)):
        matter = MatterFactory()
        assert role_of(user=admin, matter=matter) is None
        with pytest.raises(Http404):
            matter_for(user=admin, matter_id=matter.pk)
        MembershipFactory(matter=matter, user=admin, role=Membership.Role.VIEWER)
        assert role_of(user=admin, matter=matter) == "viewer"
        with pytest.raises(PermissionDenied):
            matter_for(user=admin, matter_id=matter.pk, action=Action.EDIT)


def test_audit_rows_are_listed_newest_first_per_matter() -> None:
    member = MembershipFactory()
    other = MembershipFactory()
    audit_record(
        matter=member.matter,
        user=member.user,
        action=DocumentVerb.UPLOADED,
        target="D1 lease.pdf",
    )
    audit_record(
        matter=member.matter,
        user=AnonymousUser(),
        action=AnswerVerb.ASKED,
        target="Q1",
        detail={"mode": "auto"},
    )
    audit_record(matter=other.matter, user=other.user, action=AuditEvent.Action.EXPORTED)
    rows = list(audit_list(matter=member.matter))
    assert [r.action for r in rows] == ["asked", "uploaded"]
    assert rows[0].user is None and rows[0].detail == {"mode": "auto"}
    assert rows[1].user == member.user and rows[1].target == "D1 lease.pdf"
