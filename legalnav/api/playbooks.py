"""Playbooks for the API and the MCP server: list and read the firm's playbooks, write one (staff),
apply one to a matter, and read a run's deviations. As for grids, each function checks access,
calls the one action of ``legalnav.review.actions`` that does the work (audited with the door)
and returns the models below; the two doors share them."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field

from legalnav.answers.report import DocumentRef
from legalnav.api.errors import not_found, parse_id
from legalnav.api.grids import grid_refusals, rejected
from legalnav.api.schemas import CleanStr, Id, Paged, PageParams
from legalnav.api.selectors import matter_access
from legalnav.api.writes import writes
from legalnav.core.attributes import from_attributes
from legalnav.matters.access import Action
from legalnav.review import actions, playbooks, selectors
from legalnav.review.actions import GridRejected
from legalnav.review.models import Grid, Playbook, PlaybookRun, Verdict

if TYPE_CHECKING:
    from django.contrib.auth.models import User

Severity = Literal["high", "medium", "low"]
VerdictValue = Literal["meets", "deviates", "missing", "review"]
VerdictFilter = Literal["", "problems", "meets", "deviates", "missing", "review"]


class PositionIn(BaseModel):
    key: Annotated[CleanStr, Field(min_length=1, max_length=120)] = Field(
        description='The grid column: a CUAD category ("Governing Law") or your own.'
    )
    question: Annotated[CleanStr, Field(max_length=2000)] = Field(
        default="", description="An own column's question (a CUAD column has its own)."
    )
    type: Literal["clause", "yes_no", "date", "duration", "amount", "party", "text"] = Field(
        default="clause", description="An own column's answer type."
    )
    rule: dict[str, Any] = Field(
        description='One of {"allowed": [..]}, {"required": true}, {"forbidden": true}, '
        '{"min": "60 days"}, {"max": "1 year"}, {"after": "2015-01-01"}, {"before": ..}, '
        '{"words": "a position no typed rule expresses"}.'
    )
    severity: Severity = "medium"
    note: Annotated[CleanStr, Field(max_length=2000)] = ""


class PlaybookBody(BaseModel):
    name: Annotated[CleanStr, Field(min_length=1, max_length=200)]
    description: Annotated[CleanStr, Field(max_length=4000)] = ""
    positions: list[PositionIn] = Field(min_length=1, max_length=playbooks.MAX_POSITIONS)
    archived: bool = Field(default=False, description="Kept with its runs, no longer applied.")


class ApplyBody(BaseModel):
    playbook_id: Id
    document_ids: list[Id] | None = Field(
        default=None, max_length=200, description="Indexed documents of the matter; null: all."
    )
    grid_id: Id | None = Field(
        default=None,
        description="Read the values from this grid of the matter (its missing columns are "
        "added and filled) instead of a new one.",
    )
    mode: Literal["offline", "claude"] = Field(
        default="offline",
        description="How a new grid is filled: offline, or by Claude (which also reads the "
        "positions in words; needs the server's API key, and costs).",
    )


class VerdictParams(PageParams):
    verdict: VerdictFilter = Field(
        default="", description="problems: all but meets; or one verdict; blank: all."
    )
    severity: Severity | None = None
    position: int | None = Field(default=None, ge=0, le=1000)


class PositionOut(BaseModel):
    index: int
    key: str
    question: str
    type: str
    rule: dict[str, Any]
    rule_text: str
    severity: str
    note: str


class PlaybookOut(BaseModel):
    id: int
    name: str
    description: str
    version: int
    archived: bool
    positions: list[PositionOut]
    updated_at: datetime


class PlaybookPage(Paged):
    items: list[PlaybookOut]


class PositionCounts(BaseModel):
    position: PositionOut
    meets: int
    deviates: int
    missing: int
    review: int
    documents: int
    headline: str


class RunOut(BaseModel):
    id: int
    matter_id: int
    playbook_id: int | None
    playbook: str
    version: int
    grid_id: int
    grid_status: str
    cells_done: int
    cells_total: int
    documents: int
    deviating: int
    summary: list[PositionCounts]
    created_by: str | None
    created_at: datetime


class VerdictOut(BaseModel):
    document: DocumentRef
    position: int
    key: str
    severity: str
    verdict: VerdictValue
    reason: str
    value: str
    quotation: str
    citation: str
    cell_id: int | None
    amended_by: DocumentRef | None


class VerdictPage(Paged):
    items: list[VerdictOut]


def _positions(stored: list[dict[str, Any]]) -> list[PositionOut]:
    return [
        PositionOut(
            index=n,
            key=p.key,
            question=p.question,
            type=p.type,
            rule=p.rule.as_json(),
            rule_text=p.rule.describe(),
            severity=p.severity,
            note=p.note,
        )
        for n, p in enumerate(playbooks.positions_of(stored))
    ]


def playbook_out(p: Playbook) -> PlaybookOut:
    return from_attributes(PlaybookOut, p, positions=_positions(p.positions))


def run_out(run: PlaybookRun) -> RunOut:
    playbooks.run_refresh(run=run)
    grid: Grid = run.grid
    positions = {p.index: p for p in _positions(run.version.positions)}
    counts = playbooks.run_document_counts(run=run)
    return RunOut(
        id=run.pk,
        matter_id=run.matter_id,
        playbook_id=run.playbook_id,
        playbook=run.version.name,
        version=run.version.number,
        grid_id=grid.pk,
        grid_status=grid.status,
        cells_done=grid.cells_done,
        cells_total=grid.cells_total,
        documents=counts["documents"],
        deviating=counts["deviating"],
        summary=[
            PositionCounts(
                position=positions[s.index],
                documents=s.documents,
                headline=s.headline,
                **{k: s.counts.get(k, 0) for k in ("meets", "deviates", "missing", "review")},
            )
            for s in playbooks.run_summary(run=run)
        ],
        created_by=run.created_by.get_username() if run.created_by_id else None,  # type: ignore[union-attr]
        created_at=run.created_at,
    )


def verdict_out(v: Verdict) -> VerdictOut:
    return VerdictOut(
        document=DocumentRef.of(v.document),
        position=v.position,
        key=v.key,
        severity=v.severity,
        verdict=v.verdict,  # type: ignore[arg-type]
        reason=v.reason,
        value=v.value,
        quotation=v.quotation,
        citation=v.citation,
        cell_id=v.cell_id,
        amended_by=DocumentRef.of(v.amended_by) if v.amended_by is not None else None,
    )


def _playbook(playbook_id: object) -> Playbook:
    playbook = Playbook.objects.filter(pk=parse_id(playbook_id, "playbook")).first()
    if playbook is None:
        raise not_found("playbook")
    return playbook


def _run(user: User, matter_id: object, run_id: object) -> PlaybookRun:
    matter = matter_access(user=user, matter_id=matter_id)
    run = (
        PlaybookRun.objects.filter(matter=matter, pk=parse_id(run_id, "playbook run"))
        .select_related("version", "grid", "created_by")
        .first()
    )
    if run is None:
        raise not_found("playbook run in this matter")
    return run


# --- doors -----------------------------------------------------------------------------------


def playbook_page(*, user: User, params: PageParams) -> PlaybookPage:
    """The firm's playbooks (any signed-in user reads them)."""
    qs = playbooks.playbook_list()
    count = qs.count()
    rows = list(qs[params.offset : params.offset + params.limit])
    return PlaybookPage.of(params, count, [playbook_out(p) for p in rows])


