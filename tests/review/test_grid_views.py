"""The review grid's pages and exports through the Django test client: the form makes a grid that
is filled (inline), the page and its polled fragment (286 once done), the side panel with the
quotation and the reader link, confirm/correct, filters, cancel/resume, every URL a 404 to a
non-member, and the CSV, XLSX and PDF exports read back."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.urls import reverse
from openpyxl import load_workbook
from pypdf import PdfReader

from legalnav.api import grids
from legalnav.documents.models import Node
from legalnav.matters.models import AuditEvent, Membership
from legalnav.review import actions
from legalnav.review.calibration import NOT_FOUND_BELOW
from legalnav.review.columns import preset_column
from legalnav.review.exports import grid_memo_html
from legalnav.review.models import Cell, Grid
from legalnav.review.services import ColumnSpec
from tests.conftest import MembershipFactory, UserFactory, index_bioamber_pair

pytestmark = pytest.mark.django_db

COLUMNS = [
    ColumnSpec("Governing Law", "Which law governs this agreement?", "text"),
    ColumnSpec("Parties", "Who are the parties?", "party"),
    ColumnSpec("Source Code Escrow", "Is source code put in escrow?", "yes_no"),
]


@pytest.fixture
def pair(matter):
    return index_bioamber_pair(matter)


@pytest.fixture
def grid(matter, owner, pair, django_capture_on_commit_callbacks) -> Grid:
    base, _ = pair
    with django_capture_on_commit_callbacks(execute=True):
        made = actions.grid_create(
            matter=matter,
            user=owner,
            title="Diligence <b>grid</b>",
            columns=COLUMNS,
            document_ids=[base.pk],
            mode="offline",
            via="page",
        )
    made.refresh_from_db()
    assert made.status == Grid.Status.DONE, made.error_message
    return made


def urls(grid: Grid) -> dict[str, tuple[str, str]]:
    cell = Cell.objects.filter(grid=grid).first()
    m, g = grid.matter_id, grid.pk
    return {
        "list": ("get", reverse("grid-list", args=[m])),
        "new": ("get", reverse("grid-new", args=[m])),
        "detail": ("get", reverse("grid-detail", args=[m, g])),
        "cell": ("get", reverse("grid-cell", args=[m, g, cell.pk])),
        "review": ("post", reverse("grid-cell-review", args=[m, g, cell.pk])),
        "cancel": ("post", reverse("grid-cancel", args=[m, g])),
        "resume": ("post", reverse("grid-retry", args=[m, g])),
        "csv": ("post", reverse("grid-export", args=[m, g, "csv"])),
        "xlsx": ("post", reverse("grid-export", args=[m, g, "xlsx"])),
        "pdf": ("post", reverse("grid-export", args=[m, g, "pdf"])),
        "column": ("post", reverse("grid-column-add", args=[m])),
    }


def test_every_grid_url_is_a_404_to_a_non_member(client, grid):
    client.force_login(UserFactory())
    for name, (method, url) in urls(grid).items():
        response = getattr(client, method)(url, {"review": "confirmed"} if method == "post" else {})
        assert response.status_code == 404, name
        hx = getattr(client, method)(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="grid-live")
        assert hx.status_code == 404, name
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.EXPORTED).exists()
    assert Cell.objects.filter(grid=grid).exclude(reviewed_status="none").count() == 0


def test_a_grid_of_another_matter_is_not_found_here(client, grid, owner):
    other = MembershipFactory(user=owner).matter
    client.force_login(owner)
    assert client.get(reverse("grid-detail", args=[other.pk, grid.pk])).status_code == 404
    cell = Cell.objects.filter(grid=grid).first()
    assert client.get(reverse("grid-cell", args=[other.pk, grid.pk, cell.pk])).status_code == 404
    assert client.post(reverse("grid-export", args=[other.pk, grid.pk, "csv"])).status_code == 404


def test_the_form_makes_a_grid_and_the_page_shows_it(
    client, matter, owner, pair, django_capture_on_commit_callbacks
):
    base, amendment = pair
    client.force_login(owner)
    page = client.get(reverse("grid-new", args=[matter.pk]))
    assert page.status_code == 200 and b"Governing Law" in page.content
    estimate = client.post(
        reverse("grid-new", args=[matter.pk]),
        {"preset": ["Governing Law", "Parties"], "documents": [base.pk], "estimate": "1"},
    )
    assert estimate.status_code == 200 and b"Estimated cost" in estimate.content
    assert not Grid.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        made = client.post(
            reverse("grid-new", args=[matter.pk]),
            {
                "title": "Two questions",
                "preset": ["Governing Law"],
                "documents": [base.pk, amendment.pk],
                "own_key": ["Notice", ""],
                "own_question": ["Where are notices sent?", ""],
                "own_type": ["text", "text"],
                "save_own": "on",
                "mode": "offline",
            },
        )
    grid = Grid.objects.get()
    assert made.status_code == 303 and made["Location"].endswith(f"/grids/{grid.pk}/")
    assert [c.key for c in grid.columns.order_by("position")] == ["Governing Law", "Notice"]
    assert grid.status == "done" and grid.cells_done == 4
    assert grid.matter.saved_columns.get().key == "Notice"
    page = client.get(made["Location"])
    assert page.status_code == 200
    html = page.content.decode()
    assert "4 of 4 cells" in html and "Two questions" in html
    law = Cell.objects.get(grid=grid, document=base, column__key="Governing Law")
    assert law.citation in html
    # The polled fragment stops polling (286) once the grid is done.
    poll = client.get(made["Location"], HTTP_HX_REQUEST="true", HTTP_HX_TARGET="grid-live")
    assert poll.status_code == 286 and b'id="grid-live"' in poll.content
    assert b"<html" not in poll.content
    # A claude grid without a key is refused with the reason, nothing made.
    refused = client.post(
        reverse("grid-new", args=[matter.pk]), {"preset": ["Parties"], "mode": "claude"}
    )
    assert refused.status_code == 400 and b"ANTHROPIC_API_KEY" in refused.content
    assert Grid.objects.count() == 1


def test_a_running_grid_keeps_polling(client, matter, owner, pair):
    base, _ = pair
    grid = actions.grid_create(
        matter=matter,
        user=owner,
        title="t",
        columns=COLUMNS,
        document_ids=[base.pk],
        mode="offline",
        via="page",
    )  # fmt: skip  (queued: on_commit does not run inside the test's transaction)
    client.force_login(owner)
    url = reverse("grid-detail", args=[matter.pk, grid.pk])
    poll = client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="grid-live")
    assert poll.status_code == 200 and b"hx-trigger" in poll.content and b"0 of 3" in poll.content
    cancel = client.post(
        reverse("grid-cancel", args=[matter.pk, grid.pk]),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="grid-live",
    )
    assert cancel.status_code == 200 and b"Cancelled" in cancel.content
    assert b"Resume" in cancel.content
    grid.refresh_from_db()
    assert grid.status == "cancelled"


def test_the_cell_panel_shows_the_quotation_and_the_reader_link_escaped(client, grid, owner):
    client.force_login(owner)
    cell = Cell.objects.filter(grid=grid, found=True).select_related("node").first()
    assert cell is not None
    # Untrusted document text: a value with markup is shown as text, never as markup.
    Cell.objects.filter(pk=cell.pk).update(value="<script>alert(1)</script>")
    panel = client.get(
        reverse("grid-cell", args=[grid.matter_id, grid.pk, cell.pk]), HTTP_HX_REQUEST="true"
    )
    html = panel.content.decode()
    assert panel.status_code == 200
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert f"/documents/{cell.document_id}/#{cell.node.node_id}" in html
    assert "<mark>" in html  # the quotation highlighted in its provision
    page = client.get(reverse("grid-detail", args=[grid.matter_id, grid.pk]))
    assert "<script>alert(1)</script>" not in page.content.decode()
    assert "Diligence &lt;b&gt;grid&lt;/b&gt;" in page.content.decode()


def test_a_yes_no_cell_says_how_sure_its_value_is_and_its_quotation_apart(
    client, matter, owner, pair, django_capture_on_commit_callbacks
):
    """A yes/no column with a document model (Liquidated Damages): its cell on the development
    agreement says No, with the model's P(No) as the value's confidence beside the closest
    quotation's (weak: it is not such a clause); the grid shows the value's and does not mark
    the cell low, the panel shows both, the API gives both."""
    base, _ = pair
    preset = preset_column("Liquidated Damages")  # the CUAD column, as the form's preset adds it
    assert preset is not None
    with django_capture_on_commit_callbacks(execute=True):
        made = actions.grid_create(
            matter=matter, user=owner, title="Yes/no", document_ids=[base.pk], mode="offline",
            columns=[ColumnSpec("Liquidated Damages", preset.question, "yes_no")],
            via="page",
        )  # fmt: skip
    client.force_login(owner)
    cell = Cell.objects.get(grid=made)
    assert cell.found and cell.value == "No", cell.value
    assert cell.value_confidence is not None and cell.confidence < 0.5 < cell.value_confidence
    assert cell.certainty == cell.value_confidence and not cell.low_confidence
    panel = client.get(
        reverse("grid-cell", args=[matter.pk, made.pk, cell.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert (
        f"confidence in the value {cell.value_confidence:.2f}, in the quotation "
        f"{cell.confidence:.2f}"
    ) in panel
    page = client.get(reverse("grid-detail", args=[matter.pk, made.pk])).content.decode()
    assert f"{cell.citation} · {cell.value_confidence:.2f}" in page and "cell-low" not in page
    row = grids.cell_page(
        user=owner, matter_id=matter.pk, grid_id=made.pk, params=grids.CellListParams()
    ).model_dump()["items"][0]
    assert row["value_confidence"] == pytest.approx(cell.value_confidence, abs=1e-6)
    assert row["confidence"] == pytest.approx(cell.confidence, abs=1e-6)


def test_a_yes_no_cell_with_nothing_to_quote_still_says_no_and_how_sure(
    client, matter, owner, pair, django_capture_on_commit_callbacks
):
    """Source Code Escrow on the amendment: its document model says No and no provision comes
    near enough to quote. The cell reads "No" (not "not found") with P(No) and the model's
    reason, on the page, in the panel and through the API; it has no citation and still counts
    among the cells with no quotation."""
    _, amendment = pair
    preset = preset_column("Source Code Escrow")
    assert preset is not None
    with django_capture_on_commit_callbacks(execute=True):
        made = actions.grid_create(
            matter=matter, user=owner, title="Escrow", document_ids=[amendment.pk],
            mode="offline", columns=[ColumnSpec(preset.key, preset.question, "yes_no")],
            via="page",
        )  # fmt: skip
    client.force_login(owner)
    cell = Cell.objects.get(grid=made)
    assert not cell.found and cell.value == "No" and not cell.citation
    assert cell.value_confidence is not None and cell.value_confidence > 0.5
    made.refresh_from_db()
    assert made.n_not_found == 1 and made.n_found == 0
    panel = client.get(
        reverse("grid-cell", args=[matter.pk, made.pk, cell.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert 'data-testid="cell-value">No</strong>' in panel
    assert f"confidence in the value {cell.value_confidence:.2f}</span>" in panel
    assert "How it was read: No: no provision reads as Source Code Escrow" in panel
    assert "No provision quoted. Searched:" in panel
    # Where the closest sentence is, and how near it came to being quoted.
    closest = re.search(
        rf"The closest sentence, in \[{re.escape(amendment.key)}(?::([^\]]+))?\], reads "
        r"(0\.\d\d) as such a provision, under the (0\.\d\d) a quotation needs",
        panel,
    )
    assert closest is not None, panel[panel.find("No provision quoted") :][:400]
    assert float(closest[2]) == pytest.approx(cell.confidence, abs=0.005)
    assert float(closest[2]) < float(closest[3]) == pytest.approx(NOT_FOUND_BELOW)
    # In a provision, named as a citation names it; before the first (a title line), the document.
    assert (
        closest[1] is None or Node.objects.filter(document=amendment, node_id=closest[1]).exists()
    )
    page = client.get(reverse("grid-detail", args=[matter.pk, made.pk])).content.decode()
    assert f"none quoted · {cell.value_confidence:.2f}" in page
    assert "0 found, 1 with nothing quoted," in page and ">Nothing quoted</a>" in page
    row = grids.cell_page(
        user=owner, matter_id=matter.pk, grid_id=made.pk, params=grids.CellListParams()
    ).model_dump()["items"][0]
    assert row["value"] == "No" and row["found"] is False and row["citation"] == ""
    memo = grid_memo_html(made, owner)
    assert (
        f'<strong>No</strong> <span class="muted">· confidence {cell.value_confidence:.2f}' in memo
    )
    assert "0 found, 1 with nothing quoted," in memo
    # Corrected, the memo gives the reviewer's value, and the filler's with its confidence.
    actions.cell_review(
        matter=matter, user=owner, cell=cell, status="corrected", value="Yes", via="page"
    )
    memo = grid_memo_html(made, owner)
    assert '<strong>Yes</strong> <span class="muted">· corrected by' in memo
    assert f"(the filler read: No, confidence {cell.value_confidence:.2f})" in memo


def test_confirm_and_correct_from_the_panel_and_filters(client, grid, owner):
    client.force_login(owner)
    cells = list(Cell.objects.filter(grid=grid).order_by("pk"))
    m, g = grid.matter_id, grid.pk
    bad = client.post(
        reverse("grid-cell-review", args=[m, g, cells[0].pk]),
        {"review": "corrected", "value": ""},
        HTTP_HX_REQUEST="true",
    )
    assert bad.status_code == 400 and b"needs the corrected value" in bad.content
    ok = client.post(
        reverse("grid-cell-review", args=[m, g, cells[0].pk]),
        {"review": "corrected", "value": "England & Wales"},
        HTTP_HX_REQUEST="true",
    )
    assert ok.status_code == 200 and b"England &amp; Wales" in ok.content
    # The filler's confidence is shown with the filler's value, not beside the reviewer's.
    filled = Cell.objects.get(pk=cells[0].pk)
    panel = ok.content.decode()
    assert "· confidence" not in panel
    assert filled.found and f"(confidence {filled.certainty:.2f})" in panel
    client.post(reverse("grid-cell-review", args=[m, g, cells[1].pk]), {"review": "confirmed"})
    assert Cell.objects.get(pk=cells[1].pk).reviewed_status == "confirmed"
    reviewed = client.get(
        reverse("grid-detail", args=[m, g]) + "?show=reviewed",
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="grid-live",
    ).content.decode()
    assert f'data-cell="{cells[0].pk}"' in reviewed and f'data-cell="{cells[1].pk}"' in reviewed
    assert f'data-cell="{cells[2].pk}"' not in reviewed
    missing = [c for c in cells if not c.found]
    shown = client.get(reverse("grid-detail", args=[m, g]) + "?show=not_found").content.decode()
    for c in cells:
        assert (f'data-cell="{c.pk}"' in shown) == (c in missing)
    assert AuditEvent.objects.filter(action="cell_reviewed").count() == 2
    # A viewer may review too (they may ask), but not cancel someone else's grid.
    viewer = MembershipFactory(matter=grid.matter, role=Membership.Role.VIEWER).user
    client.force_login(viewer)
    assert client.post(reverse("grid-cancel", args=[m, g])).status_code == 403


def test_exports_read_back(client, grid, owner):
    client.force_login(owner)
    m, g = grid.matter_id, grid.pk
    cells = {c.column.key: c for c in Cell.objects.filter(grid=grid).select_related("column")}
    Cell.objects.filter(pk=cells["Parties"].pk).update(
        reviewed_status="corrected", corrected_value="=HYPERLINK(1)"
    )
    assert client.get(reverse("grid-export", args=[m, g, "csv"])).status_code == 405

    response = client.post(reverse("grid-export", args=[m, g, "csv"]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.getvalue().decode("utf-8-sig"))))
    assert rows[0] == [
        "Document", "Title",
        "Governing Law", "Governing Law (citation)",
        "Parties", "Parties (citation)",
        "Source Code Escrow", "Source Code Escrow (citation)",
    ]  # fmt: skip
    law = cells["Governing Law"]
    assert rows[1][0] == law.document.key
    assert rows[1][2] == (law.value if law.found else "not found")
    assert rows[1][3] == (law.citation if law.found else "")
    assert rows[1][4] == "'=HYPERLINK(1)"  # a formula is written as text

    response = client.post(reverse("grid-export", args=[m, g, "xlsx"]))
    book = load_workbook(io.BytesIO(response.getvalue()))
    sheet = book.active
    values = [[c.value for c in row] for row in sheet.iter_rows()]
    assert values[0][2] == "Governing Law" and values[1][2] == rows[1][2]
    assert values[1][3] == rows[1][3]
    assert sheet.cell(row=2, column=5).data_type == "s"  # text, not a formula

    response = client.post(reverse("grid-export", args=[m, g, "pdf"]))
    pdf = response.getvalue()  # a streamed response is read once
    assert response.status_code == 200 and pdf.startswith(b"%PDF")
    reader = PdfReader(io.BytesIO(pdf))
    text = " ".join(" ".join((p.extract_text() or "").split()) for p in reader.pages)
    for cell in cells.values():
        for q in cell.quotes:  # every quotation verbatim (word for word, spacing aside)
            assert " ".join(q["text"].split())[:60] in text, q["text"][:60]
            assert q["citation"] in text
    assert AuditEvent.objects.filter(action="exported").count() == 3
    formats = set(
        AuditEvent.objects.filter(action="exported").values_list("detail__format", flat=True)
    )
    assert formats == {"csv", "xlsx", "pdf"}


def _grow(grid: Grid, n: int) -> None:
    """``n`` more rows (documents with every cell written; every third not found), as a data
    room's grid has: made in bulk, not filled, so the test is about the page alone."""
    from legalnav.documents.models import Document
    from legalnav.review.models import GridDocument

    columns = list(grid.columns.order_by("position"))
    start = grid.rows.count()
    docs = Document.objects.bulk_create(
        Document(
            matter=grid.matter,
            title=f"Contract {i:04d}",
            original_filename=f"c{i}.txt",
            sha256=f"{i:064d}",
            status=Document.Status.INDEXED,
            text="x",
        )
        for i in range(n)
    )
    GridDocument.objects.bulk_create(
        GridDocument(grid=grid, document=d, position=start + i) for i, d in enumerate(docs)
    )
    Cell.objects.bulk_create(
        Cell(
            grid=grid,
            column=c,
            document=d,
            status="done",
            value=f"value {i}" if i % 3 else "not found",
            found=bool(i % 3),
            confidence=0.9,
        )
        for i, d in enumerate(docs)
        for c in columns
    )


