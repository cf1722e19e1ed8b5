"""A review grid in a browser: columns picked on the form, the cost estimated before anything
starts, the grid filled, a cell's quotation opened in the side panel and confirmed, the CSV
export downloaded; a non-member refused."""

from __future__ import annotations

import csv
import io

import pytest
from playwright.sync_api import expect

from legalnav.matters.models import AuditEvent
from legalnav.review.models import Cell, Grid
from legalnav.review.verbs import Verb as ReviewVerb
from tests.browser.conftest import shot, sign_in
from tests.conftest import MembershipFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_make_a_grid_read_a_cell_confirm_it_and_export(page, bioamber_docs, answering) -> None:
    matter, owner, base = bioamber_docs.matter, bioamber_docs.owner, bioamber_docs.base
    sign_in(page, owner.username)
    page.goto(f"/matters/{matter.pk}/")
    page.get_by_role("link", name="Review grid", exact=True).click()
    page.wait_for_url(f"**/matters/{matter.pk}/grids/")
    page.goto(f"/matters/{matter.pk}/grids/new/")
    page.get_by_label("Title").fill("Cargill diligence")
    presets = page.locator("input[name=preset]")
    expect(presets).to_have_count(41)  # CUAD's categories, all ticked to start with
    for box in presets.all():
        box.uncheck()
    for key in ("Governing Law", "Parties", "Expiration Date"):
        page.locator(f"input[name=preset][value='{key}']").check()

    # The estimate changes nothing: no grid yet, the form keeps its ticks.
    page.get_by_role("button", name="Estimate the cost").click()
    estimate = page.locator("section.estimate")
    expect(estimate).to_contain_text("2 documents × 3 columns = 6 cells")
    assert not Grid.objects.exists()
    expect(page.locator("input[name=preset][value='Parties']")).to_be_checked()

    page.get_by_role("button", name="Make the grid").click()
    page.wait_for_url(f"**/matters/{matter.pk}/grids/*/")
    live = page.locator("#grid-live[data-status=done]")
    expect(live).to_be_visible(timeout=120_000)
    expect(live.get_by_test_id("grid-progress")).to_have_text("6 of 6 cells")
    grid = Grid.objects.get(matter=matter)
    assert grid.title == "Cargill diligence" and grid.created_by == owner

    law = Cell.objects.get(grid=grid, document=base, column__key="Governing Law")
    assert "Minnesota" in law.value and law.verdict == "verified"
    cell_link = live.locator(f"td[data-cell='{law.pk}'] a.cell")
    expect(cell_link).to_contain_text("Minnesota")
    shot(page, "grid")

    # The cell opens in the side panel: the quotation verified, highlighted in its provision.
    cell_link.click()
    panel = page.locator("#provision-panel")
    expect(panel.locator(".vbadge-verified")).to_have_text("Quotation verified word for word")
    expect(panel.locator(".provision mark").first).to_contain_text("Minnesota")
    panel.get_by_label("Confirm").check()
    panel.get_by_role("button", name="Save").click()
    expect(panel).to_contain_text(f"Confirmed by {owner.username}")
    law.refresh_from_db()
    assert law.reviewed_status == Cell.Review.CONFIRMED and law.reviewed_by == owner
    assert AuditEvent.objects.filter(matter=matter, action=ReviewVerb.CELL_REVIEWED).count() == 1
    shot(page, "grid-cell")

    with page.expect_download() as download:
        page.get_by_role("button", name="Export CSV").click()
    rows = list(csv.reader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))
    header, body = rows[0], rows[1:]
    assert "Governing Law" in header and len(body) == 2
    column = header.index("Governing Law")
    row = next(r for r in body if base.key in " ".join(r[:2]))
    assert "Minnesota" in row[column]


def test_a_non_member_cannot_open_a_grid_or_its_cells(page, bioamber_docs, answering) -> None:
    matter, owner = bioamber_docs.matter, bioamber_docs.owner
    sign_in(page, owner.username)
    page.goto(f"/matters/{matter.pk}/grids/new/")
    for box in page.locator("input[name=preset]").all():
        if box.get_attribute("value") != "Governing Law":
            box.uncheck()
    page.get_by_role("button", name="Make the grid").click()
    expect(page.locator("#grid-live[data-status=done]")).to_be_visible(timeout=120_000)
    grid = Grid.objects.get(matter=matter)
    cell = Cell.objects.filter(grid=grid).first()
    assert cell is not None

    stranger = MembershipFactory().user  # a member of another matter only
    page.context.clear_cookies()
    sign_in(page, stranger.username)
    for url in (
        f"/matters/{matter.pk}/grids/",
        f"/matters/{matter.pk}/grids/{grid.pk}/",
        f"/matters/{matter.pk}/grids/{grid.pk}/cells/{cell.pk}/",
    ):
        response = page.goto(url)
        assert response is not None and response.status == 404, url
