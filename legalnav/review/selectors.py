"""Reading review grids: a matter's grids, one grid as a table (rows of documents, a cell per
column, filtered), one cell with its provision verbatim for the side panel. Access is checked by
the caller (``matters.access``); everything here is looked up within the matter given, so an id of
another matter's grid is "not found"."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import Count, Q, QuerySet
from django.urls import reverse

from legalnav.answers import snapshots
from legalnav.answers.selectors import (
    ProvisionLine,
    phrase_patterns,
    provision_lines,
    snapshot_lines,
)
from legalnav.core import jobs
from legalnav.core.lookup import row_or_404
from legalnav.documents.models import Document, Node
from legalnav.matters.models import Matter
from legalnav.review.columns import CUAD_COLUMNS, Column
from legalnav.review.models import (
    GRID_COUNTS,
    LOW_CELLS,
    LOW_CONFIDENCE,
    Cell,
    Grid,
    GridChunk,
    GridColumn,
    SavedColumn,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

FILTERS = {
    "": "All cells",
    "not_found": "Nothing quoted",
    "low": f"Low confidence (< {LOW_CONFIDENCE:g})",
    "amended": "Changed by an amendment",
    "reviewed": "Reviewed",
    "unreviewed": "Not reviewed",
}

# Columns that describe the instrument itself rather than a term it sets: an amendment has its
# own title, parties as named, date and effective date, and those never change the agreement's.
# Compared by key, so a user's own column of the same name counts as well.
DOCUMENT_OWN_COLUMNS = frozenset({"Document Name", "Parties", "Agreement Date", "Effective Date"})


def preset_columns() -> tuple[Column, ...]:
    return CUAD_COLUMNS


def grid_list(*, matter: Matter) -> QuerySet[Grid]:
    return (
        Grid.objects.filter(matter=matter)
        .select_related("created_by")
        .annotate(
            n_documents=Count("rows", distinct=True), n_columns=Count("columns", distinct=True)
        )
        .order_by("-created_at", "-id")
    )


def grid_get(*, matter: Matter, grid_id: object) -> Grid:
    return row_or_404(
        Grid.objects.filter(matter=matter).select_related("created_by"),
        grid_id,
        "No such review grid.",
    )


def grid_poll(*, grid: Grid) -> Grid:
    """The grid for a poll: swept at once when nobody is working on it (``core.jobs``)."""
    return jobs.job_poll_check("grid", grid)  # type: ignore[no-any-return]


def grid_stale(grid: Grid) -> bool:
    return jobs.is_stale(jobs.spec_for("grid"), grid)


def cell_get(*, grid: Grid, cell_id: object) -> Cell:
    return row_or_404(
        Cell.objects.filter(grid=grid)
        .select_related("grid", "column", "document", "node", "reviewed_by")
        .defer("document__text"),
        cell_id,
        "No such cell.",
    )


def column_get(*, grid: Grid, column_id: object) -> GridColumn:
    return row_or_404(GridColumn.objects.filter(grid=grid), column_id, "No such column.")


def cells_filtered(cells: QuerySet[Cell], which: str) -> QuerySet[Cell]:
    if which == "not_found":
        return cells.filter(found=False)
    if which == "low":
        return cells.filter(LOW_CELLS)
    if which == "reviewed":
        return cells.exclude(reviewed_status=Cell.Review.NONE)
    if which == "unreviewed":
        return cells.filter(reviewed_status=Cell.Review.NONE)
    return cells


@dataclass
class TableRow:
    document: Document
    cells: list[Cell | None]  # one per column; None: not filled yet (or filtered out)
    pairs: list[tuple[GridColumn, Cell | None]] = field(default_factory=list)


@dataclass
class GridTable:
    grid: Grid
    columns: list[GridColumn]
    rows: list[TableRow] = field(default_factory=list)
    which: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    page: int = 1  # the page of rows shown (1-based)
    per_page: int = 0  # rows a page holds; 0: every row on one page
    total_rows: int = 0  # rows the filter leaves, over every page

    @property
    def pages(self) -> int:
        if not self.per_page:
            return 1
        return max(1, -(-self.total_rows // self.per_page))

    @property
    def first_row(self) -> int:
        return (self.page - 1) * self.per_page + 1 if self.rows else 0

    @property
    def last_row(self) -> int:
        return self.first_row + len(self.rows) - 1 if self.rows else 0

    @property
    def done(self) -> bool:
        """Whether polling can stop: the job has ended, or nobody is working on it."""
        return self.grid.status not in (Grid.Status.QUEUED, Grid.Status.RUNNING) or self.stale

    @property
    def stale(self) -> bool:
        return grid_stale(self.grid)


def _norm(value: str) -> str:
    return " ".join(re.findall(r"\w+", value.lower()))


def _stands(cell: Cell) -> bool:
    """Whether a cell's answer is firm enough to say it changes another document's: found with
    at least the low-confidence mark's confidence, or confirmed or corrected by a reviewer (a
    weak guess in an amendment must not flag the agreement it amends)."""
    if cell.reviewed_status == Cell.Review.CORRECTED:
        return bool(cell.corrected_value.strip())
    if cell.reviewed_status == Cell.Review.CONFIRMED:
        return cell.found
    return cell.found and cell.certainty >= LOW_CONFIDENCE


def amendment_documents(grid: Grid) -> list[Document]:
    """The grid's documents that amending_cells compares: its amendments of another of its
    documents, and those documents (one query, whatever the grid's size)."""
    in_grid = grid.rows.values("document_id")
    amendments = Document.objects.filter(pk__in=in_grid, amends_id__in=in_grid)
    return list(
        Document.objects.filter(
            Q(pk__in=amendments.values("pk")) | Q(pk__in=amendments.values("amends_id"))
        ).defer("text")
    )


def amending_cells(
    *, grid: Grid, documents: list[Document] | None = None
) -> dict[tuple[int, int], Cell]:
    """(document id, column id) -> the cell of an amendment in the grid that changes that
    document's answer: the amendment answers the column and its value differs (or the amended
    document's does not answer it), firmly (``_stands``). Only term columns are compared: a
    column describing the document itself (``DOCUMENT_OWN_COLUMNS``) never is. The latest
    amendment (by effective date) wins. One query, none when the grid holds no amendment of
    another of its documents. ``documents``: the grid's rows, else ``amendment_documents``."""
    documents = amendment_documents(grid) if documents is None else documents
    ids = {d.pk for d in documents}
    amendments = [d for d in documents if d.amends_id and d.amends_id in ids]
    if not amendments:
        return {}
    involved = ids & ({d.pk for d in amendments} | {d.amends_id for d in amendments})
    cells = {
        (c.document_id, c.column_id): c
        for c in Cell.objects.filter(grid=grid, document_id__in=involved)
        .exclude(column__key__in=DOCUMENT_OWN_COLUMNS)
        .select_related("document")
        .defer("document__text")
    }
    latest = sorted(amendments, key=lambda d: (d.effective_date is None, d.effective_date, d.pk))
    out: dict[tuple[int, int], Cell] = {}
    for amendment in latest:
        for (doc_id, column_id), cell in cells.items():
            if doc_id != amendment.pk or not _stands(cell):
                continue
            base = cells.get((amendment.amends_id, column_id))  # type: ignore[arg-type]
            if base is None or not base.found or _norm(base.shown_value) != _norm(cell.shown_value):
                out[(amendment.amends_id, column_id)] = cell  # type: ignore[index]
    return out


ROWS_PER_PAGE = 50


# What the grid's page shows of a cell (``templatetags/grid_cells.py``).
PAGE_CELL_FIELDS = (
    "id", "grid_id", "column_id", "document_id", "status", "value", "confidence",
    "value_confidence", "found",
    "node_ref", "citation", "verdict", "reviewed_status", "corrected_value",
)  # fmt: skip


def grid_table(
    *,
    grid: Grid,
    which: str = "",
    page: object = 1,
    per_page: int = 0,
    amended: dict[tuple[int, int], Cell] | None = None,
    counts: bool = True,
    page_fields: bool = False,
) -> GridTable:
    """The grid as rows of cells in column order, a page of rows at a time (``per_page`` rows;
    0: every row). The filter is applied by the database: rows with none of its cells are not
    on any page, and cells that do not match are left blank. A cell that an amendment in the grid
    changes carries that amendment's cell (``cell.amended_by``). A handful of queries whatever
    the grid's size; only the page's cells are read (with ``page_fields``, only what the page
    shows of them: not their quotations, reasons or snapshots)."""
    which = which if which in FILTERS else ""
    columns = list(GridColumn.objects.filter(grid=grid).order_by("position"))
    amended = amending_cells(grid=grid) if amended is None else amended
    rows = grid.rows.order_by("position")
    if which == "amended":
        rows = rows.filter(document_id__in={doc for doc, _ in amended})
    elif which:
        matching = cells_filtered(Cell.objects.filter(grid=grid), which)
        rows = rows.filter(document_id__in=matching.values("document_id"))
    table = GridTable(grid=grid, columns=columns, which=which, per_page=max(0, per_page))
    table.total_rows = rows.count()
    try:
        table.page = min(max(1, int(str(page))), table.pages)
    except (TypeError, ValueError):
        table.page = 1
    if per_page:
        offset = (table.page - 1) * per_page
        rows = rows[offset : offset + per_page]
    order = list(rows.values_list("document_id", flat=True))
    by_id = {d.pk: d for d in Document.objects.filter(pk__in=order).defer("text")}
    documents = [by_id[i] for i in order if i in by_id]
    cells = Cell.objects.filter(grid=grid, document_id__in=order)
    cells = cells.only(*PAGE_CELL_FIELDS) if page_fields else cells.defer("snapshot")
    cells = cells_filtered(cells, which if which != "amended" else "")
    at: dict[tuple[int, int], Cell] = {}
    for c in cells:
        c.amended_by = amended.get((c.document_id, c.column_id))  # type: ignore[attr-defined]
        if which != "amended" or c.amended_by is not None:  # type: ignore[attr-defined]
            at[(c.document_id, c.column_id)] = c
    for document in documents:
        row = [at.get((document.pk, col.pk)) for col in columns]
        table.rows.append(
            TableRow(document=document, cells=row, pairs=list(zip(columns, row, strict=True)))
        )
    if counts:
        table.counts = grid_counts(grid=grid) | {"amended": len(amended)}
    return table


def grid_pages(grid: Grid, per_page: int = 500) -> Iterator[GridTable]:
    """Every row of the grid, a page at a time (what an export writes without holding the whole
    grid: a page's cells are read, written and let go)."""
    amended = amending_cells(grid=grid)
    page = 1
    while True:
        table = grid_table(grid=grid, page=page, per_page=per_page, amended=amended, counts=False)
        if table.rows:
            yield table
        if table.page >= table.pages:
            return
        page += 1


def page_urls(grid: Grid) -> dict[str, str]:
    """The common parts of the URLs a grid's page repeats for every cell, reversed once: a cell's
    panel is ``cells_url`` + its id + "/", a document's reader ``documents_url`` + its id + "/".
    (Reversing four URLs per cell was most of a 50 x 41 page's time.)"""
    cell = reverse("grid-cell", args=[grid.matter_id, grid.pk, 0])
    document = reverse("document-detail", args=[0])
    assert cell.endswith("/0/") and document.endswith("/0/"), (cell, document)
    return {"cells_url": cell[:-2], "documents_url": document[:-2]}


def chunk_counts(grid: Grid) -> dict[str, int]:
    """How many of a fanned-out grid's chunks are in each state (empty: filled as one job)."""
    got = GridChunk.objects.filter(grid=grid).values_list("status").annotate(n=Count("id"))
    counts = {str(status): int(n) for status, n in got}
    return counts | {"all": sum(counts.values())} if counts else {}


def eta_text(seconds: int | None) -> str:
    """'about 3 minutes left', from ``Grid.eta_seconds``; blank when there is no estimate."""
    if seconds is None:
        return ""
    if seconds < 60:
        return "less than a minute left"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"about {minutes} minute{'s' if minutes != 1 else ''} left"
    return f"about {minutes // 60} h {minutes % 60:02d} min left"


def grid_table_counts(*, grid: Grid) -> dict[str, int]:
    """The counts above the table (``GridTable.counts``) without the table."""
    return grid_counts(grid=grid) | {"amended": len(amending_cells(grid=grid))}


def row_documents(grid: Grid) -> list[Document]:
    """The grid's documents in row order (without their text)."""
    order = list(grid.rows.order_by("position").values_list("document_id", flat=True))
    by_id = {d.pk: d for d in Document.objects.filter(pk__in=order).defer("text")}
    return [by_id[i] for i in order if i in by_id]


def grid_counts(*, grid: Grid) -> dict[str, int]:
    """How many cells are filled, found, not found, low in confidence, reviewed: the counts the
    grid keeps as it fills (``models.GRID_COUNTS``), read from its row, one query by key
    whatever its size. Read afresh, not from ``grid``: a caller's instance may predate the
    review it has just written (the cell panel sends the counts back after one)."""
    row = Grid.objects.filter(pk=grid.pk).values(*GRID_COUNTS.values()).first() or {}
    return {key: int(row.get(name, 0)) for key, name in GRID_COUNTS.items()}


def saved_columns(*, matter: Matter, user: User | AnonymousUser) -> QuerySet[SavedColumn]:
    if not getattr(user, "is_authenticated", False):
        return SavedColumn.objects.none()
    return SavedColumn.objects.filter(matter=matter, created_by=user).order_by("key")


def indexed_documents(*, matter: Matter) -> QuerySet[Document]:
    return (
        Document.objects.filter(matter=matter, status=Document.Status.INDEXED)
        .defer("text")
        .order_by("effective_date", "id")
    )


@dataclass
class CellContext:
    """A cell's quotation in its provision, for the side panel."""

    cell: Cell
    node: Node | snapshots.SnapNode | None
    lines: list[ProvisionLine]
    truncated: bool
    quotes: list[dict[str, Any]]
    amended_by: Cell | None = None  # an amendment's cell that changes this one
    notes: list[str] = field(default_factory=list)  # the provision changed or gone since


def cell_context(*, cell: Cell) -> CellContext:
    """The provision the cell's first quotation lies in, verbatim, with every quotation of the
    cell highlighted; the reader's anchor is the node id."""
    node: Node | snapshots.SnapNode | None = cell.node
    if node is None and cell.node_ref:
        node = Node.objects.filter(document_id=cell.document_id, node_id=cell.node_ref).first()
    lines: list[ProvisionLine] = []
    truncated = False
    notes: list[str] = []
    patterns = phrase_patterns([q.get("text", "") for q in cell.quotes if q.get("text")])
    snap = cell.snapshot or {}
    if snap:
        # The provision as it was when the cell was filled, and how it stands now.
        standing = snapshots.status(snapshot=snap, document=cell.document, node_ref=cell.node_ref)
        notes = [
            n.replace("this answer", "this cell").replace("the answer", "the cell")
            for n in standing.notes
        ]
        was = snap.get("node", {})
        node = standing.current or snapshots.SnapNode(
            was.get("node_id", ""), was.get("ref", ""), was.get("heading", ""), was.get("kind", "")
        )
        lines = snapshot_lines(snap, patterns)
        truncated = bool(snap.get("truncated"))
    elif node is not None:
        lines, truncated = provision_lines(node=node, patterns=patterns)  # type: ignore[arg-type]
    amended_by = amending_cells(grid=cell.grid).get((cell.document_id, cell.column_id))
    return CellContext(
        cell=cell,
        node=node,
        lines=lines,
        truncated=truncated,
        quotes=cell.quotes,
        amended_by=amended_by,
        notes=notes,
    )
