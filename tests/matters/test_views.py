"""Matter pages through the test client: the list (counts, status, query count), creating a matter,
members (add, change, remove, the last owner kept) and the audit trail; who may open each page."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from legalnav.documents.models import Document
from legalnav.documents.services import document_add, document_index
from legalnav.matters.audit import audit_record
from legalnav.matters.models import AuditEvent, Matter, Membership
from tests.conftest import MatterFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def member(matter: Matter, role: str):
    return MembershipFactory(matter=matter, role=role).user


def text_of(response) -> str:
    return response.content.decode()


# --- who may open what ---------------------------------------------------------------------------


def _manage_requests(matter: Matter, membership: Membership) -> list[tuple[str, str, dict]]:
    return [
        ("get", reverse("matter-members", args=[matter.pk]), {}),
        ("post", reverse("matter-members", args=[matter.pk]), {"username": "x", "role": "viewer"}),
        ("post", reverse("member-update", args=[matter.pk, membership.pk]), {"role": "viewer"}),
        ("post", reverse("member-remove", args=[matter.pk, membership.pk]), {}),
        ("get", reverse("matter-audit", args=[matter.pk]), {}),
    ]


def test_anonymous_is_sent_to_sign_in(client, matter, owner) -> None:
    membership = Membership.objects.get(user=owner)
    requests = _manage_requests(matter, membership) + [
        ("get", reverse("matter-list"), {}),
        ("get", reverse("matter-create"), {}),
        ("post", reverse("matter-create"), {"name": "Sneaky"}),
    ]
    for method, url, data in requests:
        response = getattr(client, method)(url, data)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url
    assert Matter.objects.count() == 1 and Membership.objects.count() == 1


def test_non_members_get_404_and_change_nothing(client, matter, owner) -> None:
    membership = Membership.objects.get(user=owner)
    stranger = MembershipFactory(matter=MatterFactory(name="Their own")).user
    client.force_login(stranger)
    for method, url, data in _manage_requests(matter, membership):
        assert getattr(client, method)(url, data).status_code == 404, url
    membership.refresh_from_db()
    assert membership.role == "owner" and matter.memberships.count() == 1
    assert not AuditEvent.objects.filter(matter=matter).exists()


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_editors_and_viewers_may_not_manage_members_or_read_the_audit_trail(
    client, matter, owner, role
) -> None:
    membership = Membership.objects.get(user=owner)
    client.force_login(member(matter, role))
    for method, url, data in _manage_requests(matter, membership):
        assert getattr(client, method)(url, data).status_code == 403, url
    membership.refresh_from_db()
    assert membership.role == "owner"
    assert not AuditEvent.objects.filter(matter=matter).exists()
    # The tabs of the matter page do not offer what the role cannot open.
    page = text_of(client.get(reverse("matter-detail", args=[matter.pk])))
    assert reverse("matter-members", args=[matter.pk]) not in page
    assert reverse("matter-audit", args=[matter.pk]) not in page


def test_refusal_pages_say_why_without_naming_the_matter(client, matter) -> None:
    client.force_login(member(matter, "viewer"))
    refused = client.get(reverse("matter-audit", args=[matter.pk]))
    assert refused.status_code == 403 and "(viewer) does not allow this" in text_of(refused)
    client.force_login(UserFactory())
    missing = client.get(reverse("matter-members", args=[matter.pk]))
    assert missing.status_code == 404 and matter.name not in text_of(missing)


def test_forms_refuse_a_post_without_the_csrf_token(matter, owner) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    newcomer = UserFactory()
    url = reverse("matter-members", args=[matter.pk])
    refused = client.post(url, {"username": newcomer.username, "role": "viewer"})
    assert refused.status_code == 403
    assert not Membership.objects.filter(user=newcomer).exists()
    assert client.post(reverse("matter-create"), {"name": "X"}).status_code == 403
    assert Matter.objects.count() == 1
    # With the token the page carries, the same post goes through.
    page = client.get(url)
    token = page.cookies["csrftoken"].value
    added = client.post(
        url, {"username": newcomer.username, "role": "viewer", "csrfmiddlewaretoken": token}
    )
    assert added.status_code == 302
    assert Membership.objects.filter(user=newcomer, matter=matter).exists()


# --- the list ------------------------------------------------------------------------------------


def _add(matter: Matter, name: str, data: bytes, index: bool = True) -> Document:
    doc, _ = document_add(matter=matter, filename=name, data=data, enqueue=False)
    if index:
        document_index(document_id=doc.pk)
    return doc


def test_list_shows_each_matters_counts_status_role_and_only_the_users_matters(client) -> None:
    user = UserFactory()
    ready = MembershipFactory(
        user=user, role="viewer", matter=MatterFactory(name="Alpha deal")
    ).matter
    _add(ready, "a.txt", b"1. Term. One year.\n")
    _add(ready, "b.txt", b"1. Price. Ten dollars.\n")
    busy = MembershipFactory(
        user=user, role="editor", matter=MatterFactory(name="Beta deal")
    ).matter
    _add(busy, "c.txt", b"1. Term. Two years.\n")
    _add(busy, "d.txt", b"1. Scope. All of it.\n", index=False)
    broken = MembershipFactory(user=user, matter=MatterFactory(name="Gamma deal")).matter
    _add(broken, "e.pdf", b"%PDF-1.4 not really a pdf")
    MatterFactory(name="Someone else's deal")
    client.force_login(user)
    page = text_of(client.get(reverse("matter-list")))
    assert "Someone else" not in page
    rows = {name: page[page.index(name) :].split("</tr>")[0] for name in ("Alpha", "Beta", "Gamma")}
    assert "2 of 2 indexed" in rows["Alpha"] and "Ready" in rows["Alpha"]
    assert "Viewer" in rows["Alpha"]
    assert "1 of 2 indexed" in rows["Beta"] and "1 indexing" in rows["Beta"]
    assert "Editor" in rows["Beta"]
    assert "0 of 1 indexed" in rows["Gamma"] and "1 failed" in rows["Gamma"]
    assert "ago" in rows["Alpha"]  # last activity


def test_list_query_count_does_not_grow_with_matters(client, django_assert_num_queries) -> None:
    user = UserFactory()
    first = MembershipFactory(user=user).matter
    _add(first, "a.txt", b"1. Term. One year.\n")
    client.force_login(user)
    client.get(reverse("matter-list"))  # the session is warm
    # session, user, matters, documents by status, last audit event, member counts, roles
    with django_assert_num_queries(7):
        one = client.get(reverse("matter-list"))
    for i in range(7):
        m = MembershipFactory(user=user).matter
        _add(m, f"{i}.txt", f"1. Term. {i} years.\n".encode())
        MembershipFactory(matter=m, role="viewer")
    with django_assert_num_queries(7):
        eight = client.get(reverse("matter-list"))
    assert text_of(one).count('class="strong" href="/matters/') == 1
    assert text_of(eight).count('class="strong" href="/matters/') == 8


def test_staff_see_every_matter_only_when_the_setting_is_on(client, settings) -> None:
    MatterFactory(name="Nobody's matter")
    client.force_login(UserFactory(is_staff=True))
    page = text_of(client.get(reverse("matter-list")))
    assert "Nobody&#x27;s matter" not in page and "Admin" in page  # the site admin link stays
    settings.LEGALNAV_STAFF_SEE_ALL_MATTERS = True
    page = text_of(client.get(reverse("matter-list")))
    assert "Nobody&#x27;s matter" in page and "as staff you also see every other matter" in page


# --- creating a matter ---------------------------------------------------------------------------


def test_creating_a_matter_makes_the_creator_its_owner_and_is_audited(client) -> None:
    user = UserFactory()
    client.force_login(user)
    assert client.get(reverse("matter-create")).status_code == 200
    response = client.post(
        reverse("matter-create"),
        {"name": "  Atlas acquisition ", "kind": "transaction", "description": "Share purchase"},
    )
    matter = Matter.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("matter-detail", args=[matter.pk])
    assert matter.name == "Atlas acquisition" and matter.created_by == user
    assert Membership.objects.get(matter=matter).role == "owner"
    event = AuditEvent.objects.get(matter=matter)
    assert (event.action, event.user, event.target) == ("created", user, "Atlas acquisition")
    assert event.detail == {"kind": "transaction", "via": "page"}
    page = text_of(client.get(response["Location"]))
    assert "Created “Atlas acquisition”" in page and "Add documents" in page


def test_a_matter_needs_a_name_and_a_known_kind(client) -> None:
    client.force_login(UserFactory())
    blank = client.post(reverse("matter-create"), {"name": "   ", "kind": "transaction"})
    assert blank.status_code == 400 and "Give the matter a name." in text_of(blank)
    odd = client.post(reverse("matter-create"), {"name": "X", "kind": "nonsense"})
    assert odd.status_code == 400 and "Select a valid choice" in text_of(odd)
    assert not Matter.objects.exists() and not AuditEvent.objects.exists()


# --- members -------------------------------------------------------------------------------------


def test_owner_adds_changes_and_removes_a_member_and_each_step_is_audited(
    client, matter, owner
) -> None:
    colleague = UserFactory(username="priya")
    client.force_login(owner)
    url = reverse("matter-members", args=[matter.pk])
    page = text_of(client.get(url))
    assert owner.username in page and "Add a person" in page

    added = client.post(url, {"username": "Priya", "role": "editor"}, follow=True)
    assert "Added priya as editor." in text_of(added)
    membership = Membership.objects.get(matter=matter, user=colleague)
    assert membership.role == "editor"

    change = reverse("member-update", args=[matter.pk, membership.pk])
    changed = client.post(change, {"role": "viewer"}, follow=True)
    assert "priya is now viewer." in text_of(changed)
    membership.refresh_from_db()
    assert membership.role == "viewer"

    removed = client.post(reverse("member-remove", args=[matter.pk, membership.pk]), follow=True)
    assert "Removed priya from the matter." in text_of(removed)
    assert not Membership.objects.filter(user=colleague).exists()
    # The colleague no longer reaches the matter.
    client.force_login(colleague)
    assert client.get(reverse("matter-detail", args=[matter.pk])).status_code == 404

    trail = list(
        AuditEvent.objects.filter(matter=matter)
        .order_by("id")
        .values_list("action", "target", "detail")
    )
    assert trail == [
        ("member_added", "priya", {"role": "editor", "via": "page"}),
        ("member_changed", "priya", {"from": "editor", "to": "viewer", "via": "page"}),
        ("member_removed", "priya", {"role": "viewer", "via": "page"}),
    ]


def test_adding_an_unknown_user_or_an_existing_member_says_why(client, matter, owner) -> None:
    client.force_login(owner)
    url = reverse("matter-members", args=[matter.pk])
    unknown = client.post(url, {"username": "nobody-here", "role": "viewer"})
    assert unknown.status_code == 400
    assert "There is no active user named “nobody-here”" in text_of(unknown)
    again = client.post(url, {"username": owner.username, "role": "viewer"})
    assert again.status_code == 400 and "is already a member (Owner)" in text_of(again)
    bad_role = client.post(url, {"username": owner.username, "role": "emperor"})
    assert bad_role.status_code == 400
    assert Membership.objects.filter(matter=matter).count() == 1
    assert not AuditEvent.objects.exists()


def test_the_last_owner_can_be_neither_demoted_nor_removed(client, matter, owner) -> None:
    mine = Membership.objects.get(user=owner)
    client.force_login(owner)
    demoted = client.post(
        reverse("member-update", args=[matter.pk, mine.pk]), {"role": "editor"}, follow=True
    )
    assert "is the only owner; make someone else an owner first." in text_of(demoted)
    removed = client.post(reverse("member-remove", args=[matter.pk, mine.pk]), follow=True)
    assert "is the only owner and cannot be removed" in text_of(removed)
    mine.refresh_from_db()
    assert mine.role == "owner" and not AuditEvent.objects.exists()

    # With a second owner, the first may step down, and then lands where they still may go.
    other = MembershipFactory(matter=matter, role="owner")
    stepped = client.post(reverse("member-update", args=[matter.pk, mine.pk]), {"role": "viewer"})
    assert stepped["Location"] == reverse("matter-detail", args=[matter.pk])
    assert client.get(reverse("matter-members", args=[matter.pk])).status_code == 403
    client.force_login(other.user)
    client.post(reverse("member-update", args=[matter.pk, mine.pk]), {"role": "owner"})
    left = client.post(reverse("member-remove", args=[matter.pk, other.pk]))
    assert left["Location"] == reverse("matter-list")  # they no longer see the matter
    assert list(Membership.objects.filter(matter=matter).values_list("user", "role")) == [
        (owner.pk, "owner")
    ]


def test_a_membership_of_another_matter_cannot_be_touched_through_this_one(
    client, matter, owner
) -> None:
    elsewhere = MembershipFactory(role="editor")
    client.force_login(owner)
    response = client.post(
        reverse("member-update", args=[matter.pk, elsewhere.pk]), {"role": "viewer"}, follow=True
    )
    assert "no longer a member of this matter" in text_of(response)
    elsewhere.refresh_from_db()
    assert elsewhere.role == "editor"


# --- the audit trail -----------------------------------------------------------------------------


def test_owner_and_admin_read_the_audit_trail_newest_first_and_filtered(
    client, matter, owner, settings
) -> None:
    actor = UserFactory(username="dana")
    audit_record(matter=matter, user=actor, action="uploaded", target="D1 Supply <b>Agreement</b>")
    audit_record(matter=matter, user=actor, action="asked", target="question Q7")
    audit_record(matter=MatterFactory(), user=actor, action="deleted", target="elsewhere D9")
    client.force_login(owner)
    url = reverse("matter-audit", args=[matter.pk])
    page = text_of(client.get(url))
    assert page.index("question Q7") < page.index("D1 Supply")
    assert "D1 Supply &lt;b&gt;Agreement&lt;/b&gt;" in page and "elsewhere D9" not in page
    assert "dana" in page
    only_uploads = text_of(client.get(url, {"action": "uploaded"}))
    assert "D1 Supply" in only_uploads and "question Q7" not in only_uploads
    settings.LEGALNAV_STAFF_SEE_ALL_MATTERS = True  # staff see every matter only when this is on
    client.force_login(UserFactory(is_staff=True))
    assert "question Q7" in text_of(client.get(url))


def test_audit_trail_pages_through_long_histories(client, matter, owner) -> None:
    for i in range(55):
        audit_record(matter=matter, user=owner, action="asked", target=f"question Q{i}")
    client.force_login(owner)
    url = reverse("matter-audit", args=[matter.pk])
    first = text_of(client.get(url))
    assert "question Q54<" in first and "question Q5<" in first and "question Q4<" not in first
    assert "Page 1 of 2" in first
    second = text_of(client.get(url, {"page": 2}))
    assert "question Q4<" in second and "question Q0<" in second and "question Q54<" not in second
