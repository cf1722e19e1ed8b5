"""The matter page and the reader in a browser: upload a real agreement through the file input
and watch a Celery worker index it while the page polls; read it with its cross-references,
defined terms and the as-amended note; a viewer cannot upload."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from legalnav.celery import app as celery_app
from legalnav.documents.models import Document
from legalnav.matters.models import Membership
from tests.browser.conftest import shot, sign_in
from tests.conftest import DEMO, MatterFactory, MembershipFactory, index_bioamber_pair

pytestmark = pytest.mark.django_db(transaction=True)

AGREEMENT = DEMO / "bioamber-development-agreement.txt"
AMENDMENT = DEMO / "bioamber-development-agreement-first-amendment.txt"


@pytest.fixture
def queued_tasks(settings) -> Iterator[None]:
    """Tasks go to Celery's in-memory broker instead of running at once, so the page shows a
    queued document until a worker (started by the test) picks it up."""
    settings.TASK_RUNNER = "celery"
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    yield
    celery_app.conf.task_always_eager = before


def test_upload_a_real_agreement_and_watch_it_get_indexed(page, queued_tasks) -> None:
    from celery.contrib.testing.worker import start_worker

    member = MembershipFactory(matter=MatterFactory(name="BioAmber development"))
    sign_in(page, member.user.username)
    page.goto(f"/matters/{member.matter.pk}/")
    expect(page.locator(".empty-row")).to_contain_text("No documents in this matter yet")

    page.locator("#upload-files").set_input_files(str(AGREEMENT))
    # desk.js lists the chosen file before anything is sent.
    expect(page.locator("[data-chosen] li")).to_have_text(
        re.compile(r"bioamber-development-agreement\.txt · \d+ KB")
    )
    page.get_by_role("button", name="Upload and index").click()
    page.wait_for_url(f"**/matters/{member.matter.pk}/")
    doc = Document.objects.get(matter=member.matter)
    expect(page.locator(".messages")).to_contain_text(
        f"Added “bioamber-development-agreement.txt” as {doc.key}; indexing has started."
    )
    row = page.locator(f"#doc-{doc.pk}")
    # No worker yet: the row says queued, shows a progress bar, and the table polls.
    expect(row.locator(".pill")).to_have_text("Queued")
    expect(row.get_by_role("progressbar")).to_be_visible()
    expect(page.locator("#documents")).to_have_attribute("hx-trigger", "every 2s")
    page.evaluate("window.__same_page = true")  # gone if anything reloads the page
    shot(page, "1280-matter-indexing")

    with start_worker(celery_app, perform_ping_check=False, shutdown_timeout=10):
        expect(row.locator(".pill")).to_have_text("Indexed", timeout=30_000)
    doc.refresh_from_db()
    assert doc.status == Document.Status.INDEXED and doc.node_count > 50
    expect(row).to_contain_text(f"{doc.node_count} clauses")
    expect(row.get_by_role("link", name=doc.title)).to_have_attribute(
        "href", f"/documents/{doc.pk}/"
    )
    # The final fragment (HTTP 286) stops the polling; the page itself was never reloaded.
    expect(page.locator("#documents")).not_to_have_attribute("hx-get", re.compile(".*"))
    assert page.evaluate("window.__same_page") is True
    assert page.js_errors == []
    shot(page, "matter-after-upload")


DROP = """(form, files) => {
  const data = new DataTransfer();
  for (const [name, text] of files) data.items.add(new File([text], name, {type: "text/plain"}));
  for (const type of ["dragenter", "dragover", "drop"]) {
    form.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: data}));
  }
}"""


def test_drop_two_files_on_the_upload_box_and_both_are_added(page) -> None:
    member = MembershipFactory(matter=MatterFactory(name="Dropped files"))
    sign_in(page, member.user.username)
    page.goto(f"/matters/{member.matter.pk}/")
    form = page.locator("form[data-dropzone]")
    names = [AGREEMENT.name, AMENDMENT.name]
    files = [[AGREEMENT.name, AGREEMENT.read_text()], [AMENDMENT.name, AMENDMENT.read_text()]]
    form.evaluate(DROP, files)  # what a browser does when files are dropped on the box
    # desk.js put the dropped files into the form's file input and listed them.
    assert page.locator("#upload-files").evaluate("i => [...i.files].map(f => f.name)") == names
    expect(page.locator("[data-chosen] li")).to_have_count(2)
    page.get_by_role("button", name="Upload and index").click()
    page.wait_for_url(f"**/matters/{member.matter.pk}/")
    for name in names:
        expect(page.locator(".messages")).to_contain_text(f"Added “{name}”")
    docs = Document.objects.filter(matter=member.matter)
    assert sorted(d.original_filename for d in docs) == sorted(names)
    # Indexed by the time the page shows them (tasks run at once on the embedded default).
    for doc in docs:
        expect(page.locator(f"#doc-{doc.pk} .pill")).to_have_text("Indexed")
    assert page.js_errors == []


def test_reader_cross_reference_defined_term_and_as_amended_note(page) -> None:
    member = MembershipFactory(matter=MatterFactory(name="BioAmber development"))
    base, amendment = index_bioamber_pair(member.matter)
    sign_in(page, member.user.username)
    page.goto(f"/documents/{base.pk}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Development Agreement")

    # The outline beside the text links to every clause and marks the amended ones.
    outline = page.get_by_role("navigation", name="Clause outline")
    expect(outline.locator('a[href="#s13.2"]')).to_contain_text("13.2")
    expect(outline.locator("li", has=page.locator('a[href="#s2.2"]'))).to_contain_text("amended")

    # A cross-reference in clause 1.2.4 ("Section 13.1") is a link to that clause.
    xref = page.locator("#s1\\.2\\.4 a.xref", has_text="Section 13.1")
    expect(xref).to_have_attribute("href", "#s13.1")
    xref.click()
    page.wait_for_url("**#s13.1")
    target = page.locator("#s13\\.1")
    expect(target).to_be_in_viewport()
    expect(target).to_contain_text("Third Party Patents")

    # A defined term shows its definition on hover and on keyboard focus.
    tip = page.locator("#term-tip")
    term = page.locator("#s1\\.2\\.1 a.term", has_text="Work Plan").first
    term.hover()
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("“Work Plan”:")
    shot(page, "1280-reader-term-tip", full_page=False)
    page.mouse.move(0, 0)
    expect(tip).to_be_hidden()
    cb1 = page.locator("#recitals\\(C\\) a.term", has_text="CB1").first
    cb1.focus()
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("“CB1”:")
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()

    # Section 2.2 carries the First Amendment's change beside it, with the amendment's link.
    note = page.locator("#s2\\.2 .amend-notes .amend-note")
    expect(note).to_have_count(1)
    expect(note.locator(".amend-head")).to_contain_text("Amended by")
    expect(note.locator(".amend-head a")).to_have_text(f"{amendment.key} First Amendment")
    expect(note.locator("blockquote")).to_contain_text(
        "Section 2.2 of the Development Agreement is hereby amended"
    )
    note.locator(".amend-head a").click()
    page.wait_for_url(f"**/documents/{amendment.pk}/**")
    expect(page.get_by_role("heading", level=1)).to_have_text("First Amendment")
    assert page.js_errors == []


def test_a_viewer_sees_no_upload_control_and_is_refused_an_upload(page) -> None:
    viewer = MembershipFactory(
        matter=MatterFactory(name="Read-only matter"), role=Membership.Role.VIEWER
    )
    sign_in(page, viewer.user.username)
    page.goto(f"/matters/{viewer.matter.pk}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Read-only matter")
    expect(page.locator('input[type="file"]')).to_have_count(0)
    expect(page.get_by_role("button", name="Upload and index")).to_have_count(0)

    # A hand-made POST with a valid CSRF token is refused by the role check (not by CSRF).
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        f"/matters/{viewer.matter.pk}/upload/",
        headers={"X-CSRFToken": token, "Referer": page.url},
        multipart={
            "files": {
                "name": AGREEMENT.name,
                "mimeType": "text/plain",
                "buffer": AGREEMENT.read_bytes(),
            }
        },
        max_redirects=0,
    )
    assert response.status == 403
    assert "Your role in this matter (viewer) does not allow this (edit)" in response.text()
    assert not Document.objects.filter(matter=viewer.matter).exists()
