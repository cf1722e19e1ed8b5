"""A data room in a browser: a zip chosen in the file input becomes documents with their folders
while a Celery worker indexes them; the batch shows one progress, the folder filter narrows the
table, and the amendment's proposed link is accepted with one click."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from legalnav.celery import app as celery_app
from legalnav.documents.models import Document, DocumentCopy
from tests.browser.conftest import shot, sign_in
from tests.conftest import DEMO, MatterFactory, MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)

BASE = DEMO / "bioamber-development-agreement.txt"
AMENDMENT = DEMO / "bioamber-development-agreement-first-amendment.txt"


@pytest.fixture
def queued_tasks(settings) -> Iterator[None]:
    settings.TASK_RUNNER = "celery"
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    yield
    celery_app.conf.task_always_eager = before


def test_a_data_room_zip_from_upload_to_an_accepted_amendment_link(page, queued_tasks, tmp_path):
    from celery.contrib.testing.worker import start_worker

    room = tmp_path / "Closing set.zip"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(BASE, "Closing set/1. Agreements/development agreement.txt")
        zf.write(AMENDMENT, "Closing set/2. Amendments/first amendment.txt")
        zf.write(BASE, "Closing set/9. Misc/copy of the agreement.txt")
        zf.writestr("Closing set/9. Misc/logo.svg", "<svg/>")
    room.write_bytes(buf.getvalue())

    member = MembershipFactory(matter=MatterFactory(name="Closing set"))
    sign_in(page, member.user.username)
    page.goto(f"/matters/{member.matter.pk}/")
    page.locator("#upload-files").set_input_files(str(room))
    page.get_by_role("button", name="Upload and index").click()
    page.wait_for_url(f"**/matters/{member.matter.pk}/")
    messages = page.locator(".messages")
    expect(messages).to_contain_text(
        "“Closing set.zip”: 2 documents added, indexing has started; 1 file already in this "
        "matter, recorded as copy; 1 file left out."
    )
    expect(messages).to_contain_text("Closing set / 9. Misc / logo.svg: not a document")
    expect(page.locator("#batch-progress")).to_contain_text("0 of 2 indexed")
    expect(page.locator("#batch-progress").get_by_role("progressbar")).to_be_visible()

    with start_worker(celery_app, perform_ping_check=False, shutdown_timeout=10):
        expect(page.locator("#batch-progress")).to_contain_text("2 of 2 indexed", timeout=60_000)
    base = Document.objects.get(original_filename="development agreement.txt")
    amendment = Document.objects.get(original_filename="first amendment.txt")
    assert amendment.folder == "Closing set / 2. Amendments"
    assert DocumentCopy.objects.get().document == base
    page.reload()
    row = page.locator(f"#doc-{amendment.pk}")
    expect(row).to_contain_text("Closing set / 2. Amendments /")
    expect(page.locator(f"#doc-{base.pk}")).to_contain_text("1 copy")
    expect(row).to_contain_text("Proposed:")
    shot(page, "1280-matter-dataroom")

    # The folder filter keeps the amendments' folder only.
    page.get_by_label("Folder").select_option("Closing set / 2. Amendments")
    page.get_by_role("button", name="Filter").click()
    expect(page.locator("table.docs tbody tr")).to_have_count(1)
    expect(page.locator(f"#doc-{amendment.pk}")).to_be_visible()

    page.locator(f"#doc-{amendment.pk}").get_by_role("button", name="Accept").click()
    expect(page.locator(".messages")).to_contain_text(f"{amendment.key} now amends {base.key}")
    amendment.refresh_from_db()
    assert amendment.amends_id == base.pk
    assert page.js_errors == []
