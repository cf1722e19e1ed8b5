"""A review grid exported: CSV and XLSX (one row per document; per column its value, then its
citations) and a PDF memo with every quotation verbatim, laid out by WeasyPrint like the answer
memo (``answers/memo.py``). The XLSX also says each cell's review state beside its citation,
links each value to its provision in the reader, and has a second sheet, "Quotations": a row per
quotation (document, column, value, the verbatim words, the provision, the review state, a link),
and, for a grid that a playbook was applied to, a "Deviations" sheet (a row per document and
position: the verdict, why, and the quotation verbatim); the memo then opens with them.

Document text is untrusted here too: a value that a spreadsheet would read as a formula ("=",
"+", "-", "@" first) is written as text (CSV: a leading apostrophe, OWASP's advice; XLSX: a string
cell). WeasyPrint is imported only when an export is made (tests/test_lazy_imports); the XLSX is
written by ``xlsx.py``, whose memory does not grow with the grid.
"""

from __future__ import annotations

import csv
import io
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING
from urllib.parse import quote

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify

from legalnav.core.users import actor_name
from legalnav.review import playbooks, xlsx
from legalnav.review.models import Cell, Grid, GridColumn, PlaybookRun
from legalnav.review.selectors import grid_counts, grid_pages, grid_table

if TYPE_CHECKING:
    from django.contrib.auth.models import User

FORMATS = ("csv", "xlsx", "pdf")
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pdf": "application/pdf",
}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


# An export is written to a temporary file (kept in memory up to this size, on disk past it)
# and sent from there in chunks: a 10,000-document grid is never held whole.
SPOOL_BYTES = 8 * 1024 * 1024
PAGE_ROWS = 500  # documents read per query while a spreadsheet is written


@dataclass(frozen=True, slots=True)
class Export:
    file: IO[bytes]  # positioned at its start; the response sends and closes it
    size: int
    filename: str
    content_type: str

    @property
    def data(self) -> bytes:
        """The whole export (tests and small callers; the page streams ``file``)."""
        self.file.seek(0)
        data = self.file.read()
        self.file.seek(0)
        return data


def cell_text(cell: Cell | None) -> str:
    """The value a cell shows (a reviewer's correction first); blank when not filled."""
    if cell is None:
        return ""
    return cell.shown_value


def cell_citations(cell: Cell | None) -> str:
    if cell is None or not cell.found:
        return ""
    return "; ".join(q.get("citation", "") for q in cell.quotes if q.get("citation"))


def grid_header(columns: list[GridColumn]) -> list[str]:
    header = ["Document", "Title"]
    for column in columns:
        header += [column.key, f"{column.key} (citation)"]
    return header


def grid_lines(grid: Grid) -> Iterator[tuple[list[GridColumn], list[str]]]:
    """(the columns, a row) for every row of the grid, read a page of documents at a time."""
    for table in grid_pages(grid, PAGE_ROWS):
        for row in table.rows:
            line = [row.document.key, row.document.title]
            for cell in row.cells:
                line += [cell_text(cell), cell_citations(cell)]
            yield table.columns, line


def grid_matrix(grid: Grid) -> tuple[list[str], list[list[str]]]:
    """The header and rows every spreadsheet export writes (whole: for small grids and tests)."""
    columns = list(GridColumn.objects.filter(grid=grid).order_by("position"))
    return grid_header(columns), [line for _, line in grid_lines(grid)]


def _safe(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_START) else value


def _filename(grid: Grid, ext: str) -> str:
    name = slugify(grid.title)[:60] or "grid"
    return f"legalnav-grid-{grid.pk}-{name}.{ext}"


def _spooled() -> IO[bytes]:
    return tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 (sent, then closed)


def grid_csv_file(grid: Grid) -> IO[bytes]:
    """The CSV, written row by row into a spooled file."""
    out = _spooled()
    text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
    text.write("\ufeff")  # the BOM: Excel reads it as UTF-8
    writer = csv.writer(text)
    columns = list(GridColumn.objects.filter(grid=grid).order_by("position"))
    writer.writerow([_safe(h) for h in grid_header(columns)])
    for _, line in grid_lines(grid):
        writer.writerow([_safe(v) for v in line])
    text.detach()  # leaves ``out`` open
    out.seek(0)
    return out


def grid_csv(grid: Grid) -> bytes:
    with grid_csv_file(grid) as out:
        return out.read()


REVIEW_STATES: dict[str, str] = {
    Cell.Review.NONE: "unreviewed",
    Cell.Review.CONFIRMED: "confirmed",
    Cell.Review.CORRECTED: "corrected",
}


