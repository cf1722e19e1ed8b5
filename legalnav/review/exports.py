"""A review grid exported: CSV and XLSX (one row per document; per column its value, then its
citations) and a PDF memo with every quotation verbatim, laid out by WeasyPrint like the answer
memo (``answers/memo.py``). The XLSX also says each cell's review state beside its citation,
links each value to its provision in the reader, and has a second sheet, "Quotations": a row per
quotation (document, column, value, the verbatim words, the provision, the review state, a link),
and, for a grid that a playbook was applied to, a "Deviations" sheet (a row per document and
position: the verdict, why, and the quotation verbatim); the memo then opens with them.

Document text is untrusted here too: a value that a spreadsheet would read as a formula ("=",
"+", "-", "@" first) is written as text (CSV: a leading apostrophe, OWASP's advice; XLSX: a string
cell). WeasyPrint and openpyxl are imported only when an export is made (tests/test_lazy_imports).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify

from legalnav.review import playbooks
from legalnav.review.models import Cell, Grid, PlaybookRun
from legalnav.review.selectors import grid_counts, grid_table

if TYPE_CHECKING:
    from openpyxl.cell.cell import Cell as XlsxCell

FORMATS = ("csv", "xlsx", "pdf")
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pdf": "application/pdf",
}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True, slots=True)
class Export:
    data: bytes
    filename: str
    content_type: str


def cell_text(cell: Cell | None) -> str:
    """The value a cell shows (a reviewer's correction first); blank when not filled."""
    if cell is None:
        return ""
    return cell.shown_value


def cell_citations(cell: Cell | None) -> str:
    if cell is None or not cell.found:
        return ""
    return "; ".join(q.get("citation", "") for q in cell.quotes if q.get("citation"))


def grid_matrix(grid: Grid) -> tuple[list[str], list[list[str]]]:
    """The header and rows every spreadsheet export writes."""
    table = grid_table(grid=grid)
    header = ["Document", "Title"]
    for column in table.columns:
        header += [column.key, f"{column.key} (citation)"]
    rows = []
    for row in table.rows:
        line = [row.document.key, row.document.title]
        for cell in row.cells:
            line += [cell_text(cell), cell_citations(cell)]
        rows.append(line)
    return header, rows


def _safe(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_START) else value


def _filename(grid: Grid, ext: str) -> str:
    name = slugify(grid.title)[:60] or "grid"
    return f"legalnav-grid-{grid.pk}-{name}.{ext}"


def grid_csv(grid: Grid) -> bytes:
    header, rows = grid_matrix(grid)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([_safe(h) for h in header])
    for row in rows:
        writer.writerow([_safe(v) for v in row])
    return ("\ufeff" + out.getvalue()).encode("utf-8")  # the BOM: Excel reads it as UTF-8


REVIEW_STATES: dict[str, str] = {
    Cell.Review.NONE: "unreviewed",
    Cell.Review.CONFIRMED: "confirmed",
    Cell.Review.CORRECTED: "corrected",
}
_XLSX_MAX_CHARS = 32_000  # a spreadsheet cell holds 32,767 characters at most


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


def _xlsx_text(cell: XlsxCell, value: str) -> None:
    cell.value = value[:_XLSX_MAX_CHARS]
    cell.data_type = "s"  # never a formula, whatever the text starts with


def grid_xlsx(grid: Grid, base_url: str = "") -> bytes:
    from openpyxl import Workbook  # heavy: only when a spreadsheet is exported
    from openpyxl.styles import Alignment, Font

    table = grid_table(grid=grid)
    wrap = Alignment(wrap_text=True, vertical="top")
    bold = Font(bold=True)
    link_font = Font(color="0563C1", underline="single")
    book = Workbook()

    sheet = book.active
    sheet.title = "Grid"
    header = ["Document", "Title"]
    for column in table.columns:
        header += [column.key, f"{column.key} (citation)", f"{column.key} (review)"]
    for c, value in enumerate(header, start=1):
        cell = sheet.cell(row=1, column=c)
        _xlsx_text(cell, value)
        cell.font, cell.alignment = bold, wrap
    for r, row in enumerate(table.rows, start=2):
        line: list[tuple[str, str]] = [
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
        for c, (value, link) in enumerate(line, start=1):
            cell = sheet.cell(row=r, column=c)
            _xlsx_text(cell, value)
            cell.alignment = wrap
            if link:
                cell.hyperlink = link
                cell.font = link_font
    sheet.freeze_panes = "C2"

    quotes = book.create_sheet("Quotations")
    header = ["Document", "Column", "Value", "Quotation", "Provision", "Review", "Reader"]
    quotes.append(header)
    for c in range(1, len(header) + 1):
        quotes.cell(row=1, column=c).font = bold
    r = 1
    for row in table.rows:
        for column, got in row.pairs:
            if got is None or not got.found:
                continue
            for q in got.quotes or [{"text": got.quotation, "citation": got.citation}]:
                if not q.get("text"):
                    continue
                r += 1
                link = reader_url(base_url, got.document_id, q.get("node_id") or got.node_ref)
                values = [
                    row.document.key,
                    column.key,
                    got.shown_value,
                    q["text"],
                    q.get("citation", "") or got.citation,
                    cell_review_state(got),
                    link,
                ]
                for c, value in enumerate(values, start=1):
                    cell = quotes.cell(row=r, column=c)
                    _xlsx_text(cell, value)
                    cell.alignment = wrap
                reader = quotes.cell(row=r, column=len(values))
                reader.hyperlink, reader.font = link, link_font
    quotes.freeze_panes = "A2"
    for letter, width in zip("ABCDEFG", (10, 24, 30, 70, 18, 12, 40), strict=True):
        quotes.column_dimensions[letter].width = width
    _deviations_sheet(book, grid, base_url)

    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _runs(grid: Grid) -> list[PlaybookRun]:
    """The playbook runs on the grid, their verdicts decided afresh if the grid has changed."""
    runs = list(PlaybookRun.objects.filter(grid=grid).select_related("version", "grid"))
    for run in runs:
        playbooks.run_refresh(run=run)
    return runs


def _deviations_sheet(book, grid: Grid, base_url: str) -> None:  # type: ignore[no-untyped-def]
    from openpyxl.styles import Alignment, Font

    runs = _runs(grid)
    if not runs:
        return
    sheet = book.create_sheet("Deviations")
    header = ["Playbook", "Document", "Title", "Position", "Rule", "Severity", "Verdict",
              "Value", "Why", "Quotation", "Provision", "Reader"]  # fmt: skip
    sheet.append(header)
    for c in range(1, len(header) + 1):
        sheet.cell(row=1, column=c).font = Font(bold=True)
    wrap = Alignment(wrap_text=True, vertical="top")
    r = 1
    for run in runs:
        positions = playbooks.positions_of(run.version.positions)
        for v in playbooks.verdicts_filtered(run=run, verdict=""):
            r += 1
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
                link,
            ]
            for c, value in enumerate(values, start=1):
                cell = sheet.cell(row=r, column=c)
                _xlsx_text(cell, value)
                cell.alignment = wrap
            sheet.cell(row=r, column=len(values)).hyperlink = link
    sheet.freeze_panes = "A2"
    sheet.auto_filter.ref = f"A1:L{r}"


def grid_memo_html(grid: Grid, user: object) -> str:
    """The memo as HTML (what WeasyPrint lays out); every document string escaped. A grid that a
    playbook was applied to opens with its deviations (deviates, missing, needs review), each
    with its quotation verbatim."""
    table = grid_table(grid=grid)
    deviations = [
        {
            "run": run,
            "summary": playbooks.run_summary(run=run),
            "counts": playbooks.run_document_counts(run=run),
            "problems": list(playbooks.verdicts_filtered(run=run, verdict="problems")[:2000]),
        }
        for run in _runs(grid)
    ]
    return render_to_string(
        "review/memo.html",
        {
            "grid": grid,
            "matter": grid.matter,
            "table": table,
            "counts": grid_counts(grid=grid),
            "deviations": deviations,
            "exported_at": timezone.now(),
            "exported_by": getattr(user, "get_username", lambda: "")(),
        },
    )


def grid_pdf(grid: Grid, user: object) -> bytes:
    from weasyprint import HTML  # heavy: only when a memo is actually exported

    return HTML(string=grid_memo_html(grid, user)).write_pdf()  # type: ignore[no-any-return]


def grid_export_render(*, grid: Grid, fmt: str, user: object, base_url: str = "") -> Export:
    """Render the export (nothing recorded: ``actions.grid_export`` audits it)."""
    if fmt == "csv":
        data = grid_csv(grid)
    elif fmt == "xlsx":
        data = grid_xlsx(grid, base_url)
    elif fmt == "pdf":
        data = grid_pdf(grid, user)
    else:
        raise ValueError(f"unknown export format {fmt!r}")
    return Export(data=data, filename=_filename(grid, fmt), content_type=CONTENT_TYPES[fmt])
