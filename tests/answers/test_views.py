"""The ask, answer, citation, history and compare pages: who may open them, asking through the
page (the offline answerer answers, tasks run eagerly), polling that stops with 286, the per-user
rate limit, escaping of answer and document text, and the history page's query count."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from legalnav.answers import ratelimit, selectors
from legalnav.answers.models import Answer, Citation, Evidence, Question
from legalnav.answers.services import query_answer, query_create
from legalnav.documents.models import Document, Node
from legalnav.documents.services import document_add, document_index
from legalnav.matters.models import AuditEvent, Membership
from tests.conftest import MatterFactory, MembershipFactory, UserFactory, demo_bytes

pytestmark = pytest.mark.django_db

QUESTION = "Which state's law governs the Development Agreement?"


@pytest.fixture(autouse=True)
def _fresh_rate_limit():
    """The rate limit counts in Django's cache, which outlives a test's database."""
    cache.clear()
    yield
    cache.clear()


def index_agreement(matter) -> Document:
    doc, _ = document_add(
        matter=matter,
        filename="bioamber-development-agreement.txt",
        data=demo_bytes("bioamber-development-agreement.txt"),
        kind="agreement",
        title="Development Agreement",
        enqueue=False,
    )
    assert document_index(document_id=doc.pk).status == "indexed"
    return doc


@pytest.fixture
def agreement(matter) -> Document:
    return index_agreement(matter)


def answered(matter, question: str = QUESTION, mode: str = "navembed", user=None) -> Question:
    query = query_create(matter=matter, user=user, question=question, mode=mode, enqueue=False)
    query = query_answer(query_id=query.pk)
    assert query is not None and query.status == Question.Status.ANSWERED, query.error_message
    return query


@pytest.fixture
def answered_query(agreement, owner, settings) -> Question:
    # Ten evidence rows (no cut-off), so that the pinned query counts cover many rows.
    settings.LEGALNAV_EVIDENCE_CUTOFF = 0.0
    return answered(agreement.matter, user=owner)


def urls_for(query: Question) -> dict[str, str]:
    m, q = query.matter_id, query.pk
    citation = Citation.objects.filter(answer__question=query).first()
    out = {
        "ask": reverse("matter-ask", args=[m]),
        "history": reverse("matter-history", args=[m]),
        "compare": reverse("answer-compare", args=[m]) + f"?q={q}&q={q}",
        "detail": reverse("answer-detail", args=[m, q]),
        "memo": reverse("answer-memo", args=[m, q]),  # POST only: see open()
    }
    if citation is not None:
        out["citation"] = reverse("answer-citation", args=[m, q, citation.pk])
    return out


def open_(client, name: str, url: str):
    """What a page of urls_for answers: the memo is exported with a POST, the rest are GETs."""
    return client.post(url) if name == "memo" else client.get(url)


# --- who may open what -----------------------------------------------------------------------


def test_every_view_sends_the_anonymous_to_sign_in(client, answered_query):
    for name, url in urls_for(answered_query).items():
        response = client.get(url)
        assert response.status_code == 302, name
        assert "/accounts/login/" in response["Location"], name
    for url in (
        reverse("matter-ask", args=[answered_query.matter_id]),
        reverse("answer-retry", args=[answered_query.matter_id, answered_query.pk]),
    ):
        response = client.post(url, {"question": "x"})
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert Question.objects.count() == 1


def test_every_view_refuses_a_non_member_with_404(client, answered_query):
    stranger = UserFactory()
    MembershipFactory(user=stranger)  # a member of some other matter
    client.force_login(stranger)
    for name, url in urls_for(answered_query).items():
        assert open_(client, name, url).status_code == 404, name
    assert client.get(urls_for(answered_query)["detail"], HTTP_HX_REQUEST="true").status_code == 404
    ask = reverse("matter-ask", args=[answered_query.matter_id])
    assert client.post(ask, {"question": QUESTION}).status_code == 404
    retry = reverse("answer-retry", args=[answered_query.matter_id, answered_query.pk])
    assert client.post(retry).status_code == 404
    assert Question.objects.count() == 1
    assert not AuditEvent.objects.filter(user=stranger).exists()


def test_a_question_of_matter_a_is_not_found_under_matter_b(client, answered_query, owner):
    other = MatterFactory(name="Matter B")
    MembershipFactory(matter=other, user=owner)  # the owner may see both matters
    client.force_login(owner)
    q = answered_query.pk
    citation = Citation.objects.filter(answer__question=answered_query).first()
    for url in (
        reverse("answer-detail", args=[other.pk, q]),
        reverse("answer-citation", args=[other.pk, q, citation.pk]),
        reverse("answer-compare", args=[other.pk]) + f"?q={q}&q={q + 1}",
    ):
        assert client.get(url).status_code == 404, url
    assert client.post(reverse("answer-memo", args=[other.pk, q])).status_code == 404
    assert client.post(reverse("answer-retry", args=[other.pk, q])).status_code == 404
    # and a citation of another question, under the right matter, is not found either
    second = answered(answered_query.matter, question="How long does the agreement last?")
    assert (
        client.get(
            reverse("answer-citation", args=[answered_query.matter_id, second.pk, citation.pk])
        ).status_code
        == 404
    )
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.EXPORTED).exists()


def test_a_viewer_may_ask_and_forms_need_csrf(agreement):
    viewer = MembershipFactory(matter=agreement.matter, role=Membership.Role.VIEWER).user
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(viewer)
    ask = reverse("matter-ask", args=[agreement.matter_id])
    assert strict.get(ask).status_code == 200
    assert strict.post(ask, {"question": QUESTION, "mode": "navembed"}).status_code == 403
    assert Question.objects.count() == 0
    page = strict.get(ask).content.decode()
    assert 'name="csrfmiddlewaretoken"' in page


# --- asking through the page -----------------------------------------------------------------


def test_asking_creates_a_query_and_the_page_shows_the_answer_with_citations(
    client, agreement, owner, django_capture_on_commit_callbacks
):
    client.force_login(owner)
    ask = reverse("matter-ask", args=[agreement.matter_id])
    page = client.get(ask).content.decode()
    assert 'name="question"' in page and 'value="navindex"' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(ask, {"question": QUESTION, "mode": "navembed"})
    query = Question.objects.get()
    assert response.status_code == 303
    assert response["Location"] == reverse("answer-detail", args=[agreement.matter_id, query.pk])
    assert query.asked_by == owner and query.mode == "navembed"
    assert AuditEvent.objects.filter(
        matter=agreement.matter, user=owner, action="asked", target=f"question Q{query.pk}"
    ).exists()

    page = client.get(response["Location"]).content.decode()
    query.refresh_from_db()
    assert query.status == Question.Status.ANSWERED
    assert "Minnesota" in page
    assert "Offline extractive answerer" in page  # which answerer answered
    citation = Citation.objects.filter(answer__question=query, valid=True).first()
    cite_url = reverse("answer-citation", args=[agreement.matter_id, query.pk, citation.pk])
    assert f'hx-get="{cite_url}"' in page and 'hx-target="#provision-panel"' in page
    assert 'id="provision-panel"' in page
    for heading in ("Supporting", "Adverse", "Neutral", "Cost", "Token footprint", "Cache read"):
        assert heading in page, heading
    assert "Navigating is the cheaper mode" in page or "Inject is the cheaper mode" in page

    # The side panel: the provision verbatim, the quoted words highlighted, a link to the reader.
    panel = client.get(cite_url, HTTP_HX_REQUEST="true")
    assert panel.status_code == 200
    html = panel.content.decode()
    node = citation.node
    assert "<html" not in html  # a fragment, not a page
    assert "<mark>" in html and "State of Minnesota" in html
    reader = reverse("document-detail", args=[node.document_id]) + f"#{node.node_id}"
    assert f'href="{reader}"' in html
    assert "Governing Law" in html
    full = client.get(cite_url)  # without htmx: a page of its own
    assert full.status_code == 200 and "<html" in full.content.decode()


def test_htmx_ask_returns_the_answer_fragment_and_pushes_its_url(
    client, agreement, owner, django_capture_on_commit_callbacks
):
    client.force_login(owner)
    ask = reverse("matter-ask", args=[agreement.matter_id])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            ask, {"question": QUESTION, "mode": "navembed"}, HTTP_HX_REQUEST="true"
        )
    query = Question.objects.get()
    assert response.status_code == 200
    assert response["HX-Push-Url"] == reverse("answer-detail", args=[agreement.matter_id, query.pk])
    html = response.content.decode()
    # The test's transaction holds the task until the response is made: the fragment polls.
    assert 'id="answer-live"' in html and "<html" not in html
    assert f'hx-get="{response["HX-Push-Url"]}"' in html and 'hx-trigger="every 1s"' in html
    final = client.get(response["HX-Push-Url"], HTTP_HX_REQUEST="true")
    assert final.status_code == 286 and "Minnesota" in final.content.decode()
    assert '<option value="navindex">navindex</option>' in final.content.decode()  # re-ask


@pytest.mark.django_db(transaction=True)
def test_htmx_ask_answered_at_once_renders_the_whole_answer(client, agreement, owner):
    """On the embedded default (no transaction around the request, tasks in-process) the answer
    task runs on commit inside the POST, so its own fragment is the final answer."""
    client.force_login(owner)
    ask = reverse("matter-ask", args=[agreement.matter_id])
    response = client.post(ask, {"question": QUESTION, "mode": "navembed"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and 'data-status="answered"' in html
    assert "hx-trigger" not in html.split("answer-grid")[0]  # nothing left to poll
    assert "Minnesota" in html and 'id="provision-panel"' in html
    assert '<option value="inject">inject</option>' in html


def test_polling_continues_while_answering_and_stops_with_286(client, agreement, owner):
    client.force_login(owner)
    query = query_create(matter=agreement.matter, user=owner, question=QUESTION, enqueue=False)
    url = reverse("answer-detail", args=[agreement.matter_id, query.pk])
    waiting = client.get(url, HTTP_HX_REQUEST="true")
    assert waiting.status_code == 200
    assert 'hx-trigger="every 1s"' in waiting.content.decode()
    query_answer(query_id=query.pk)
    done = client.get(url, HTTP_HX_REQUEST="true")
    assert done.status_code == 286
    html = done.content.decode()
    assert "hx-trigger" not in html.split('id="provision-panel"')[0].split("answer-live")[1][:400]
    assert "Minnesota" in html


def test_a_failed_answer_shows_why_and_retry_answers_it(
    client, agreement, owner, django_capture_on_commit_callbacks
):
    client.force_login(owner)
    query = query_create(matter=agreement.matter, user=owner, question=QUESTION, enqueue=False)
    Question.objects.filter(pk=query.pk).update(
        status=Question.Status.FAILED, error_message="Claude was unavailable (overloaded)."
    )
    url = reverse("answer-detail", args=[agreement.matter_id, query.pk])
    failed = client.get(url, HTTP_HX_REQUEST="true")
    assert failed.status_code == 286  # failed is final: polling stops
    html = failed.content.decode()
    retry = reverse("answer-retry", args=[agreement.matter_id, query.pk])
    assert "Claude was unavailable (overloaded)." in html and f'hx-post="{retry}"' in html
    assert ">Retry<" in html
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(retry, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    query.refresh_from_db()
    assert query.status == Question.Status.ANSWERED and "Minnesota" in query.answer.text
    assert AuditEvent.objects.filter(target=f"question Q{query.pk} (retry)").exists()


def test_an_unusable_question_is_refused_with_its_reason_and_kept(client, agreement, owner):
    client.force_login(owner)
    ask = reverse("matter-ask", args=[agreement.matter_id])
    response = client.post(ask, {"question": "   ", "mode": "auto"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422 and "Type a question first." in response.content.decode()
    long = "Which law? " * 2000
    response = client.post(ask, {"question": long, "mode": "telepathy"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "limited to 20,000 characters" in page and "Which law? Which law?" in page
    assert Question.objects.count() == 0


# --- the rate limit --------------------------------------------------------------------------


def test_asking_is_rate_limited_per_user_with_429_and_a_message(client, agreement, owner, settings):
    settings.LEGALNAV_ASK_RATE_PER_MINUTE = 2
    client.force_login(owner)
    ask = reverse("matter-ask", args=[agreement.matter_id])
    # A refused empty question does not use up the allowance.
    assert client.post(ask, {"question": ""}, HTTP_HX_REQUEST="true").status_code == 422
    for _ in range(2):
        assert client.post(ask, {"question": QUESTION}).status_code == 303
    limited = client.post(ask, {"question": QUESTION}, HTTP_HX_REQUEST="true")
    assert limited.status_code == 429
    assert "2 questions in the last minute" in limited.content.decode()
    assert 1 <= int(limited["Retry-After"]) <= 120
    page = client.post(ask, {"question": "Who are the parties?"})
    assert page.status_code == 429 and "Try again in" in page.content.decode()
    assert "Who are the parties?" in page.content.decode()  # what was typed is kept
    assert Question.objects.count() == 2
    # Another user has an allowance of their own.
    colleague = MembershipFactory(matter=agreement.matter, role=Membership.Role.EDITOR).user
    client.force_login(colleague)
    assert client.post(ask, {"question": QUESTION}).status_code == 303


def test_the_rate_window_slides(settings):
    settings.LEGALNAV_ASK_RATE_PER_MINUTE = 3
    t0 = 6_000_000.0  # the start of a minute
    for i in range(3):
        assert ratelimit.ask_rate_take(user_id=7, now=t0 + i).allowed
    refused = ratelimit.ask_rate_take(user_id=7, now=t0 + 10)
    assert not refused.allowed and refused.retry_after >= 50
    # Early in the next minute the last minute's three still count almost fully...
    assert not ratelimit.ask_rate_take(user_id=7, now=t0 + 65).allowed
    # ...and once a third of the minute has passed, one more fits (3 × 2/3 + 1 = 3).
    assert ratelimit.ask_rate_take(user_id=7, now=t0 + 80).allowed
    assert not ratelimit.ask_rate_take(user_id=7, now=t0 + 81).allowed
    settings.LEGALNAV_ASK_RATE_PER_MINUTE = 0  # 0: no limit
    assert ratelimit.ask_rate_take(user_id=7, now=t0 + 82).allowed


# --- escaping --------------------------------------------------------------------------------


def fake_answer(query: Question, text: str, *, node: Node | None = None) -> Answer:
    answer = Answer.objects.create(
        question=query,
        text=text,
        answerer="claude-sonnet-4-6",
        validation={"ok": True, "citations": 1, "quotes": 0, "problems": []},
        context_tokens=1200,
        token_footprint=1500,
        dollars=Decimal("0.0123"),
        inject_tokens=40_000,
        inject_dollars=Decimal("0.012"),
        crossover={"corpus_tokens": 40_000, "payload_tokens": 1200, "inject_cheaper": False},
    )
    Question.objects.filter(pk=query.pk).update(
        status=Question.Status.ANSWERED, mode_used="navembed"
    )
    if node is not None:
        Citation.objects.create(
            answer=answer,
            document=node.document,
            node=node,
            doc_key=node.document.key,
            node_ref=node.node_id,
        )
    return answer


def test_answer_and_document_text_are_escaped(client, matter, owner):
    doc, _ = document_add(
        matter=matter,
        filename="hostile.txt",
        data=(
            b"1. Definitions. <script>alert('doc')</script> means <b>nothing</b>.\n\n"
            b"2. Term. This Agreement lasts one year.\n"
        ),
        enqueue=False,
    )
    document_index(document_id=doc.pk)
    node = Node.objects.filter(document=doc, text__contains="<script>").first()
    assert node is not None
    query = query_create(matter=matter, user=owner, question="<img src=x onerror=alert(1)>?")
    fake_answer(
        query, f"It is <script>alert('answer')</script> “x” [{doc.key}:{node.node_id}]", node=node
    )
    client.force_login(owner)
    citation = Citation.objects.get()
    for url in (
        reverse("answer-detail", args=[matter.pk, query.pk]),
        reverse("matter-history", args=[matter.pk]),
        reverse("answer-compare", args=[matter.pk])
        + f"?q={query.pk}&q={answered_plain(matter, owner).pk}",
        reverse("answer-citation", args=[matter.pk, query.pk, citation.pk]),
    ):
        html = client.get(url).content.decode()
        assert "<script>alert(" not in html, url
        assert "<img src=x" not in html, url
        assert "<b>nothing" not in html, url
    detail = client.get(reverse("answer-detail", args=[matter.pk, query.pk])).content.decode()
    assert "&lt;script&gt;alert(&#x27;answer&#x27;)&lt;/script&gt;" in detail
    assert "&lt;img src=x onerror=alert(1)&gt;?" in detail
    panel = client.get(reverse("answer-citation", args=[matter.pk, query.pk, citation.pk]))
    assert "&lt;script&gt;alert(&#x27;doc&#x27;)&lt;/script&gt;" in panel.content.decode()


def answered_plain(matter, user) -> Question:
    query = query_create(matter=matter, user=user, question="What is the term?")
    fake_answer(query, "One year.")
    return query


# --- panels ----------------------------------------------------------------------------------


def test_evidence_is_bucketed_supporting_adverse_neutral(matter, owner):
    base, _ = document_add(
        matter=matter,
        filename="base.txt",
        title="Services Agreement",
        data=(
            b"1. Term. This Agreement lasts two years from the Effective Date.\n\n"
            b"2. Renewal. Notwithstanding Section 1, either party may end it on notice.\n\n"
            b"3. Notices. Notices are given in writing to the addresses below.\n"
        ),
        kind="agreement",
        enqueue=False,
    )
    amendment, _ = document_add(
        matter=matter,
        filename="amendment.txt",
        title="First Amendment",
        data=b"1. Amendment. Section 1 of the Agreement is amended to read three years.\n",
        kind="amendment",
        amends=base,
        enqueue=False,
    )
    for doc in (base, amendment):
        document_index(document_id=doc.pk)
    nodes = {n.label: n for n in Node.objects.filter(document=base)}
    amending = Node.objects.filter(document=amendment, label="1").get()
    query = query_create(matter=matter, user=owner, question="How long is the term?")
    answer = fake_answer(query, f"Two years [{base.key}:{nodes['1'].node_id}]", node=nodes["1"])
    for rank, node in enumerate([nodes["1"], amending, nodes["2"], nodes["3"]]):
        Evidence.objects.create(
            answer=answer,
            node=node,
            document=node.document,
            start=node.start,
            end=node.end,
            score=1 / (rank + 1),
            rank=rank,
        )
    buckets = selectors.evidence_buckets(
        answer=answer, citations=selectors.answer_citations(answer=answer)
    )
    assert [r.node.pk for r in buckets.supporting] == [nodes["1"].pk]
    assert [r.node.pk for r in buckets.adverse] == [amending.pk, nodes["2"].pk]
    assert "amendment of a cited document" in buckets.adverse[0].reason
    assert "notwithstanding" in buckets.adverse[1].reason.lower()
    assert [r.node.pk for r in buckets.neutral] == [nodes["3"].pk]
    assert "two years" in buckets.supporting[0].snippet


def test_citation_problems_are_shown_not_hidden(client, agreement, owner):
    query = query_create(matter=agreement.matter, user=owner, question=QUESTION)
    answer = fake_answer(query, f"It is Delaware: “the laws of Delaware” [{agreement.key}:s13.2]")
    node = Node.objects.get(document=agreement, node_id="s13.2")
    Citation.objects.create(
        answer=answer,
        document=agreement,
        node=node,
        doc_key=agreement.key,
        node_ref="s13.2",
        quote="the laws of Delaware",
        valid=False,
        problem="quoted text is not in the cited provision",
    )
    Answer.objects.filter(pk=answer.pk).update(
        validation={
            "ok": False,
            "problems": [f"[{agreement.key}:s13.2] quoted text is not in the cited provision"],
        }
    )
    client.force_login(owner)
    page = client.get(reverse("answer-detail", args=[agreement.matter_id, query.pk])).content
    html = page.decode()
    assert "1 citation problem" in html
    assert "quoted text is not in the cited provision" in html
    assert "cite-bad" in html and "not verbatim" in html
    assert "Answered by Claude · claude-sonnet-4-6" in html


def test_cost_panel_shows_ledger_tokens_dollars_and_the_inject_verdict(client, answered_query):
    client.force_login(answered_query.asked_by)
    html = client.get(
        reverse("answer-detail", args=[answered_query.matter_id, answered_query.pk])
    ).content.decode()
    answer = answered_query.answer
    cost = selectors.cost_panel(query=answered_query, answer=answer)
    assert cost.input_tokens == answer.token_footprint > 0  # offline: one estimated ledger row
    assert cost.estimated and cost.dollars == 0
    assert f"{cost.input_tokens:,}" in html and f"{answer.inject_tokens:,}" in html
    assert "Offline answerer: token counts are the offline tokenizer" in html
    assert cost.crossover_tokens == answer.context_tokens * 10  # the default card: 3.00 / 0.30
    assert escape(cost.verdict) in html


def test_each_marker_is_flagged_by_its_own_quotes():
    text = (
        "It lasts “four (4) years” and “nine years” [D1:s10.1]\n"
        "See also “continue for four” [D1:s10.1] and [D1] Section 2.2 and [D9:s1]."
    )
    rows = [
        Citation(doc_key="D1", node_ref="s10.1", quote="four (4) years", valid=True, order=0),
        Citation(
            doc_key="D1",
            node_ref="s10.1",
            quote="nine years",
            valid=False,
            order=1,
            problem="quoted text is not in the cited provision",
        ),
        Citation(doc_key="D1", node_ref="s10.1", quote="continue for four", valid=True, order=2),
        Citation(doc_key="D1", node_ref="clause:2.2", valid=True, order=3),
        Citation(
            doc_key="D9",
            node_ref="s1",
            valid=False,
            order=4,
            problem="no such document or provision in this matter",
        ),
    ]
    paragraphs = selectors.answer_paragraphs(text=text, citations=rows)
    markers = [seg for para in paragraphs for seg in para if seg.citation is not None]
    assert [m.text for m in markers] == ["[D1:s10.1]", "[D1:s10.1]", "[D1] Section 2.2", "[D9:s1]"]
    assert [m.ok for m in markers] == [False, True, True, False]
    assert markers[0].problem == "quoted text is not in the cited provision"
    assert markers[1].citation is rows[2] and markers[2].citation is rows[3]
    assert "".join(seg.text for seg in paragraphs[0]) == text.split("\n")[0]


def test_panel_context_is_cut_at_word_boundaries():
    text = "alpha beta gamma delta epsilon"
    from legalnav.answers import snapshots

    assert snapshots.head(text, 13) == "alpha beta …"
    assert snapshots.tail(text, 15) == "… delta epsilon"
    assert snapshots.head(text, 100) == text == snapshots.tail(text, 100)


# --- history and compare ---------------------------------------------------------------------


def make_history(matter, users, n: int) -> None:
    for i in range(n):
        query = query_create(
            matter=matter, user=users[i % len(users)], question=f"Question {i}?", mode="navembed"
        )
        if i % 3 == 2:
            Question.objects.filter(pk=query.pk).update(
                status=Question.Status.FAILED, error_message="boom"
            )
        else:
            fake_answer(query, f"Answer {i} [D1:s1]")


def test_history_lists_questions_with_excerpt_mode_cost_asker(
    client, matter, owner, django_assert_num_queries
):
    colleague = MembershipFactory(matter=matter, role=Membership.Role.VIEWER).user
    make_history(matter, [owner, colleague], 3)
    client.force_login(owner)
    url = reverse("matter-history", args=[matter.pk])
    # session, user, matter, membership, count, the page of questions with answers and askers
    with django_assert_num_queries(6):
        small = client.get(url)
    make_history(matter, [owner, colleague], 12)
    with django_assert_num_queries(6):
        big = client.get(url)
    html = big.content.decode()
    assert small.status_code == big.status_code == 200
    assert html.count('name="q"') == 15
    assert "Answer 0" in html and "$0.0123" in html and "navembed" in html
    assert colleague.username in html and owner.username in html
    assert "Failed: boom" in html
    assert html.count(">Re-ask</button>") == 15


def test_reask_in_another_mode_and_compare_side_by_side(
    client, answered_query, owner, django_capture_on_commit_callbacks
):
    client.force_login(owner)
    matter_id = answered_query.matter_id
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("matter-ask", args=[matter_id]),
            {"question": answered_query.question, "mode": "inject"},
        )
    assert response.status_code == 303
    again = Question.objects.exclude(pk=answered_query.pk).get()
    assert again.mode == "inject" and again.question == answered_query.question
    assert again.status == Question.Status.ANSWERED
    # An inject answer has no navigate payload to weigh the matter against: the panel says so.
    verdict = selectors.cost_panel(query=again, answer=again.answer)
    assert verdict.inject_cheaper is None and "injected the whole matter" in verdict.verdict
    url = reverse("answer-compare", args=[matter_id]) + f"?q={answered_query.pk}&q={again.pk}"
    html = client.get(url).content.decode()
    assert "Answer A" in html and "Answer B" in html
    assert "mode navembed" in html and "mode inject" in html
    assert html.count('class="answer-text"') == 2
    assert "Cited by both" in html
    refused = client.get(reverse("answer-compare", args=[matter_id]) + f"?q={again.pk}")
    assert refused.status_code == 400
    assert "Choose exactly two different questions" in refused.content.decode()


def test_answer_page_query_count_is_pinned(client, answered_query, django_assert_num_queries):
    client.force_login(answered_query.asked_by)
    url = reverse("answer-detail", args=[answered_query.matter_id, answered_query.pk])
    assert answered_query.answer.citations.count() >= 2
    assert answered_query.answer.evidence.count() >= 5
    # session, user, matter, membership, question with answer, citations, evidence, ledger
    with django_assert_num_queries(8):
        assert client.get(url).status_code == 200
    with django_assert_num_queries(8):
        assert client.get(url, HTTP_HX_REQUEST="true").status_code == 286


@pytest.mark.parametrize(
    ("crossover", "verdict", "cheaper"),
    [
        (
            {"corpus_tokens": 812_345, "payload_tokens": 3_000, "inject_cheaper": False},
            "Inject cannot answer here at all: the matter's 812,345 tokens exceed the model's "
            "context window (190,000 tokens)",
            False,
        ),
        ({}, "No inject comparison was recorded with this answer", None),
        (
            {"corpus_tokens": 40_000, "payload_tokens": 1_200, "inject_cheaper": False},
            "Navigating is the cheaper mode here: the matter's 40,000 tokens",
            False,
        ),
    ],
)
def test_the_cost_verdict_never_calls_an_impossible_inject_cheaper(
    matter, owner, crossover, verdict, cheaper
):
    from legalnav.answers.selectors import cost_panel

    query = query_create(matter=matter, user=owner, question="What is the term?", enqueue=False)
    answer = fake_answer(query, "It lasts one year.")
    Answer.objects.filter(pk=answer.pk).update(
        crossover=crossover, inject_tokens=crossover.get("corpus_tokens", 0)
    )
    answer.refresh_from_db()
    query.refresh_from_db()
    panel = cost_panel(query=query, answer=answer)
    assert panel.verdict.startswith(verdict)
    assert panel.inject_cheaper is cheaper
