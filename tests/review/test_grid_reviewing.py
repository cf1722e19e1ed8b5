"""Working through a review grid, through the Django test client against the real database: the
estimate keeps every choice of the form (so the grid made after it is the grid estimated), a
document's own columns are never "changed by" its amendment, the grid's cell follows a review
out of band, a whole column confirmed at once (audited, access checked), and the XLSX read back
with its quotations sheet, its links to the reader and each cell's review state."""

from __future__ import annotations

import io
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from legalnav.matters.models import AuditEvent, Membership
from legalnav.review import actions, selectors
from legalnav.review.models import Cell, Grid, GridColumn, SavedColumn
from legalnav.review.services import ColumnSpec
from legalnav.review.verbs import Verb as ReviewVerb
from tests.conftest import MembershipFactory, UserFactory, index_bioamber_pair

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(matter):
    return index_bioamber_pair(matter)


def make_grid(matter, user, columns, document_ids, capture) -> Grid:
    with capture(execute=True):
        grid = actions.grid_create(
            matter=matter,
            user=user,
            title="Diligence",
            columns=columns,
            document_ids=document_ids,
            mode="offline",
            via="page",
        )
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE, grid.error_message
    return grid


class FormValues(HTMLParser):
    """What a browser would submit from the page's one form (without its buttons): checked
    boxes and radios, text inputs, selected options, as (name, value) pairs."""

    def __init__(self) -> None:
        super().__init__()
        self.pairs: list[tuple[str, str]] = []
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        name = a.get("name") or ""
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.pairs.append((name, a.get("value") or "on"))
            elif kind not in ("submit", "button"):
                self.pairs.append((name, a.get("value") or ""))
        elif tag == "select":
            self._select, self._options = name, []
        elif tag == "option" and self._select is not None:
            self._options.append((a.get("value") or "", "selected" in a))

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self._select is not None:
            chosen = [v for v, on in self._options if on] or [self._options[0][0]]
            self.pairs.append((self._select, chosen[0]))
            self._select = None


def form_values(html: str) -> dict[str, list[str]]:
    parser = FormValues()
    parser.feed(html[html.index('<form method="post" action="/matters/') :])
    out: dict[str, list[str]] = {}
    for name, value in parser.pairs:
        out.setdefault(name, []).append(value)
    return out


def test_the_estimate_keeps_every_choice_and_make_then_makes_that_grid(
    client, matter, owner, pair, django_capture_on_commit_callbacks
):
    base, amendment = pair
    saved = SavedColumn.objects.create(
        matter=matter, created_by=owner, key="Audit", question="May a party audit?", type="yes_no"
    )
    client.force_login(owner)
    url = reverse("grid-new", args=[matter.pk])
    chosen = {
        "title": "Cargill diligence",
        # "All" ticked while single presets are too (as a page without its script sends it):
        # the presets ticked are the choice, not all 41.
        "preset_all": "on",
        "preset": ["Governing Law", "Parties", "Expiration Date"],
        "saved": [str(saved.pk)],
        "own_key": ["Notice address", "", ""],
        "own_question": ["Where must notices be sent?", "Who may assign it?", ""],
        "own_type": ["text", "party", "text"],
        "save_own": "on",
        "documents": [str(amendment.pk)],
        "mode": "offline",
    }
    estimate = client.post(url, {**chosen, "estimate": "1"})
    assert estimate.status_code == 200, estimate.content.decode()[:2000]
    html = estimate.content.decode()
    assert "1 document × 6 columns = 6 cells" in html
    assert not Grid.objects.exists()
    shown = form_values(html)
    assert shown["title"] == ["Cargill diligence"]
    assert shown["preset"] == ["Parties", "Expiration Date", "Governing Law"]  # CUAD's order
    assert "preset_all" not in shown  # three of 41 is not all
    assert shown["saved"] == [str(saved.pk)]
    assert shown["own_key"] == ["Notice address", "Who may assign it?", ""]
    assert shown["own_question"] == ["Where must notices be sent?", "Who may assign it?", ""]
    assert shown["own_type"] == ["text", "party", "clause"]
    assert shown["save_own"] == ["on"] and shown["mode"] == ["offline"]
    assert shown["documents"] == [str(amendment.pk)]

    # "Make the grid" from the form as the estimate left it makes exactly the grid estimated.
    with django_capture_on_commit_callbacks(execute=True):
        made = client.post(url, shown)
    assert made.status_code == 303
    grid = Grid.objects.get()
    columns = [(c.key, c.type) for c in grid.columns.order_by("position")]
    assert columns == [
        ("Parties", "party"),
        ("Expiration Date", "date"),
        ("Governing Law", "text"),
        ("Audit", "yes_no"),
        ("Notice address", "text"),
        ("Who may assign it?", "party"),
    ]
    assert list(grid.rows.values_list("document_id", flat=True)) == [amendment.pk]
    assert grid.title == "Cargill diligence" and grid.cells_total == 6


