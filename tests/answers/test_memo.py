"""The PDF memo: a real PDF (read back with pypdf) holding the question, the answer, each cited
provision verbatim and page numbers; any member may export it, the export is audited, nobody else
gets it, and answer text is printed as text, never interpreted as markup."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse
from pypdf import PdfReader

from legalnav.answers.models import Citation, Question
from legalnav.answers.services import query_create
from legalnav.documents.models import Document
from legalnav.matters.models import AuditEvent, Membership
from tests.answers.test_views import answered, fake_answer, index_agreement
from tests.conftest import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def agreement(matter) -> Document:
    return index_agreement(matter)


@pytest.fixture
def answered_query(agreement, owner) -> Question:
    return answered(agreement.matter, user=owner)


def pdf_text(data: bytes) -> tuple[str, int]:
    reader = PdfReader(io.BytesIO(data))
    return "\n".join(page.extract_text() or "" for page in reader.pages), len(reader.pages)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_memo_is_a_pdf_with_question_cited_clause_and_page_numbers(client, answered_query, owner):
    client.force_login(owner)
    url = reverse("answer-memo", args=[answered_query.matter_id, answered_query.pk])
    response = client.post(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith("attachment; filename=")
    assert response.content.startswith(b"%PDF-")
    text, pages = pdf_text(response.content)
    text = flat(text)
    assert answered_query.question in text
    # The governing-law clause the answer cites, verbatim, with its document and clause.
    citation = Citation.objects.filter(answer__question=answered_query, valid=True).first()
    assert citation.node is not None
    assert "shall be governed by and construed in accordance with the laws of the State" in text
    assert "Development Agreement" in text and citation.node.heading in text
    assert f"[{citation.doc_key}:{citation.node_ref}]" in text
    assert f"Page 1 of {pages}" in text
    assert answered_query.matter.name in text
    assert "navembed" in text and "offline extractive answerer" in text
    event = AuditEvent.objects.get(action=AuditEvent.Action.EXPORTED)
    assert event.user == owner and event.matter_id == answered_query.matter_id
    assert event.target == f"memo of question Q{answered_query.pk}"


def test_a_viewer_may_export_and_a_stranger_may_not(client, answered_query):
    viewer = MembershipFactory(matter=answered_query.matter, role=Membership.Role.VIEWER).user
    url = reverse("answer-memo", args=[answered_query.matter_id, answered_query.pk])
    client.force_login(viewer)
    assert client.post(url).status_code == 200
    stranger = UserFactory()
    client.force_login(stranger)
    assert client.post(url).status_code == 404
    client.logout()
    response = client.post(url)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert list(AuditEvent.objects.values_list("user", flat=True)) == [viewer.pk]


def test_an_unanswered_question_has_no_memo(client, agreement, owner):
    query = query_create(matter=agreement.matter, user=owner, question="Who are the parties?")
    client.force_login(owner)
    response = client.post(reverse("answer-memo", args=[agreement.matter_id, query.pk]))
    assert response.status_code == 409
    assert "Only an answered question" in response.content.decode()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.EXPORTED).exists()


def test_memo_prints_markup_in_answers_as_text(client, agreement, owner):
    query = query_create(
        matter=agreement.matter, user=owner, question="Is <b>this</b> bold?", enqueue=False
    )
    fake_answer(query, "It says <script>alert(1)</script> and <b>not bold</b>.")
    client.force_login(owner)
    response = client.post(reverse("answer-memo", args=[agreement.matter_id, query.pk]))
    text = flat(pdf_text(response.content)[0])
    assert "Is <b>this</b> bold?" in text
    assert "<script>alert(1)</script>" in text and "<b>not bold</b>" in text
    assert Question.objects.get(pk=query.pk).status == Question.Status.ANSWERED


def test_memo_lists_a_failed_citation_with_its_problem(client, agreement, owner):
    query = answered(agreement.matter, user=owner)
    answer = query.answer
    Citation.objects.create(
        answer=answer,
        doc_key="D999",
        node_ref="s1",
        valid=False,
        problem="no such document or provision in this matter",
        order=99,
    )
    client.force_login(owner)
    response = client.post(reverse("answer-memo", args=[agreement.matter_id, query.pk]))
    text = flat(pdf_text(response.content)[0])
    assert "[D999:s1]" in text and "no such document or provision in this matter" in text


# --- no writes behind GET -------------------------------------------------------------------


def test_memo_export_is_a_post_a_get_is_405_and_writes_nothing(client, answered_query, owner):
    """An export writes an audit row, so it is a POST: a GET (a prefetch, a crawler, an <img>
    on another site) is refused with 405 and leaves the trail alone."""
    client.force_login(owner)
    url = reverse("answer-memo", args=[answered_query.matter_id, answered_query.pk])
    response = client.get(url)
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert not response.content.startswith(b"%PDF")
    assert client.head(url).status_code == 405
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.EXPORTED).exists()


def test_the_answer_page_exports_with_a_csrf_protected_form(answered_query, owner):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    url = reverse("answer-memo", args=[answered_query.matter_id, answered_query.pk])
    assert client.post(url).status_code == 403  # no CSRF token: refused, nothing exported
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.EXPORTED).exists()
    detail = reverse("answer-detail", args=[answered_query.matter_id, answered_query.pk])
    page = client.get(detail).content.decode()
    form = page[page.index(f'action="{url}"') :]
    form = form[: form.index("</form>")]
    assert 'method="post"' in page[page.rindex("<form", 0, page.index(f'action="{url}"')) :][:80]
    assert "Export memo (PDF)" in form
    token = form.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    response = client.post(url, {"csrfmiddlewaretoken": token})
    assert response.status_code == 200 and response.content.startswith(b"%PDF-")
    assert AuditEvent.objects.filter(action=AuditEvent.Action.EXPORTED, user=owner).count() == 1
