"""Review grids for the API and the MCP server: create a grid, poll it, read its cells, resume or
cancel it. Each function takes the acting user and ids, checks access (``matter_access``: 404 for
a non-member), calls the one action of ``legalnav.review.actions`` that does the work (which
audits it with the door) and returns the models below; the two doors share these, so they see
and do exactly the same."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from django.db.models import Q
from pydantic import BaseModel, Field

from legalnav.answers.report import DocumentRef
from legalnav.api.errors import ApiError, not_found, parse_id, rate_limited
from legalnav.api.schemas import CleanStr, Id, Paged, PageParams
from legalnav.api.selectors import matter_access
from legalnav.api.writes import queue_down, writes
from legalnav.matters.access import Action
from legalnav.review import actions, selectors
from legalnav.review.actions import ColumnSpec, GridRejected
from legalnav.review.columns import CUAD_COLUMNS
from legalnav.review.models import Cell, Grid

if TYPE_CHECKING:
    from django.contrib.auth.models import User

AnswerType = Literal["clause", "yes_no", "date", "duration", "amount", "party", "text"]
CellFilter = Literal["", "not_found", "low", "amended", "reviewed", "unreviewed"]

# --- input -----------------------------------------------------------------------------------


class GridColumnIn(BaseModel):
    key: Annotated[CleanStr, Field(min_length=1, max_length=120)] = Field(
        description='The column\'s name; a CUAD category name ("Governing Law") brings its '
        "description and drafting cues."
    )
    question: Annotated[CleanStr, Field(max_length=1000)] = Field(
        default="", description="The question put to every document (blank: the key)."
    )
    type: AnswerType = Field(default="clause", description="The type the answer takes.")


class GridCreateBody(BaseModel):
    title: Annotated[CleanStr, Field(max_length=200)] = ""
    preset: Literal["cuad"] | None = Field(
        default=None, description="cuad: the 41 CUAD clause categories (before any columns)."
    )
    columns: list[GridColumnIn] = Field(default_factory=list, max_length=60)
    document_ids: list[Id] | None = Field(
        default=None, max_length=10_000, description="Indexed documents of the matter; null: all."
    )
    mode: Literal["offline", "claude"] = "offline"

    def specs(self) -> list[ColumnSpec]:
        out = []
        if self.preset == "cuad":
            out += [ColumnSpec(c.key, c.question, c.type) for c in CUAD_COLUMNS]
        out += [ColumnSpec(c.key, c.question or c.key, c.type) for c in self.columns]
        return out


class CellListParams(PageParams):
    show: CellFilter = Field(
        default="",
        description="not_found, low (value_confidence, else confidence, < 0.5), amended "
        "(changed by an amendment in the grid), reviewed, unreviewed.",
    )


# --- output ----------------------------------------------------------------------------------


class GridColumnOut(BaseModel):
    position: int
    key: str
    question: str
    type: str


class GridOut(BaseModel):
    id: int
    matter_id: int
    title: str
    mode: str
    status: Literal["queued", "running", "done", "failed", "cancelled"]
    error: str | None
    stale: bool = Field(description="Nobody is working on it: resume it.")
    cells_total: int
    cells_done: int
    progress: float = Field(description="cells_done / cells_total, 0..1.")
    note: str
    estimate: dict[str, Any] = Field(description="Tokens and dollars by mode, made beforehand.")
    llm_calls: int = Field(description="Language-model calls made so far (mode claude).")
    dollars: str = Field(description="What those calls cost so far, in US dollars.")
    created_by: str | None
    created_at: datetime
    finished_at: datetime | None
    documents: list[DocumentRef] = Field(default_factory=list)
    columns: list[GridColumnOut] = Field(default_factory=list)


class GridPage(Paged):
    items: list[GridOut]


class QuoteOut(BaseModel):
    text: str = Field(description="Verbatim from the document.")
    citation: str = Field(description='"[D3:s9.10]"')
    node_id: str
    verdict: str = Field(description="verified | quote_not_found | no_such_provision")
    start: int
    end: int


class AmendingOut(BaseModel):
    document: DocumentRef
    value: str
    quotation: str
    citation: str


class CellOut(BaseModel):
    id: int
    document: DocumentRef
    column: str
    value: str = Field(description="What the grid shows: a reviewer's correction first.")
    filled_value: str = Field(description="What the filler read (blank: not found).")
    found: bool
    confidence: float = Field(
        description="The quotation's: is this provision what the column asks?"
    )
    value_confidence: float | None = Field(
        default=None,
        description="The value's own, where known: P(Yes) for a Yes, P(No) for a No of a yes/no "
        "column decided by its document model. The low filter reads it before confidence.",
    )
    citation: str
    verdict: str
    quotes: list[QuoteOut]
    searched: str
    review: Literal["none", "confirmed", "corrected"]
    amended_by: AmendingOut | None = Field(
        default=None,
        description="An amendment in the grid that changes this answer: its cell's value, "
        "quotation and citation.",
    )


class CellPage(Paged):
    items: list[CellOut]


def grid_out(grid: Grid, *, full: bool = True) -> GridOut:
    out = GridOut(
        id=grid.pk,
        matter_id=grid.matter_id,
        title=grid.title,
        mode=grid.mode,
        status=grid.status,  # type: ignore[arg-type]
        error=grid.error_message or None,
        stale=selectors.grid_stale(grid),
        cells_total=grid.cells_total,
        cells_done=grid.cells_done,
        progress=round(grid.cells_done / grid.cells_total, 4) if grid.cells_total else 0.0,
        note=grid.note,
        estimate=grid.estimate,
        llm_calls=grid.llm_calls,
        dollars=format(grid.dollars, "f"),
        created_by=grid.created_by.get_username() if grid.created_by_id else None,  # type: ignore[union-attr]
        created_at=grid.created_at,
        finished_at=grid.finished_at,
    )
    if full:
        rows = grid.rows.select_related("document").defer("document__text").order_by("position")
        out.documents = [DocumentRef.of(r.document) for r in rows]
        out.columns = [
            GridColumnOut(position=c.position, key=c.key, question=c.question, type=c.type)
            for c in grid.columns.order_by("position")
        ]
    return out


def cell_out(cell: Cell, amended_by: Cell | None = None) -> CellOut:
    return CellOut(
        amended_by=AmendingOut(
            document=DocumentRef.of(amended_by.document),
            value=amended_by.shown_value,
            quotation=amended_by.quotation,
            citation=amended_by.citation,
        )
        if amended_by is not None
        else None,
        id=cell.pk,
        document=DocumentRef.of(cell.document),
        column=cell.column.key,
        value=cell.shown_value,
        filled_value=cell.value,
        found=cell.found,
        confidence=round(cell.confidence, 6),
        value_confidence=(
            None if cell.value_confidence is None else round(cell.value_confidence, 6)
        ),
        citation=cell.citation,
        verdict=cell.verdict,
        quotes=[
            QuoteOut(
                text=q.get("text", ""),
                citation=q.get("citation", ""),
                node_id=q.get("node_id", ""),
                verdict=q.get("verdict", ""),
                start=int(q.get("start", 0)),
                end=int(q.get("end", 0)),
            )
            for q in cell.quotes
        ],
        searched=cell.searched,
        review=cell.reviewed_status,  # type: ignore[arg-type]
    )


# --- doors -----------------------------------------------------------------------------------


def _grid(user: User, matter_id: object, grid_id: object, action: Action = Action.VIEW):  # type: ignore[no-untyped-def]
    matter = matter_access(user=user, matter_id=matter_id, action=action)
    grid = (
        Grid.objects.filter(matter=matter, pk=parse_id(grid_id, "review grid"))
        .select_related("created_by")
        .first()
    )
    if grid is None:
        raise not_found("review grid in this matter")
    return matter, grid


def rejected(exc: GridRejected) -> ApiError:
    return ApiError(422, "invalid", exc.message, field=exc.field or None)


@contextmanager
def grid_refusals() -> Iterator[None]:
    """What making or filling a grid may be refused with, as API errors: the grid or playbook
    (422), a rate limit or spending cap (429), the task queue (503; the grid is kept, failed)."""
    try:
        yield
    except GridRejected as exc:
        raise rejected(exc) from None
    except actions.RateLimited as exc:
        raise rate_limited(exc.decision) from None
    except actions.JobQueueDown as exc:
        raise queue_down(f"{exc.message} The grid is G{exc.item.pk}.") from None


@writes
def grid_create(*, user: User, matter_id: object, body: GridCreateBody, via: str) -> GridOut:
    """Make a grid and queue it to be filled (poll it). 422 for columns, documents or a mode it
    cannot take; 429 past the grid rate; 503 when the task queue is down (kept, failed)."""
    matter = matter_access(user=user, matter_id=matter_id, action=Action.ASK)
    with grid_refusals():
        grid = actions.grid_create(
            matter=matter,
            user=user,
            title=body.title,
            columns=body.specs(),
            document_ids=body.document_ids,
            mode=body.mode,
            via=via,
        )
    return grid_out(grid)


def grid_detail(*, user: User, matter_id: object, grid_id: object) -> GridOut:
    """A grid: where its job stands (a poll of a grid nobody holds sweeps it), its documents
    and columns, the estimate."""
    _, grid = _grid(user, matter_id, grid_id)
    return grid_out(selectors.grid_poll(grid=grid))


def grid_page(*, user: User, matter_id: object, params: PageParams) -> GridPage:
    matter = matter_access(user=user, matter_id=matter_id)
    qs = (
        Grid.objects.filter(matter=matter)
        .select_related("created_by")
        .order_by("-created_at", "-id")
    )
    count = qs.count()
    rows = list(qs[params.offset : params.offset + params.limit])
    return GridPage.of(params, count, [grid_out(g, full=False) for g in rows])


def cell_page(
    *, user: User, matter_id: object, grid_id: object, params: CellListParams
) -> CellPage:
    """The grid's cells, document by document (by id), each in column order."""
    _, grid = _grid(user, matter_id, grid_id)
    amended = selectors.amending_cells(grid=grid)
    qs = selectors.cells_filtered(
        Cell.objects.filter(grid=grid)
        .select_related("column", "document")
        .defer("document__text")
        .order_by("document_id", "column__position"),
        params.show if params.show != "amended" else "",
    )
    if params.show == "amended":
        changed = Q(pk__in=[])
        for document_id, column_id in amended:
            changed |= Q(document_id=document_id, column_id=column_id)
        qs = qs.filter(changed)
    count = qs.count()
    rows = list(qs[params.offset : params.offset + params.limit])
    return CellPage.of(
        params, count, [cell_out(c, amended.get((c.document_id, c.column_id))) for c in rows]
    )


@writes
def grid_retry(
    *, user: User, matter_id: object, grid_id: object, via: str, refill: bool = False
) -> GridOut:
    """Resume a failed, cancelled or stalled grid (or refill its unreviewed cells); 409 when
    there is nothing to do."""
    matter, grid = _grid(user, matter_id, grid_id, Action.ASK)
    try:
        done = actions.grid_retry(matter=matter, user=user, grid=grid, via=via, refill=refill)
    except actions.JobQueueDown:
        raise queue_down() from None
    if not done:
        raise ApiError(409, "not_retryable", f"G{grid.pk} is {grid.status}: nothing to resume.")
    grid.refresh_from_db()
    return grid_out(grid)


@writes
def grid_cancel(*, user: User, matter_id: object, grid_id: object, via: str) -> GridOut:
    """Cancel a queued or running grid (its cells so far are kept); 409 when it has ended."""
    matter, grid = _grid(user, matter_id, grid_id, Action.ASK)
    if not actions.grid_cancel(matter=matter, user=user, grid=grid, via=via):
        raise ApiError(409, "not_running", f"G{grid.pk} is {grid.status}: nothing to cancel.")
    grid.refresh_from_db()
    return grid_out(grid)