def test_all_with_no_single_preset_ticked_is_all_and_the_form_says_so(client, matter, owner, pair):
    client.force_login(owner)
    page = client.post(
        reverse("grid-new", args=[matter.pk]), {"preset_all": "on", "estimate": "1"}
    ).content.decode()
    shown = form_values(page)
    assert len(shown["preset"]) == 41 and shown["preset_all"] == ["on"]
    assert "2 documents × 41 columns" in page


def test_a_documents_own_columns_are_never_changed_by_its_amendment(
    client, matter, owner, pair, django_capture_on_commit_callbacks
):
    base, amendment = pair
    own = ["Document Name", "Parties", "Agreement Date", "Effective Date"]
    columns = [ColumnSpec(key, f"What is its {key.lower()}?", "text") for key in own]
    columns.append(ColumnSpec("Governing Law", "Which law governs it?", "text"))
    grid = make_grid(matter, owner, columns, None, django_capture_on_commit_callbacks)
    cells = {
        (c.document_id, c.column.key): c
        for c in Cell.objects.filter(grid=grid).select_related("column")
    }
    # The amendment answers every column firmly, with another value than the agreement's: its
    # own title, parties as named and dates, and (a term) another governing law.
    for key in [*own, "Governing Law"]:
        Cell.objects.filter(pk=cells[(amendment.pk, key)].pk).update(
            found=True,
            status="found",
            value=f"the amendment's {key} 2011",
            quotation="First Amendment",
            confidence=0.95,
            reviewed_status="none",
        )
        base_cell = cells[(base.pk, key)]
        Cell.objects.filter(pk=base_cell.pk).update(
            found=True, status="found", value=f"the agreement's {key}", confidence=0.95
        )
    amended = selectors.amending_cells(grid=grid, documents=selectors.row_documents(grid))
    law = GridColumn.objects.get(grid=grid, key="Governing Law")
    assert set(amended) == {(base.pk, law.pk)}  # the term column only
    table = selectors.grid_table(grid=grid)
    assert table.counts["amended"] == 1
    client.force_login(owner)
    html = client.get(reverse("grid-detail", args=[matter.pk, grid.pk])).content.decode()
    assert html.count('data-testid="amended"') == 1
    assert f"changed by {amendment.key}: the amendment&#x27;s Governing Law" in html
    for key in own:
        panel = client.get(
            reverse("grid-cell", args=[matter.pk, grid.pk, cells[(base.pk, key)].pk]),
            HTTP_HX_REQUEST="true",
        ).content.decode()
        assert "amended-by" not in panel and "Changed by" not in panel, key