def test_a_large_grid_is_shown_a_page_of_rows_at_a_time(client, owner, grid):
    _grow(grid, 119)  # 120 rows in all
    client.force_login(owner)
    url = reverse("grid-detail", args=[grid.matter_id, grid.pk])
    first = client.get(url).content.decode()
    assert "Documents 1–50 of 120" in first and "page 1 of 3" in first
    assert first.count('<th scope="row"') == 50
    assert "Contract 0048" in first and "Contract 0049" not in first
    last = client.get(url, {"page": 3}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="grid-live")
    body = last.content.decode()
    assert "Documents 101–120 of 120" in body and body.count('<th scope="row"') == 20
    assert "Contract 0118" in body and "Next →" not in body
    # Past the last page, or not a number: the nearest page there is.
    assert "Documents 101–120" in client.get(url, {"page": 99}).content.decode()
    assert "Documents 1–50" in client.get(url, {"page": "x"}).content.decode()
    # A filter is applied by the database, before paging: 40 of the new rows are not found.
    nf = client.get(url, {"show": "not_found"}).content.decode()
    rows = Cell.objects.filter(grid=grid, found=False).values("document_id").distinct().count()
    assert 40 <= rows <= 41  # the 40 made so, and the first document's when a cell is not found
    assert f"of {rows}</span>" in nf
    assert "value " not in nf  # only the not-found cells of those rows are shown


