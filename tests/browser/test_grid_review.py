"""A reviewer working through a review grid in a browser (issue 26): the grid estimated is the
grid made (presets and own columns kept through the estimate); the table takes the page's width
with its header row and document column in view while it scrolls; cells reviewed by keyboard
alone (next/previous, confirm, correct, open in the reader) with a visible focus; a whole column
confirmed; the XLSX downloaded and read back with its quotations sheet and links; a document's
own name and dates never "changed by" its amendment."""

from __future__ import annotations

import io

import pytest
from openpyxl import load_workbook
from playwright.sync_api import expect

from legalnav.matters.models import AuditEvent
from legalnav.review.models import Cell, Grid
from legalnav.review.verbs import Verb as ReviewVerb
from tests.browser.conftest import shot, sign_in
from tests.browser.test_keyboard import assert_focus_ring

pytestmark = pytest.mark.django_db(transaction=True)

PRESETS = ("Parties", "Governing Law", "Expiration Date", "Effective Date")
OWN = [("Notice address", "Where must notices to Cargill be sent?", "text"),
       ("Assignee", "To whom may a party assign the agreement?", "party")]  # fmt: skip


def active_cell(page) -> str | None:  # type: ignore[no-untyped-def]
    return page.evaluate(
        "() => { const td = document.activeElement.closest('td[data-cell]');"
        " return td && document.activeElement.matches('a.cell') ? td.dataset.cell : null; }"
    )