def cell_review_state(cell: Cell | None) -> str:
    """The review state: confirmed, corrected or unreviewed (blank when the cell is not filled)."""
    if cell is None:
        return ""
    return REVIEW_STATES.get(cell.reviewed_status, cell.reviewed_status)


def reader_url(base_url: str, document_id: int, node_ref: str = "") -> str:
    """The reader's address of a document, at a provision when there is one. Absolute when the
    site's address is known (the page passes it); a relative path otherwise."""
    path = reverse("document-detail", args=[document_id])
    anchor = f"#{quote(node_ref, safe='.-_:')}" if node_ref else ""
    return f"{base_url.rstrip('/')}{path}{anchor}" if base_url else f"{path}{anchor}"


def _sheet(book: xlsx.Book, title: str, header: list[str], freeze: str = "A2") -> xlsx.Sheet:
    """A sheet of the export with its header row in bold and its panes frozen below it."""
    sheet = book.sheet(title)
    sheet.freeze = freeze
    sheet.append([(h, "") for h in header], style=xlsx.BOLD)
    return sheet


def grid_xlsx_file(grid: Grid, base_url: str = "") -> IO[bytes]:
    """The XLSX, written a page of documents at a time (``xlsx.py``: rows, links and their
    targets go to temporary files, so memory does not grow with the grid) into a spooled file:
    the grid sheet, the quotations sheet, then the deviations sheet."""
    book = xlsx.Book()
    columns = list(GridColumn.objects.filter(grid=grid).order_by("position"))
    header = ["Document", "Title"]
    for column in columns:
        header += [column.key, f"{column.key} (citation)", f"{column.key} (review)"]
    main = _sheet(book, "Grid", header, freeze="C2")
    quotes = _sheet(
        book,
        "Quotations",
        ["Document", "Column", "Value", "Quotation", "Provision", "Review", "Reader"],  # fmt: skip
    )
    quotes.widths = dict(enumerate((10, 24, 30, 70, 18, 12, 40), start=1))
    for table in grid_pages(grid, PAGE_ROWS):
        for row in table.rows:
            line = [
                (row.document.key, reader_url(base_url, row.document.pk)),
                (row.document.title, ""),
            ]
            for got in row.cells:
                link = ""
                if got is not None:
                    link = reader_url(base_url, got.document_id, got.node_ref if got.found else "")
                line += [
                    (cell_text(got), link),
                    (cell_citations(got), ""),
                    (cell_review_state(got), ""),
                ]
            main.append(line)
            for column, got in row.pairs:
                if got is None or not got.found:
                    continue
                for q in got.quotes or [{"text": got.quotation, "citation": got.citation}]:
                    if not q.get("text"):
                        continue
                    link = reader_url(base_url, got.document_id, q.get("node_id") or got.node_ref)
                    values = [row.document.key, column.key, got.shown_value, q["text"],
                              q.get("citation", "") or got.citation, cell_review_state(got)]  # fmt: skip
                    quotes.append([(v, "") for v in values] + [(link, link)])
    _deviations_sheet(book, grid, base_url)
    out = _spooled()
    book.save(out)
    out.seek(0)
    return out


def grid_xlsx(grid: Grid, base_url: str = "") -> bytes:
    with grid_xlsx_file(grid, base_url) as out:
        return out.read()


def _runs(grid: Grid) -> list[PlaybookRun]:
    """The playbook runs on the grid, their verdicts decided afresh if the grid has changed."""
    runs = list(PlaybookRun.objects.filter(grid=grid).select_related("version", "grid"))
    for run in runs:
        playbooks.run_refresh(run=run)
    return runs


def _deviations_sheet(book: xlsx.Book, grid: Grid, base_url: str) -> None:
    runs = _runs(grid)
    if not runs:
        return
    sheet = _sheet(
        book, "Deviations", ["Playbook", "Document", "Title", "Position", "Rule", "Severity",
                             "Verdict", "Value", "Why", "Quotation", "Provision", "Reader"],
    )  # fmt: skip
    for run in runs:
        positions = playbooks.positions_of(run.version.positions)
        for v in playbooks.verdicts_filtered(run=run, verdict="").iterator(chunk_size=PAGE_ROWS):
            node_ref = v.cell.node_ref if v.cell is not None and v.cell.found else ""
            link = reader_url(base_url, v.cell.document_id if v.cell else v.document_id, node_ref)
            values = [
                f"{run.version.name} v{run.version.number}",
                v.document.key,
                v.document.title,
                v.key,
                positions[v.position].rule.describe() if v.position < len(positions) else "",
                v.severity,
                v.get_verdict_display(),
                v.value,
                v.reason,
                v.quotation,
                v.citation,
            ]
            sheet.append([(value, "") for value in values] + [(link, link)])
    sheet.auto_filter = f"A1:L{sheet.rows}"


