"""Pages: sign-in required, only members see a matter, polling stops when indexing is done,
document text is escaped."""

from __future__ import annotations

import pytest
from django.urls import reverse

from legalnav.documents.models import Document
from legalnav.documents.services import document_add, document_index
from tests.conftest import MatterFactory, MembershipFactory, UserFactory, demo_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def indexed(matter):
    doc, _ = document_add(
        matter=matter,
        filename="bioamber-development-agreement.txt",
        data=demo_bytes("bioamber-development-agreement.txt"),
        enqueue=False,
    )
    document_index(document_id=doc.pk)
    return doc


def test_pages_require_sign_in(client, indexed):
    for url in (
        reverse("matter-list"),
        reverse("matter-detail", args=[indexed.matter_id]),
        reverse("document-detail", args=[indexed.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_member_sees_matter_documents_and_clause_tree(
    client, owner, indexed, django_assert_max_num_queries
):
    client.force_login(owner)
    response = client.get(reverse("matter-list"))
    assert indexed.matter.name in response.content.decode()
    with django_assert_max_num_queries(6):
        response = client.get(reverse("matter-detail", args=[indexed.matter_id]))
    page = response.content.decode()
    assert indexed.title in page and "Indexed" in page
    response = client.get(reverse("document-detail", args=[indexed.pk]))
    page = response.content.decode()
    assert 'id="s2.2"' in page and 'href="#s2.2"' in page


def test_non_member_is_refused_everywhere(client, indexed):
    stranger = UserFactory()
    other = MatterFactory(name="Other client matter")
    MembershipFactory(matter=other, user=stranger)
    client.force_login(stranger)
    page = client.get(reverse("matter-list")).content.decode()
    assert indexed.matter.name not in page and other.name in page
    assert client.get(reverse("matter-detail", args=[indexed.matter_id])).status_code == 404
    assert client.get(reverse("document-detail", args=[indexed.pk])).status_code == 404
    assert client.get(reverse("document-detail", args=[999999])).status_code == 404


def test_matter_list_query_count_does_not_grow_with_matters(client, django_assert_max_num_queries):
    user = UserFactory()
    for _ in range(8):
        MembershipFactory(user=user)
    client.force_login(user)
    with django_assert_max_num_queries(4):
        response = client.get(reverse("matter-list"))
    assert response.content.decode().count("/matters/") == 8


def test_polling_fragment_stops_when_nothing_is_indexing(client, owner, matter):
    doc, _ = document_add(
        matter=matter, filename="a.txt", data=b"1. Term. One year.\n", enqueue=False
    )
    client.force_login(owner)
    url = reverse("matter-detail", args=[matter.pk])
    busy = client.get(url, HTTP_HX_REQUEST="true")
    assert busy.status_code == 200 and 'hx-trigger="every 2s"' in busy.content.decode()
    document_index(document_id=doc.pk)
    done = client.get(url, HTTP_HX_REQUEST="true")
    assert done.status_code == 286  # htmx stops polling
    assert "<html" not in done.content.decode()  # the fragment only


def test_failed_document_shows_why(client, owner, matter):
    doc, _ = document_add(matter=matter, filename="bad.pdf", data=b"%PDF-1.4 junk", enqueue=False)
    document_index(document_id=doc.pk)
    client.force_login(owner)
    page = client.get(reverse("matter-detail", args=[matter.pk])).content.decode()
    assert Document.objects.get(pk=doc.pk).error_message in page


def test_document_text_is_escaped(client, owner, matter):
    hostile = b'1. Services. <script>alert("x")</script> and <b>bold</b> text.\n'
    doc, _ = document_add(
        matter=matter, filename="hostile.txt", data=hostile, title="<i>T</i>", enqueue=False
    )
    document_index(document_id=doc.pk)
    client.force_login(owner)
    page = client.get(reverse("document-detail", args=[doc.pk])).content.decode()
    assert (
        "<script>alert" not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    )
    assert "<i>T</i>" not in page


def test_healthz(client):
    assert client.get("/healthz").json() == {"status": "ok"}
