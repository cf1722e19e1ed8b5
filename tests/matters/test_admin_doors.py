"""The Django admin is a door like the others: what it changes goes through the actions (the same
audit rows, the same refusal in a closed matter, the same clean-up on disk), and it lists only
what its user may see."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

from legalnav.documents.models import Document, Node
from legalnav.documents.services import document_add, document_index
from legalnav.documents.verbs import Verb as DocumentVerb
from legalnav.matters.models import AuditEvent, Matter, Membership
from tests.conftest import MatterFactory, MembershipFactory

pytestmark = pytest.mark.django_db


def _staff(matter: Matter | None, role: str = Membership.Role.OWNER, name: str = "clerk"):
    user = get_user_model().objects.create_user(name, password="pw-for-tests", is_staff=True)
    user.is_superuser = True  # every model permission; what they may see is the matter's rule
    user.save()
    if matter is not None:
        MembershipFactory(matter=matter, user=user, role=role)
    client = Client()
    client.force_login(user)
    return user, client


def _indexed(matter: Matter, text: bytes = b"1. Payment.\nThe buyer pays in 30 days.\n"):
    doc, _ = document_add(matter=matter, filename="terms.txt", data=text, enqueue=False)
    assert document_index(document_id=doc.pk).status == "indexed"
    doc.refresh_from_db()
    return doc


def test_deleting_a_document_in_the_admin_is_the_documents_delete(matter):
    user, client = _staff(matter)
    doc = _indexed(matter)
    source = Path(doc.source_file.path)
    navindex = Path(settings.NAVINDEX_DIR) / f"matter-{matter.pk}"
    assert source.exists() and Node.objects.filter(document=doc).exists()
    assert list(navindex.glob(f"{doc.key}.*"))  # the navindex files, with the full text
    response = client.post(f"/admin/documents/document/{doc.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302, response.content[:500]
    assert not Document.objects.filter(pk=doc.pk).exists()
    assert not Node.objects.filter(document_id=doc.pk).exists()
    assert not source.exists()
    assert not list(navindex.glob(f"{doc.key}.*"))
    event = AuditEvent.objects.get(matter=matter, action=DocumentVerb.DELETED)
    assert event.user == user and event.detail["via"] == "admin"


def test_the_admin_cannot_delete_or_reindex_in_a_closed_matter(matter):
    _, client = _staff(matter)
    doc = _indexed(matter)
    Matter.objects.filter(pk=matter.pk).update(status=Matter.Status.CLOSED)
    response = client.post(f"/admin/documents/document/{doc.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    response = client.post(
        "/admin/documents/document/",
        {"action": "force_reindex", "_selected_action": [doc.pk]},
    )
    assert response.status_code == 403
    assert Document.objects.get(pk=doc.pk).status == Document.Status.INDEXED
    assert not AuditEvent.objects.filter(
        matter=matter, action__in=[DocumentVerb.DELETED, DocumentVerb.REINDEXED]
    ).exists()


def test_reindexing_in_the_admin_is_audited_as_the_page_does(matter):
    user, client = _staff(matter)
    doc = _indexed(matter)
    response = client.post(
        "/admin/documents/document/",
        {"action": "force_reindex", "_selected_action": [doc.pk]},
        follow=True,
    )
    assert response.status_code == 200 and b"Queued 1 document" in response.content
    event = AuditEvent.objects.get(matter=matter, action=DocumentVerb.REINDEXED)
    assert event.user == user and event.detail["via"] == "admin"


def test_editing_a_documents_details_in_the_admin_uses_the_action(matter):
    _, client = _staff(matter)
    base = _indexed(matter)
    amendment = _indexed(matter, b"1. Amendment.\nClause 1 is amended.\n")
    url = f"/admin/documents/document/{amendment.pk}/change/"
    response = client.post(
        url, {"title": "First Amendment", "kind": "amendment", "amends": base.pk}
    )
    assert response.status_code == 302, response.content[:2000]
    amendment.refresh_from_db()
    assert amendment.title == "First Amendment" and amendment.amends_id == base.pk
    assert not amendment.guess_metadata  # indexing no longer overwrites a person's title
    # A new amendment link re-indexes it (its references now resolve into the base), audited.
    assert AuditEvent.objects.filter(
        matter=matter, action=DocumentVerb.REINDEXED, detail__reason="amends changed"
    ).exists()


def test_the_admin_lists_only_the_matters_its_user_may_see(matter, settings):
    mine = _indexed(matter)
    other = MatterFactory(name="Someone else's")
    theirs = _indexed(other, b"1. Secret.\nQuorvath terms.\n")
    Document.objects.filter(pk=theirs.pk).update(title="Quorvath secret terms")
    _, client = _staff(matter)
    for url in ("/admin/documents/document/", "/admin/matters/matter/", "/admin/documents/node/"):
        page = client.get(url).content.decode()
        assert "Quorvath" not in page and "Someone else" not in page, url
    assert client.get(f"/admin/documents/document/{theirs.pk}/change/").status_code == 302
    assert mine.title.encode() in client.get("/admin/documents/document/").content
    settings.LEGALNAV_STAFF_SEE_ALL_MATTERS = True
    assert b"Quorvath" in client.get("/admin/documents/document/").content


def test_members_edited_in_the_admin_go_through_the_members_actions(matter):
    user, client = _staff(matter)
    newcomer = get_user_model().objects.create_user("newcomer", password="pw-for-tests")
    own = Membership.objects.get(matter=matter, user=user)
    form = {
        "memberships-TOTAL_FORMS": "2",
        "memberships-INITIAL_FORMS": "1",
        "memberships-MIN_NUM_FORMS": "0",
        "memberships-MAX_NUM_FORMS": "1000",
        "memberships-0-id": own.pk,
        "memberships-0-matter": matter.pk,
        "memberships-0-user": user.pk,
        "memberships-0-role": "owner",
        "memberships-1-matter": matter.pk,
        "memberships-1-user": newcomer.pk,
        "memberships-1-role": "viewer",
    }
    response = client.post(f"/admin/matters/matter/{matter.pk}/change/", form)
    assert response.status_code == 302, response.content[:3000]
    assert Membership.objects.get(matter=matter, user=newcomer).role == "viewer"
    added = AuditEvent.objects.get(matter=matter, action=AuditEvent.Action.MEMBER_ADDED)
    assert added.user == user and added.detail == {"role": "viewer", "via": "admin"}
    # The last owner cannot be made a viewer here either.
    form.update({"memberships-0-role": "viewer", "memberships-TOTAL_FORMS": "1"})
    response = client.post(f"/admin/matters/matter/{matter.pk}/change/", form, follow=True)
    assert Membership.objects.get(pk=own.pk).role == "owner"
    assert b"owner" in response.content
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.MEMBER_CHANGED).exists()


def test_derived_rows_and_matters_cannot_be_added_or_deleted_in_the_admin(matter):
    _, client = _staff(matter)
    doc = _indexed(matter)
    node = Node.objects.filter(document=doc).first()
    assert (
        client.post(f"/admin/documents/node/{node.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    assert client.get("/admin/documents/document/add/").status_code == 403
    assert client.get("/admin/matters/matter/add/").status_code == 403
    response = client.post(f"/admin/matters/matter/{matter.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403 and Matter.objects.filter(pk=matter.pk).exists()


def test_the_admin_cannot_make_a_document_amend_one_in_another_matter(matter):
    _, client = _staff(matter)
    mine = _indexed(matter)
    theirs = _indexed(MatterFactory(name="Elsewhere"), b"1. Other.\nOther terms.\n")
    response = client.post(
        f"/admin/documents/document/{mine.pk}/change/",
        {"title": "Mine", "kind": "amendment", "amends": theirs.pk},
    )
    assert response.status_code == 200  # the form again, with the error
    mine.refresh_from_db()
    assert mine.amends_id is None and mine.title != "Mine"