def test_estimate_then_make_keyboard_review_and_the_xlsx(page, bioamber_docs, answering) -> None:
    matter, owner, base = bioamber_docs.matter, bioamber_docs.owner, bioamber_docs.base
    sign_in(page, owner.username)
    page.goto(f"/matters/{matter.pk}/grids/new/")
    page.get_by_label("Title").fill("Cargill diligence")
    presets = page.locator("input[name=preset]")
    expect(presets).to_have_count(41)
    everything = page.locator("input[name=preset_all]")
    expect(everything).to_be_checked()  # all 41 ticked to start with
    everything.uncheck()  # clears every preset
    expect(page.locator("input[name=preset]:checked")).to_have_count(0)
    for key in PRESETS:
        page.locator(f"input[name=preset][value='{key}']").check()
    for i, (key, question, type_) in enumerate(OWN, start=1):
        page.get_by_label(f"Column name {i}").fill(key)
        page.get_by_label(f"Question {i}").fill(question)
        page.get_by_label(f"Answer type {i}").select_option(type_)
    page.locator(f"input[name=documents][value='{base.pk}']").check()

    page.get_by_role("button", name="Estimate the cost").click()
    expect(page.locator("section.estimate")).to_contain_text("1 document × 6 columns = 6 cells")
    assert not Grid.objects.exists()
    # The form after the estimate is the form before it: every choice kept.
    ticked = page.locator("input[name=preset]:checked")
    expect(ticked).to_have_count(len(PRESETS))
    assert sorted(b.get_attribute("value") for b in ticked.all()) == sorted(PRESETS)
    expect(everything).not_to_be_checked()
    for i, (key, question, type_) in enumerate(OWN, start=1):
        expect(page.get_by_label(f"Column name {i}")).to_have_value(key)
        expect(page.get_by_label(f"Question {i}")).to_have_value(question)
        expect(page.get_by_label(f"Answer type {i}")).to_have_value(type_)
    expect(page.locator("input[name=documents]:checked")).to_have_count(1)
    expect(page.locator(f"input[name=documents][value='{base.pk}']")).to_be_checked()
    expect(page.locator("input[name=mode][value=offline]")).to_be_checked()
    expect(page.get_by_label("Title")).to_have_value("Cargill diligence")

    # (Jobs run inline in tests: the grid is filled before the page answers, slowly on a busy
    # machine.)
    page.get_by_role("button", name="Make the grid").click(timeout=120_000)
    page.wait_for_url(f"**/matters/{matter.pk}/grids/*/")
    live = page.locator("#grid-live[data-status=done]")
    expect(live).to_be_visible(timeout=120_000)
    grid = Grid.objects.get(matter=matter)
    columns = [(c.key, c.type) for c in grid.columns.order_by("position")]
    assert columns == [
        ("Parties", "party"),
        ("Effective Date", "date"),
        ("Expiration Date", "date"),
        ("Governing Law", "text"),
        *[(key, type_) for key, _, type_ in OWN],
    ]  # exactly the grid estimated (presets in CUAD's order, then the user's own)
    assert list(grid.rows.values_list("document_id", flat=True)) == [base.pk]
    expect(live.get_by_test_id("grid-progress")).to_have_text("6 of 6 cells")

    # The table has the page's width (no side panel until a cell is opened), and its cells are
    # compact: the value and a line of citation and confidence, no quotation.
    scroll = page.locator(".review-scroll")
    width = page.evaluate("() => window.innerWidth")
    assert scroll.bounding_box()["width"] > 0.85 * width  # type: ignore[index]
    expect(page.locator("#provision-panel")).to_be_hidden()
    for box in page.locator("td[data-cell]").all():
        assert box.bounding_box()["height"] < 110  # type: ignore[index]
    shot(page, "grid-wide")

    # Keyboard review: j/k move, c confirms, with a visible focus, and the focus stays put.
    cells = [int(c.get_attribute("data-cell")) for c in page.locator("td[data-cell]").all()]
    assert len(cells) == 6
    page.locator("h1").click()  # nothing focused
    page.keyboard.press("j")
    assert active_cell(page) == str(cells[0])
    assert_focus_ring(page)
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("k")
    assert active_cell(page) == str(cells[1])
    page.keyboard.press("ArrowLeft")
    assert active_cell(page) == str(cells[0])
    page.keyboard.press("ArrowRight")
    second = Cell.objects.get(pk=cells[1])
    page.keyboard.press("c")
    panel = page.locator("#provision-panel")
    expect(panel).to_contain_text(f"Confirmed by {owner.username}")
    review = page.locator(f"#cell-link-{second.pk}").get_by_test_id("cell-review")
    expect(review).to_have_text("✓ confirmed")  # the grid's cell says so at once
    expect(page.get_by_test_id("grid-reviewed")).to_have_text("1 reviewed")
    second.refresh_from_db()
    assert second.reviewed_status == Cell.Review.CONFIRMED and second.reviewed_by == owner
    expect(page.locator(f"#cell-link-{second.pk}")).to_be_focused()
    assert AuditEvent.objects.filter(matter=matter, action=ReviewVerb.CELL_REVIEWED).count() == 1
    # The panel has opened beside the table, which still takes the rest of the width.
    expect(panel).to_be_visible()
    shot(page, "grid-keyboard")

    # e corrects: the panel opens on the corrected value; Enter saves it; Escape goes back.
    page.keyboard.press("j")
    third = Cell.objects.get(pk=cells[2])
    page.keyboard.press("e")
    value = panel.get_by_label("Corrected value")
    expect(value).to_be_focused()
    value.fill("2010-04-15 + 4 years")
    page.keyboard.press("Enter")
    expect(panel).to_contain_text(f"Corrected by {owner.username}")
    third.refresh_from_db()
    assert third.reviewed_status == "corrected"
    assert third.corrected_value == "2010-04-15 + 4 years"
    expect(page.locator(f"#cell-link-{third.pk} .cell-value")).to_have_text("2010-04-15 + 4 years")
    page.keyboard.press("Escape")
    assert active_cell(page) == str(third.pk)

    # The XLSX: the quotations sheet, each cell linked to the reader, its review state.
    with page.expect_download() as download:
        page.get_by_role("button", name="Export XLSX").click()
    book = load_workbook(io.BytesIO(download.value.path().read_bytes()))
    assert book.sheetnames == ["Grid", "Quotations"]
    sheet = book["Grid"]
    header = [c.value for c in sheet[1]]
    states = {
        key: sheet.cell(row=2, column=header.index(f"{key} (review)") + 1).value
        for key, _ in columns
    }
    assert states["Effective Date"] == "confirmed" and states["Expiration Date"] == "corrected"
    assert list(states.values()).count("unreviewed") == len(columns) - 2
    reader = f"{page.url.split('/matters/')[0]}/documents/{base.pk}/"
    for key, _ in columns:
        link = sheet.cell(row=2, column=header.index(key) + 1).hyperlink
        assert link is not None and link.target.startswith(reader), key
    quotes = book["Quotations"]
    assert [c.value for c in quotes[1]][:5] == [
        "Document",
        "Column",
        "Value",
        "Quotation",
        "Provision",
    ]
    law = Cell.objects.get(grid=grid, column__key="Governing Law")
    assert law.found
    rows = [[c.value for c in r] for r in quotes.iter_rows(min_row=2)]
    mine = next(r for r in rows if r[1] == "Governing Law")
    assert mine[0] == base.key and mine[3] == law.quotes[0]["text"] and "Minnesota" in mine[3]
    assert mine[6].startswith(reader + "#")

    # o opens the cell's provision in the reader.
    page.keyboard.press("o")
    page.wait_for_url(lambda url: f"/documents/{base.pk}/" in url)
    assert not page.js_errors  # type: ignore[attr-defined]


