"""A review grid exported: CSV and XLSX (one row per document; per column its value, then its
citations) and a PDF memo with every quotation verbatim, laid out by WeasyPrint like the answer
memo (``answers/memo.py``).

Document text is untrusted here too: a value that a spreadsheet would read as a formula ("=",
"+", "-", "@" first) is written as text (CSV: a leading apostrophe, OWASP's advice; XLSX: a string
cell). WeasyPrint and openpyxl are imported only when an export is made (tests/test_lazy_imports).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.text import slugify

from legalnav.review.models import Cell, Grid
from legalnav.review.selectors import grid_counts, grid_table

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


def grid_xlsx(grid: Grid) -> bytes:
    from openpyxl import Workbook  # heavy: only when a spreadsheet is exported
    from openpyxl.styles import Alignment, Font

    header, rows = grid_matrix(grid)
    book = Workbook()
    sheet = book.active
    sheet.title = "Grid"
    for r, values in enumerate([header, *rows], start=1):
        for c, value in enumerate(values, start=1):
            cell = sheet.cell(row=r, column=c)
            cell.value = value
            cell.data_type = "s"  # never a formula, whatever the text starts with
            cell.alignment = Alignment(wrap_text=True, vertical="top")
            if r == 1:
                cell.font = Font(bold=True)
    sheet.freeze_panes = "C2"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def grid_memo_html(grid: Grid, user: object) -> str:
    """The memo as HTML (what WeasyPrint lays out); every document string escaped."""
    table = grid_table(grid=grid)
    return render_to_string(
        "review/memo.html",
        {
            "grid": grid,
            "matter": grid.matter,
            "table": table,
            "counts": grid_counts(grid=grid),
            "exported_at": timezone.now(),
            "exported_by": getattr(user, "get_username", lambda: "")(),
        },
    )


def grid_pdf(grid: Grid, user: object) -> bytes:
    from weasyprint import HTML  # heavy: only when a memo is actually exported

    return HTML(string=grid_memo_html(grid, user)).write_pdf()  # type: ignore[no-any-return]


def grid_export_render(*, grid: Grid, fmt: str, user: object) -> Export:
    """Render the export (nothing recorded: ``actions.grid_export`` audits it)."""
    if fmt == "csv":
        data = grid_csv(grid)
    elif fmt == "xlsx":
        data = grid_xlsx(grid)
    elif fmt == "pdf":
        data = grid_pdf(grid, user)
    else:
        raise ValueError(f"unknown export format {fmt!r}")
    return Export(data=data, filename=_filename(grid, fmt), content_type=CONTENT_TYPES[fmt])