def test_a_review_from_the_panel_sends_the_grids_cell_and_counts_back_out_of_band(
    client, matter, owner, pair, django_capture_on_commit_callbacks
):
    base, _ = pair
    columns = [ColumnSpec("Governing Law", "Which law governs it?", "text")]
    grid = make_grid(matter, owner, columns, [base.pk], django_capture_on_commit_callbacks)
    cell = Cell.objects.get(grid=grid)
    client.force_login(owner)
    url = reverse("grid-cell-review", args=[matter.pk, grid.pk, cell.pk])
    html = client.post(url, {"review": "confirmed"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'class="panel-body"' in html
    oob = html[html.index(f'id="cell-link-{cell.pk}"') - 60 :]
    assert 'hx-swap-oob="true"' in oob and "reviewed-confirmed" in oob and "✓ confirmed" in oob
    counts = html[html.index('id="grid-counts"') :]
    assert counts.startswith('id="grid-counts" hx-swap-oob="true"') and "1 reviewed" in counts
    # A refused review changes nothing in the grid: no cell comes back with it.
    bad = client.post(url, {"review": "corrected", "value": ""}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 400 and b"hx-swap-oob" not in bad.content


def test_confirm_a_column_confirms_its_found_unreviewed_cells_once_audited(
    client, matter, owner, pair, django_capture_on_commit_callbacks
):
    base, amendment = pair
    columns = [
        ColumnSpec("Governing Law", "Which law governs it?", "text"),
        ColumnSpec("Parties", "Who are the parties?", "party"),
    ]
    grid = make_grid(matter, owner, columns, None, django_capture_on_commit_callbacks)
    law = GridColumn.objects.get(grid=grid, key="Governing Law")
    found, corrected, missing = (
        Cell.objects.get(grid=grid, column=law, document=base),
        Cell.objects.get(grid=grid, column=law, document=amendment),
        None,
    )
    Cell.objects.filter(pk=found.pk).update(found=True, status="found", value="Minnesota")
    Cell.objects.filter(pk=corrected.pk).update(
        found=True, status="found", reviewed_status="corrected", corrected_value="Delaware"
    )
    missing = Cell.objects.filter(grid=grid).exclude(column=law).first()
    Cell.objects.filter(pk=missing.pk).update(found=False, status="not_found")
    parties_before = dict(Cell.objects.exclude(column=law).values_list("pk", "reviewed_status"))

    url = reverse("grid-column-confirm", args=[matter.pk, grid.pk, law.pk])
    # A non-member gets a 404 and changes nothing; a GET is refused.
    client.force_login(UserFactory())
    assert client.post(url).status_code == 404
    client.force_login(owner)
    assert client.get(url).status_code == 405
    assert Cell.objects.filter(grid=grid, reviewed_status="confirmed").count() == 0

    response = client.post(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="grid-live")
    html = response.content.decode()
    assert response.status_code == 200 and 'id="grid-live"' in html and "<html" not in html
    assert "Confirmed 1 cell of “Governing Law”." in html
    found.refresh_from_db()
    corrected.refresh_from_db()
    assert found.reviewed_status == "confirmed" and found.reviewed_by == owner
    assert found.reviewed_at is not None
    assert corrected.reviewed_status == "corrected" and corrected.corrected_value == "Delaware"
    after = dict(Cell.objects.exclude(column=law).values_list("pk", "reviewed_status"))
    assert after == parties_before  # another column is untouched
    (event,) = AuditEvent.objects.filter(matter=matter, action=ReviewVerb.CELL_REVIEWED)
    assert event.user == owner and event.detail["cell_ids"] == [found.pk]
    assert event.detail["column"] == "Governing Law" and event.detail["via"] == "page"

    # Again: nothing left to confirm, and no second audit row.
    again = client.post(url)
    assert again.status_code == 303
    assert AuditEvent.objects.filter(action=ReviewVerb.CELL_REVIEWED).count() == 1
    page = client.get(again["Location"]).content.decode()
    assert "No found cell of “Governing Law” was left to confirm." in page
    # A column of another grid is not found under this one.
    other = make_grid(matter, owner, columns, [base.pk], django_capture_on_commit_callbacks)
    foreign = GridColumn.objects.get(grid=other, key="Governing Law")
    bad = reverse("grid-column-confirm", args=[matter.pk, grid.pk, foreign.pk])
    assert client.post(bad).status_code == 404
    # A viewer may confirm (as they may review a cell); the action checks it too.
    viewer = MembershipFactory(matter=matter, role=Membership.Role.VIEWER).user
    assert actions.column_confirm(matter=matter, user=viewer, grid=other, column=foreign, via="t")
    stranger = MembershipFactory().user
    with pytest.raises(Exception) as refused:
        actions.column_confirm(matter=matter, user=stranger, grid=other, column=foreign, via="t")
    assert refused.type.__name__ == "Http404"


def test_the_xlsx_has_quotations_links_to_the_reader_and_review_states(
    client, matter, owner, pair, django_capture_on_commit_callbacks
):
    base, amendment = pair
    columns = [
        ColumnSpec("Governing Law", "Which law governs it?", "text"),
        ColumnSpec("Parties", "Who are the parties?", "party"),
    ]
    grid = make_grid(matter, owner, columns, None, django_capture_on_commit_callbacks)
    law = Cell.objects.get(grid=grid, document=base, column__key="Governing Law")
    assert law.found and law.quotes and law.node_ref
    Cell.objects.filter(pk=law.pk).update(reviewed_status="confirmed")
    parties = Cell.objects.get(grid=grid, document=base, column__key="Parties")
    Cell.objects.filter(pk=parties.pk).update(
        reviewed_status="corrected", corrected_value="=Cargill; BioAmber"
    )
    client.force_login(owner)
    response = client.post(reverse("grid-export", args=[matter.pk, grid.pk, "xlsx"]))
    assert response.status_code == 200
    book = load_workbook(io.BytesIO(response.getvalue()))
    assert book.sheetnames == ["Grid", "Quotations"]

    sheet = book["Grid"]
    header = [c.value for c in sheet[1]]
    assert header[:5] == [
        "Document",
        "Title",
        "Governing Law",
        "Governing Law (citation)",
        "Governing Law (review)",
    ]
    rows = {sheet.cell(row=r, column=1).value: r for r in range(2, sheet.max_row + 1)}
    r = rows[base.key]
    value = sheet.cell(row=r, column=3)
    assert value.value == law.value
    reader = f"http://testserver/documents/{base.pk}/#{law.node_ref}"
    assert value.hyperlink is not None and value.hyperlink.target == reader
    assert sheet.cell(row=r, column=5).value == "confirmed"
    corrected = sheet.cell(row=r, column=header.index("Parties") + 1)
    assert corrected.value == "=Cargill; BioAmber" and corrected.data_type == "s"
    assert sheet.cell(row=r, column=header.index("Parties (review)") + 1).value == "corrected"
    review_of_amendment = sheet.cell(row=rows[amendment.key], column=5).value
    assert review_of_amendment == "unreviewed"
    assert sheet.cell(row=r, column=1).hyperlink.target == f"http://testserver/documents/{base.pk}/"
    for row in sheet.iter_rows(min_row=2):  # every filled cell's value links to the reader
        for cell in row[2::3]:
            assert cell.hyperlink is not None
            assert cell.hyperlink.target.startswith("http://testserver/documents/")

    quotes = book["Quotations"]
    assert [c.value for c in quotes[1]] == [
        "Document",
        "Column",
        "Value",
        "Quotation",
        "Provision",
        "Review",
        "Reader",
    ]
    lines = [[c.value for c in row] for row in quotes.iter_rows(min_row=2)]
    found = Cell.objects.filter(grid=grid, found=True).select_related("column", "document")
    expected = sum(len([q for q in c.quotes if q.get("text")]) for c in found)
    assert len(lines) == expected > 0
    mine = [ln for ln in lines if ln[0] == base.key and ln[1] == "Governing Law"]
    first = law.quotes[0]
    assert mine[0][2:6] == [law.value, first["text"], first["citation"], "confirmed"]
    link = quotes.cell(row=2 + lines.index(mine[0]), column=7).hyperlink
    assert link.target == f"http://testserver/documents/{base.pk}/#{first['node_id']}"
    # The quotation is the document's words verbatim.
    assert first["text"] in base.text or " ".join(first["text"].split()) in " ".join(
        base.text.split()
    )