def test_an_export_of_a_grid_past_a_page_has_every_row_in_order(client, owner, grid):
    from legalnav.review import exports

    _grow(grid, exports.PAGE_ROWS * 2 + 10)  # three pages of documents to read
    client.force_login(owner)
    m, g = grid.matter_id, grid.pk
    response = client.post(reverse("grid-export", args=[m, g, "csv"]))
    assert response.streaming  # sent from its spooled file, a chunk at a time
    rows = list(csv.reader(io.StringIO(response.getvalue().decode("utf-8-sig"))))[1:]
    titles = [r[1] for r in rows[1:]]
    assert len(rows) == grid.rows.count() == exports.PAGE_ROWS * 2 + 11
    assert titles == [f"Contract {i:04d}" for i in range(exports.PAGE_ROWS * 2 + 10)]
    assert rows[-1][2] == f"value {exports.PAGE_ROWS * 2 + 9}"
    book = load_workbook(
        io.BytesIO(client.post(reverse("grid-export", args=[m, g, "xlsx"])).getvalue())
    )
    sheet = book["Grid"]
    assert sheet.max_row == len(rows) + 1 and sheet.freeze_panes == "C2"
    assert sheet.cell(row=sheet.max_row, column=2).value == titles[-1]
    event = AuditEvent.objects.filter(action=AuditEvent.Action.EXPORTED).latest("id")
    assert event.detail["bytes"] > 0 and event.detail["format"] == "xlsx"


