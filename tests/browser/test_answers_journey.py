"""Asking in a browser: the question box, the answer filled in, a citation opened in the side
panel with its quote highlighted and followed into the reader; the memo downloaded and read back
as a PDF; history and comparison; the per-user rate limit; a non-member refused everywhere."""

from __future__ import annotations

import io
import re

import pytest
from playwright.sync_api import expect

from legalnav.answers.models import Question
from tests.browser.conftest import QUESTION, sign_in
from tests.conftest import MatterFactory, MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_ask_open_a_citation_in_the_side_panel_and_follow_it_to_the_reader(
    page, bioamber_docs, answering
) -> None:
    matter, owner, base = bioamber_docs.matter, bioamber_docs.owner, bioamber_docs.base
    sign_in(page, owner.username)
    page.goto(f"/matters/{matter.pk}/ask/")
    page.get_by_role("textbox", name="Question").fill(QUESTION)
    page.get_by_label("Mode").select_option("inject")
    page.get_by_role("button", name="Ask", exact=True).click()

    live = page.locator("#answer-live[data-status=answered]")
    expect(live).to_be_visible(timeout=60_000)
    query = Question.objects.get(matter=matter)
    assert query.question == QUESTION and query.mode == "inject" and query.asked_by == owner
    page.wait_for_url(f"**/matters/{matter.pk}/questions/{query.pk}/")  # HX-Push-Url
    expect(live.locator(".answer-text")).to_contain_text("State of Minnesota")
    expect(live.locator(".answer-meta")).to_contain_text("verified")

    # The governing-law citation opens in the side panel, verbatim, the quote highlighted.
    panel = page.locator("#provision-panel")
    expect(panel.locator(".panel-empty")).to_be_visible()
    cite = live.locator(".cited-list a.cite", has_text=f"{base.key}:s13.2")
    cite.click()
    expect(panel.locator(".cite-label")).to_have_text(f"{base.key}:s13.2")
    expect(panel.locator(".panel-title")).to_have_text("13.2 Governing Law")
    mark = panel.locator(".provision mark")
    expect(mark.first).to_contain_text("State of Minnesota")
    assert page.url.endswith(f"/questions/{query.pk}/")  # the panel opened in place
    page.evaluate("window.__answer_page = true")

    # Another citation replaces the panel's content; the link follows to the clause in the reader.
    other = live.locator(".cited-list a.cite").filter(has_not_text=f"{base.key}:s13.2").first
    label = other.inner_text().strip()
    other.click()
    expect(panel.locator(".cite-label")).to_have_text(label)
    expect(panel.locator(".panel-title")).not_to_have_text("13.2 Governing Law")
    cite.click()
    expect(panel.locator(".panel-title")).to_have_text("13.2 Governing Law")
    panel.get_by_role("link", name="Open in the reader →").click()
    page.wait_for_url(f"**/documents/{base.pk}/#s13.2")
    clause = page.locator("#s13\\.2")
    expect(clause).to_be_in_viewport()
    expect(clause).to_contain_text("laws of the State of Minnesota")
    assert page.evaluate("window.__answer_page === undefined")  # a new page, the reader
    assert page.js_errors == []


def test_export_the_memo_and_read_the_pdf_back(page, bioamber) -> None:
    from pypdf import PdfReader

    sign_in(page, bioamber.owner.username)
    page.goto(f"/matters/{bioamber.matter.pk}/questions/{bioamber.inject.pk}/")
    # A form that POSTs (the export is audited): the PDF downloads and the page stays put.
    button = page.get_by_role("button", name="Export memo (PDF)")
    with page.expect_download() as info:
        button.click()
    download = info.value
    assert download.suggested_filename.endswith(".pdf")
    data = open(download.path(), "rb").read()
    assert data.startswith(b"%PDF-")
    assert page.url.endswith(f"/questions/{bioamber.inject.pk}/")
    assert page.js_errors == []
    reader = PdfReader(io.BytesIO(data))
    text = " ".join(" ".join((p.extract_text() or "").split()) for p in reader.pages)
    assert QUESTION in text
    assert bioamber.matter.name in text
    # The cited governing-law clause, verbatim.
    assert (
        "This Development Agreement shall be governed by and construed in accordance with the "
        "laws of the State of Minnesota" in text
    )

    # The owner sees the export in the matter's audit trail.
    page.goto(f"/matters/{bioamber.matter.pk}/audit/")
    row = page.locator("tr", has_text="Exported")
    expect(row).to_have_count(1)
    expect(row).to_contain_text(f"Q{bioamber.inject.pk}")
    expect(row).to_contain_text(bioamber.owner.username)


