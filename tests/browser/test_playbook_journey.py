"""Playbooks in a browser (issue 28): a staff user writes the firm's playbook in the editor, a
reviewer applies it to the BioAmber matter from its Playbooks tab, reads the deviations (high
severity first, the reason and the quotation), corrects the cell a verdict rests on and sees the
verdict change, then downloads the XLSX and the PDF memo and reads the deviations back in each."""

from __future__ import annotations

import io

import pytest
from openpyxl import load_workbook
from playwright.sync_api import expect
from pypdf import PdfReader

from legalnav.matters.models import AuditEvent, Membership
from legalnav.review.models import Playbook, PlaybookRun
from tests.browser.conftest import shot, sign_in
from tests.conftest import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_staff_write_a_playbook_a_reviewer_applies_it_and_corrects_a_deviation(
    page, bioamber_docs
) -> None:
    matter, owner = bioamber_docs.matter, bioamber_docs.owner
    partner = UserFactory(username="partner", is_staff=True)
    reviewer = UserFactory(username="reviewer")
    Membership.objects.create(matter=matter, user=reviewer, role=Membership.Role.EDITOR)

    # The partner (staff) writes the playbook: three positions of different kinds.
    sign_in(page, partner.username)
    page.get_by_role("link", name="Playbooks").first.click()
    page.get_by_role("link", name="New playbook").click()
    page.get_by_label("Name").fill("US commercial")
    rows = [
        ("Governing Law", "allowed", "New York; Delaware", "high"),
        ("Anti-Assignment", "required", "", "high"),
        ("Expiration Date", "after", "2015-01-01", "low"),
    ]
    for i, (key, kind, value, severity) in enumerate(rows, start=1):
        page.get_by_label(f"Column {i}", exact=True).select_option(key)
        page.get_by_label(f"Rule {i}").select_option(kind)
        page.get_by_label(f"Value {i}").fill(value)
        page.get_by_label(f"Severity {i}").select_option(severity)
    page.get_by_label("Note 1").fill("our courts only")
    page.get_by_role("button", name="Save playbook").click()
    expect(page.get_by_test_id("positions")).to_contain_text("must be one of New York, Delaware")
    playbook = Playbook.objects.get(name="US commercial")
    assert playbook.version == 1 and len(playbook.positions) == 3
    assert AuditEvent.objects.filter(action="playbook_saved", user=partner).count() == 1
    page.get_by_role("button", name="Sign out").click()

    # The reviewer applies it to the matter.
    sign_in(page, reviewer.username)
    page.goto(f"/matters/{matter.pk}/")
    page.get_by_role("navigation", name="This matter").get_by_role("link", name="Playbooks").click()
    page.get_by_label("Playbook").select_option(str(playbook.pk))
    page.get_by_role("button", name="Apply playbook").click(timeout=120_000)
    page.wait_for_url(f"**/matters/{matter.pk}/playbooks/runs/*/")
    live = page.locator("#run-live[data-status=done]")
    expect(live).to_be_visible(timeout=120_000)
    expect(page.get_by_test_id("run-counts")).to_have_text(
        "1 of 1 documents deviate on at least one position"
    )
    summary = page.get_by_test_id("run-summary")
    expect(summary.locator("tbody tr").first).to_contain_text("Governing Law")  # high first
    verdicts = page.get_by_test_id("verdicts")
    law = verdicts.locator("tr[data-verdict=deviates]").filter(has_text="Governing Law")
    expect(law).to_contain_text("Minnesota is none of the allowed: New York, Delaware")
    expect(law.locator("q")).to_contain_text("State of Minnesota")
    shot(page, "playbook-deviations")

    # The reviewer corrects the cell (the agreement was re-papered under Delaware law).
    law.get_by_role("link", name="review", exact=False).click()
    page.get_by_label("Correct to").check()
    page.get_by_label("Corrected value").fill("Delaware")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Corrected by reviewer")).to_be_visible()
    run = PlaybookRun.objects.get(matter=matter)
    page.goto(f"/matters/{matter.pk}/playbooks/runs/{run.pk}/?verdict=")
    row = page.get_by_test_id("verdicts").locator("tr").filter(has_text="Governing Law")
    expect(row).to_have_attribute("data-verdict", "meets")
    expect(row).to_contain_text("Delaware is Delaware, which the playbook allows")

    # The XLSX and the memo carry the deviations.
    with page.expect_download() as download:
        page.get_by_role("button", name="Export XLSX with deviations").click()
    book = load_workbook(io.BytesIO(download.value.path().read_bytes()))
    assert book.sheetnames == ["Grid", "Quotations", "Deviations"]
    sheet = list(book["Deviations"].iter_rows(values_only=True))
    by_position = {r[3]: r for r in sheet[1:]}
    assert (
        by_position["Governing Law"][6] == "Meets" and by_position["Governing Law"][7] == "Delaware"
    )
    with page.expect_download() as download:
        page.get_by_role("button", name="Export PDF with deviations").click()
    pdf = PdfReader(io.BytesIO(download.value.path().read_bytes()))
    text = " ".join(" ".join((p.extract_text() or "").split()) for p in pdf.pages)
    assert "Deviations from US commercial v1" in text
    assert AuditEvent.objects.filter(action="playbook_applied", user=reviewer).count() == 1
    assert not page.js_errors  # type: ignore[attr-defined]
    assert owner  # the matter's owner is untouched by all this