# WeasyPrint lays a memo out whole, in memory, so a data room's grid (2,000 documents x 41
# columns) would take many minutes and gigabytes inside one request. Measured on 2 cores
# (one-off, 2026-12-06): 2,000 cells with no quotation 9 s; with one quotation each of 400, 700
# and 1,500 characters, 19 s, 28 s and 40 s (413 to 1,001 pages). So the memo sets out the first
# documents, in the grid's order, up to MEMO_MAX_CELLS cells' worth of layout, a cell counting
# one and its quotations one more for every MEMO_CHARS_PER_CELL characters (100 documents x 40
# columns: 7-8 s whatever the quotations), and says so; the CSV and XLSX exports, written a page
# at a time, hold every document.
MEMO_MAX_CELLS = 2000
MEMO_CHARS_PER_CELL = 400
# Deviations quoted per playbook run (1,000 of 700 characters each: about 14 s more); the count
# above them is whole, and the XLSX's Deviations sheet has every one.
MEMO_MAX_PROBLEMS = 1000


def memo_documents(grid: Grid, columns: int) -> int:
    """How many documents the grid's PDF memo sets out: the first in the grid's order whose cells
    fit ``MEMO_MAX_CELLS`` cells' worth of layout (a cell one, and one more per
    ``MEMO_CHARS_PER_CELL`` characters of its quotations as stored); at least one. Reads only the
    cells of the documents that could fit."""
    from django.db.models import Sum, TextField
    from django.db.models.functions import Cast, Length

    columns = max(1, columns)
    order = list(
        grid.rows.order_by("position").values_list("document_id", flat=True)[
            : max(1, MEMO_MAX_CELLS // columns)
        ]
    )
    chars = dict(
        Cell.objects.filter(grid=grid, document_id__in=order)
        .values("document_id")
        .annotate(n=Sum(Length(Cast("quotes", TextField()))))
        .values_list("document_id", "n")
    )
    spent = 0.0
    for i, doc in enumerate(order):
        spent += columns + (chars.get(doc) or 0) / MEMO_CHARS_PER_CELL
        if spent > MEMO_MAX_CELLS:
            return max(1, i)
    return max(1, len(order))


def grid_memo_html(grid: Grid, user: User) -> str:
    """The memo as HTML (what WeasyPrint lays out); every document string escaped. A grid that a
    playbook was applied to opens with its deviations (deviates, missing, needs review), each
    with its quotation verbatim. Past ``MEMO_MAX_CELLS`` cells' worth of layout, the memo's
    table holds the first documents in the grid's order (``memo_documents``) and says how many
    it leaves to the CSV and XLSX exports."""
    per_page = memo_documents(grid, GridColumn.objects.filter(grid=grid).count())
    table = grid_table(grid=grid, per_page=per_page)
    deviations = []
    for run in _runs(grid):
        # one more than are quoted: whether the memo leaves some to the XLSX
        problems = list(
            playbooks.verdicts_filtered(run=run, verdict="problems")[: MEMO_MAX_PROBLEMS + 1]
        )
        deviations.append(
            {
                "run": run,
                "summary": playbooks.run_summary(run=run),
                "counts": playbooks.run_document_counts(run=run),
                "problems": problems[:MEMO_MAX_PROBLEMS],
                "problems_left": len(problems) > MEMO_MAX_PROBLEMS,
            }
        )
    return render_to_string(
        "review/memo.html",
        {
            "grid": grid,
            "matter": grid.matter,
            "table": table,
            "counts": grid_counts(grid=grid),
            "deviations": deviations,
            "exported_at": timezone.now(),
            "exported_by": actor_name(user),
            "max_cells": MEMO_MAX_CELLS,
            "max_problems": MEMO_MAX_PROBLEMS,
        },
    )


def grid_pdf(grid: Grid, user: User) -> bytes:
    from weasyprint import HTML  # heavy: only when a memo is actually exported

    return HTML(string=grid_memo_html(grid, user)).write_pdf()  # type: ignore[no-any-return]


def grid_export_render(*, grid: Grid, fmt: str, user: User, base_url: str = "") -> Export:
    """Render the export (nothing recorded: ``actions.grid_export`` audits it)."""
    if fmt == "csv":
        out = grid_csv_file(grid)
    elif fmt == "xlsx":
        out = grid_xlsx_file(grid, base_url)
    elif fmt == "pdf":
        out = _spooled()
        out.write(grid_pdf(grid, user))
        out.seek(0)
    else:
        raise ValueError(f"unknown export format {fmt!r}")
    size = out.seek(0, io.SEEK_END)
    out.seek(0)
    return Export(out, size, _filename(grid, fmt), CONTENT_TYPES[fmt])