def test_history_ticks_two_answers_and_compares_them(page, bioamber) -> None:
    matter = bioamber.matter
    sign_in(page, bioamber.owner.username)
    page.goto(f"/matters/{matter.pk}/history/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Questions asked")
    boxes = page.locator("input[name=q]")
    expect(boxes).to_have_count(2)
    page.get_by_label(f"Compare question Q{bioamber.inject.pk}").check()
    page.get_by_label(f"Compare question Q{bioamber.navindex.pk}").check()
    page.get_by_role("button", name="Compare the two ticked").click()
    page.wait_for_url(f"**/matters/{matter.pk}/compare/?q=*")
    expect(page.get_by_role("heading", level=1)).to_have_text("Two answers side by side")
    sides = page.locator(".compare-side")
    expect(sides).to_have_count(2)
    expect(page.locator(".answer-text")).to_have_count(2)
    expect(sides.nth(0)).to_contain_text("mode navindex")  # newest first: A is the later
    expect(sides.nth(1)).to_contain_text("mode inject")
    for i in range(2):
        expect(sides.nth(i).locator(".answer-text")).to_contain_text("State of Minnesota")
    expect(page.locator(".compare-summary")).to_contain_text(f"{bioamber.base.key}:s13.2")

    # Only one ticked: the history again with the reason.
    page.goto(f"/matters/{matter.pk}/history/")
    page.get_by_label(f"Compare question Q{bioamber.inject.pk}").check()
    page.get_by_role("button", name="Compare the two ticked").click()
    expect(page.locator(".alert-bad")).to_be_visible()
    assert page.js_errors == []


def test_a_second_question_within_the_minute_is_refused_and_kept(
    page, bioamber_docs, answering, settings
) -> None:
    bioamber = bioamber_docs
    settings.LEGALNAV_ASK_RATE_PER_MINUTE = 1
    sign_in(page, bioamber.owner.username)
    page.goto(f"/matters/{bioamber.matter.pk}/ask/")
    box = page.get_by_role("textbox", name="Question")
    box.fill(QUESTION)
    page.get_by_label("Mode").select_option("inject")
    ask = page.get_by_role("button", name="Ask", exact=True)
    ask.click()
    expect(page.locator("#answer-live[data-status=answered]")).to_be_visible(timeout=60_000)
    box.fill("Who are the parties?")
    ask.click()
    alert = page.locator("#answer-slot .alert")
    expect(alert).to_contain_text("Try again in")
    expect(alert).to_have_attribute("role", "alert")
    expect(box).to_have_value("Who are the parties?")  # nothing typed is lost
    asked = Question.objects.filter(matter=bioamber.matter, asked_by=bioamber.owner)
    assert asked.count() == 1  # the refused one was not taken
    assert page.js_errors == []


def test_a_non_member_is_refused_the_matter_reader_answer_citation_and_memo(page, bioamber) -> None:
    stranger = MembershipFactory(matter=MatterFactory(name="Stranger's own matter")).user
    matter, query = bioamber.matter, bioamber.inject
    citation = query.answer.citations.first()
    sign_in(page, stranger.username)
    urls = [
        f"/matters/{matter.pk}/",
        f"/matters/{matter.pk}/ask/",
        f"/matters/{matter.pk}/history/",
        f"/documents/{bioamber.base.pk}/",
        f"/documents/{bioamber.base.pk}/nodes/s13.2/",
        f"/matters/{matter.pk}/questions/{query.pk}/",
        f"/matters/{matter.pk}/questions/{query.pk}/citations/{citation.pk}/",
        f"/matters/{matter.pk}/compare/?q={query.pk}&q={bioamber.navindex.pk}",
    ]
    for url in urls:
        response = page.request.get(url)
        assert response.status == 404, url
        body = response.text()
        assert matter.name not in body and "Minnesota" not in body, url
        assert not body.startswith("%PDF"), url
    # The memo is exported with a POST: a GET is 405 for anyone, and tells nothing.
    memo = page.request.get(f"/matters/{matter.pk}/questions/{query.pk}/memo.pdf")
    assert memo.status == 405 and matter.name not in memo.text()
    # And in the page itself: the not-found page, nothing of the matter.
    response = page.goto(f"/matters/{matter.pk}/questions/{query.pk}/")
    assert response is not None and response.status == 404
    assert matter.name not in page.locator("body").inner_text()


def test_a_question_nobody_is_answering_can_be_cancelled_and_retried(
    page, bioamber_docs, answering, settings
) -> None:
    """The question goes to Celery's in-memory broker and no worker is running: the page shows
    it waiting with Cancel; Cancel ends it (no more polling) with Retry; a worker answers the
    retry and the page fills in by itself."""
    from celery.contrib.testing.worker import start_worker

    from legalnav.celery import app as celery_app

    settings.TASK_RUNNER = "celery"
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        matter, owner = bioamber_docs.matter, bioamber_docs.owner
        sign_in(page, owner.username)
        page.goto(f"/matters/{matter.pk}/ask/")
        page.get_by_role("textbox", name="Question").fill(QUESTION)
        page.get_by_role("button", name="Ask", exact=True).click()
        live = page.locator("#answer-live[data-status=queued]")
        expect(live).to_contain_text("Waiting for a worker")
        live.get_by_role("button", name="Cancel").click()
        cancelled = page.locator("#answer-live[data-status=cancelled]")
        expect(cancelled).to_contain_text("This question was cancelled")
        expect(cancelled).not_to_have_attribute("hx-get", re.compile(".*"))  # polling stopped
        query = Question.objects.get(matter=matter)
        assert query.status == "cancelled"
        with start_worker(celery_app, perform_ping_check=False, shutdown_timeout=10):
            cancelled.get_by_role("button", name="Retry").click()
            expect(page.locator("#answer-live[data-status=answered]")).to_be_visible(timeout=60_000)
        query.refresh_from_db()
        assert query.status == "answered" and query.attempts == 1
        assert page.js_errors == []
    finally:
        celery_app.conf.task_always_eager = before