def test_sticky_header_and_column_own_columns_never_changed_by_and_confirm_a_column(
    page, bioamber_docs, answering
) -> None:
    b = bioamber_docs
    from legalnav.review import actions
    from legalnav.review.services import ColumnSpec

    keys = ["Document Name", "Parties", "Agreement Date", "Effective Date", "Governing Law"]
    keys += [f"Question {i}" for i in range(1, 13)]  # wide enough to scroll sideways
    grid = actions.grid_create(
        matter=b.matter,
        user=b.owner,
        title="Both documents",
        columns=[ColumnSpec(k, f"What does it say about {k.lower()}?", "text") for k in keys],
        document_ids=None,
        mode="offline",
        via="page",
    )
    sign_in(page, b.owner.username)
    page.goto(f"/matters/{b.matter.pk}/grids/{grid.pk}/")
    expect(page.locator("#grid-live[data-status=done]")).to_be_visible(timeout=120_000)
    cells = {
        (c.document_id, c.column.key): c
        for c in Cell.objects.filter(grid=grid).select_related("column")
    }
    # The amendment answers with its own title and dates (as the demo's does) and, firmly,
    # another governing law: only that term is the agreement's "changed by".
    for key, value in (
        ("Document Name", "First Amendment to Development Agreement"),
        ("Agreement Date", "2011-06-01"),
        ("Effective Date", "2011-06-01"),
        ("Parties", "Cargill, Incorporated; BioAmber Inc."),
        ("Governing Law", "Delaware"),
    ):
        Cell.objects.filter(pk=cells[(b.amendment.pk, key)].pk).update(
            found=True, status="found", value=value, confidence=0.95
        )
    page.reload()
    row = page.locator("tr", has=page.locator(f"th.doc a[href='/documents/{b.base.pk}/']"))
    header = [t.strip() for t in page.locator("thead th .col-key").all_inner_texts()]
    assert header == keys
    for key in keys[:4]:
        td = row.locator("td").nth(keys.index(key))
        expect(td).to_be_visible()
        expect(td.get_by_test_id("amended")).to_have_count(0)
        expect(td).not_to_contain_text("changed by")
    law = row.locator("td").nth(keys.index("Governing Law"))
    expect(law.get_by_test_id("amended")).to_contain_text(f"changed by {b.amendment.key}")

    # Sticky: scrolled down and across inside its box (a short window, so that it scrolls both
    # ways), the header row and the document column stay at its top and left edges.
    page.set_viewport_size({"width": 1280, "height": 320})
    scroll = page.locator(".review-scroll")
    scroll.scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('.review-scroll').scrollTo(600, 400)")
    moved = page.evaluate(
        "() => { const s = document.querySelector('.review-scroll');"
        " return [s.scrollLeft, s.scrollTop]; }"
    )
    assert moved[0] > 0 and moved[1] > 0, moved
    box = scroll.bounding_box()
    head = page.locator("thead th").nth(3).bounding_box()
    doc = page.locator("tbody tr").last.locator("th.doc").bounding_box()
    assert box and head and doc
    assert abs(head["y"] - box["y"]) < 3, (head, box)
    assert abs(doc["x"] - box["x"]) < 3, (doc, box)
    shot(page, "grid-sticky", full_page=False)
    page.set_viewport_size({"width": 1280, "height": 860})
    page.evaluate("() => document.querySelector('.review-scroll').scrollTo(0, 0)")

    # Confirm a whole column: every found, unreviewed cell of it, in one audited action.
    found = Cell.objects.filter(grid=grid, column__key="Governing Law", found=True)
    expected = set(found.values_list("pk", flat=True))
    assert expected
    page.get_by_role("button", name="Confirm column Governing Law").click()
    expect(page.get_by_test_id("grid-message")).to_contain_text(f"Confirmed {len(expected)} cell")
    confirmed = Cell.objects.filter(grid=grid, reviewed_status="confirmed")
    assert set(confirmed.values_list("pk", flat=True)) == expected
    for pk in expected:
        expect(page.locator(f"#cell-link-{pk}").get_by_test_id("cell-review")).to_have_text(
            "✓ confirmed"
        )
    event = AuditEvent.objects.get(matter=b.matter, action=ReviewVerb.CELL_REVIEWED)
    assert set(event.detail["cell_ids"]) == expected
    assert not page.js_errors  # type: ignore[attr-defined]