def playbook_detail(*, user: User, playbook_id: object) -> PlaybookOut:
    return playbook_out(_playbook(playbook_id))


@writes
def playbook_save(
    *, user: User, body: PlaybookBody, via: str, playbook_id: object | None = None
) -> PlaybookOut:
    """Create a playbook, or save a new version of one (staff only: 403 otherwise); 422 for a
    rule that does not fit its column."""
    playbook = _playbook(playbook_id) if playbook_id is not None else None
    try:
        saved = actions.playbook_save(
            user=user,
            playbook=playbook,
            name=body.name,
            description=body.description,
            positions=[p.model_dump() for p in body.positions],
            via=via,
            archived=body.archived,
        )
    except GridRejected as exc:
        raise rejected(exc) from None
    return playbook_out(saved)


@writes
def playbook_apply(*, user: User, matter_id: object, body: ApplyBody, via: str) -> RunOut:
    """Apply a playbook to documents of the matter (a new offline grid, or an existing grid that
    gets the columns it lacks); poll the run for its deviations as the grid fills."""
    matter = matter_access(user=user, matter_id=matter_id, action=Action.ASK)
    playbook = _playbook(body.playbook_id)
    grid = None
    if body.grid_id is not None:
        grid = Grid.objects.filter(matter=matter, pk=body.grid_id).first()
        if grid is None:
            raise not_found("review grid in this matter")
    with grid_refusals():
        run = actions.playbook_apply(
            matter=matter,
            user=user,
            playbook=playbook,
            document_ids=body.document_ids,
            grid=grid,
            via=via,
            mode=body.mode,
        )
    return run_out(run)


def run_detail(*, user: User, matter_id: object, run_id: object) -> RunOut:
    """A run: its grid's progress and, per position, how many documents meet, deviate, miss the
    term or need review (high severity first)."""
    run = _run(user, matter_id, run_id)
    selectors.grid_poll(grid=run.grid)
    return run_out(run)


def deviations(
    *, user: User, matter_id: object, run_id: object, params: VerdictParams
) -> VerdictPage:
    """A run's verdicts, high severity first, filtered; each with why and its quotation."""
    run = _run(user, matter_id, run_id)
    playbooks.run_refresh(run=run)
    qs = playbooks.verdicts_filtered(
        run=run,
        verdict=params.verdict,
        severity=params.severity or "",
        position="" if params.position is None else str(params.position),
    )
    count = qs.count()
    rows = list(qs[params.offset : params.offset + params.limit])
    return VerdictPage.of(params, count, [verdict_out(v) for v in rows])