def test_a_memo_past_its_cell_limit_sets_out_the_first_documents_and_says_so(
    client, owner, grid, monkeypatch
):
    """WeasyPrint lays a memo out whole: a data room's grid would take minutes and gigabytes in
    one request, so the memo holds the first documents up to MEMO_MAX_CELLS cells and says how
    many of how many; read back from the PDF the route sends."""
    from legalnav.review import exports

    _grow(grid, 9)  # 10 rows of 3 columns
    monkeypatch.setattr(exports, "MEMO_MAX_CELLS", 12)  # 4 documents' worth
    monkeypatch.setattr(exports, "MEMO_CHARS_PER_CELL", float("inf"))  # cells alone, at first
    client.force_login(owner)
    page = client.get(reverse("grid-detail", args=[grid.matter_id, grid.pk])).content.decode()
    assert "The PDF memo sets out the first 4 of the 10 documents" in page  # said before, too
    response = client.post(reverse("grid-export", args=[grid.matter_id, grid.pk, "pdf"]))
    reader = PdfReader(io.BytesIO(response.getvalue()))
    text = " ".join(" ".join((p.extract_text() or "").split()) for p in reader.pages)
    assert "10 documents × 3 columns" in text
    assert "the first 4 of the grid's 10 documents" in text and "CSV and XLSX" in text
    assert "Contract 0002" in text and "Contract 0003" not in text  # rows 1-4: the first + 3
    monkeypatch.setattr(exports, "MEMO_MAX_CELLS", 30)  # the whole grid fits: no such note
    whole = grid_memo_html(grid, owner)
    assert "Contract 0008" in whole and "sets out the first" not in whole
    page = client.get(reverse("grid-detail", args=[grid.matter_id, grid.pk])).content.decode()
    assert 'data-testid="memo-limit"' not in page
    # Quotations take layout too: a cell counts one more per MEMO_CHARS_PER_CELL characters of
    # them. The third document's three cells quote at length (about 3 cells' worth each, as
    # stored), so with room for 12 cells' worth only the first two documents fit (3 + 3 + 12)
    monkeypatch.setattr(exports, "MEMO_MAX_CELLS", 12)
    monkeypatch.setattr(exports, "MEMO_CHARS_PER_CELL", 100)
    third = grid.rows.order_by("position").values_list("document_id", flat=True)[2]
    quote = {"text": "The Licensee shall not assign this Agreement. " * 6, "citation": "[D3:s1]"}
    assert 250 < len(json.dumps([quote])) < 400
    Cell.objects.filter(grid=grid).update(quotes=[])
    Cell.objects.filter(grid=grid, document_id=third).update(quotes=[quote])
    assert exports.memo_documents(grid, 3) == 2
    assert (
        "The PDF memo sets out the first 2 of the 10 documents"
        in client.get(reverse("grid-detail", args=[grid.matter_id, grid.pk])).content.decode()
    )
    assert "the first 2 of the grid's 10 documents" in " ".join(grid_memo_html(grid, owner).split())
    monkeypatch.setattr(exports, "MEMO_CHARS_PER_CELL", float("inf"))  # quotations weigh nothing
    assert exports.memo_documents(grid, 3) == 4
    # A poll draws the live fragment alone, which never says it: it does not count for the memo
    from legalnav.review import views

    def counted(*_args):  # type: ignore[no-untyped-def]
        raise AssertionError("a poll counted the memo's documents")

    monkeypatch.setattr(views, "memo_documents", counted)
    url = reverse("grid-detail", args=[grid.matter_id, grid.pk])
    poll = client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="grid-live")
    assert poll.status_code in (200, 286) and "Contract 0002" in poll.content.decode()
