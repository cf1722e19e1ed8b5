"""Matter actions (legalnav.matters.actions): each checks access like ``matter_for`` does, makes its
change and writes its audit row in one transaction, saying which door it came through; the
management commands that set matters up go through them too."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.http import Http404

from legalnav.matters import actions
from legalnav.matters.models import AuditEvent, Matter, Membership
from tests.conftest import MatterFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def trail(matter: Matter) -> list[tuple[str, object, str, dict]]:
    return list(
        AuditEvent.objects.filter(matter=matter)
        .order_by("id")
        .values_list("action", "user__username", "target", "detail")
    )


def test_a_command_opens_a_matter_with_no_owner_and_a_page_needs_a_signed_in_user():
    with pytest.raises(PermissionDenied):
        actions.matter_open(user=AnonymousUser(), name="Sneaky", via="page")
    assert not Matter.objects.exists()
    matter = actions.matter_open(user=None, name=" Atlas ", kind="research", via="command")
    assert matter.name == "Atlas" and matter.created_by is None
    assert not matter.memberships.exists()  # only staff see it until someone is added
    assert trail(matter) == [("created", None, "Atlas", {"kind": "research", "via": "command"})]


def test_member_changes_are_refused_as_matter_for_refuses_them_and_leave_no_row(matter, owner):
    membership = Membership.objects.get(user=owner)
    editor = MembershipFactory(matter=matter, role="editor").user
    stranger = MembershipFactory(matter=MatterFactory()).user
    UserFactory(username="newcomer")
    for user, refusal in ((editor, PermissionDenied), (stranger, Http404)):
        with pytest.raises(refusal):
            actions.member_add(
                matter=matter, user=user, username="newcomer", role="viewer", via="api"
            )
        with pytest.raises(refusal):
            actions.member_change_role(
                matter=matter, user=user, membership_id=membership.pk, role="viewer", via="api"
            )
        with pytest.raises(refusal):
            actions.member_remove(matter=matter, user=user, membership_id=membership.pk, via="api")
    membership.refresh_from_db()
    assert membership.role == "owner" and matter.memberships.count() == 2
    assert not AuditEvent.objects.exists()


def test_each_member_change_is_audited_with_its_door_and_a_no_op_leaves_no_row(matter, owner):
    UserFactory(username="priya")
    added = actions.member_add(
        matter=matter, user=owner, username="priya", role="editor", via="command"
    )
    same = actions.member_change_role(
        matter=matter, user=owner, membership_id=added.pk, role="editor", via="page"
    )
    assert not same.changed
    actions.member_change_role(
        matter=matter, user=owner, membership_id=added.pk, role="viewer", via="page"
    )
    removed = actions.member_remove(matter=matter, user=None, membership_id=added.pk, via="command")
    assert removed.user.username == "priya" and removed.role == "viewer"
    assert trail(matter) == [
        ("member_added", owner.username, "priya", {"role": "editor", "via": "command"}),
        (
            "member_changed",
            owner.username,
            "priya",
            {"from": "editor", "to": "viewer", "via": "page"},
        ),
        ("member_removed", None, "priya", {"role": "viewer", "via": "command"}),
    ]


def test_a_refused_change_rolls_back_and_leaves_no_row(matter, owner):
    only_owner = Membership.objects.get(user=owner)
    with pytest.raises(actions.MembershipError, match="only owner"):
        actions.member_remove(matter=matter, user=owner, membership_id=only_owner.pk, via="page")
    with pytest.raises(actions.MembershipError, match="no active user"):
        actions.member_add(matter=matter, user=owner, username="ghost", role="viewer", via="page")
    assert Membership.objects.filter(pk=only_owner.pk).exists()
    assert not AuditEvent.objects.exists()


def test_ingest_opens_a_new_matter_through_the_action(tmp_path):
    path = tmp_path / "short.txt"
    path.write_text("1. Term. This Agreement lasts one year.\n\n2. Fees. The Buyer pays $10.\n")
    for _ in range(2):  # the second time the matter is found by name, not opened again
        call_command("ingest", str(path), "--matter", "Cargill", stdout=StringIO())
    matter = Matter.objects.get()
    assert matter.name == "Cargill" and not matter.memberships.exists()
    created, uploaded = trail(matter)  # the file once: the second time it is already there
    assert created == ("created", None, "Cargill", {"kind": "transaction", "via": "command"})
    document = matter.documents.get()
    assert uploaded[:3] == ("uploaded", None, f"{document.key} short (short.txt)")
    assert uploaded[3]["via"] == "command" and uploaded[3]["filename"] == "short.txt"


def test_ingest_with_an_owner_makes_them_a_member_audited_once(tmp_path):
    path = tmp_path / "short.txt"
    path.write_text("1. Term. This Agreement lasts one year.\n\n2. Fees. The Buyer pays $10.\n")
    asha = UserFactory(username="asha")
    call_command("ingest", str(path), "--matter", "Cargill", "--owner", "asha", stdout=StringIO())
    matter = Matter.objects.get()
    assert matter.memberships.get().user == asha and matter.memberships.get().role == "owner"
    UserFactory(username="ben")
    for _ in range(2):
        call_command(
            "ingest", str(path), "--matter", "Cargill", "--owner", "ben", stdout=StringIO()
        )
    assert sorted(m.user.username for m in matter.memberships.all()) == ["asha", "ben"]
    assert [row[0] for row in trail(matter)] == ["created", "uploaded", "member_added"]
