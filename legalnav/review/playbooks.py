"""Playbooks: writing them (versioned), applying one to a matter's documents through a review grid,
and deciding each document's verdict on each position from the grid's cells (review/rules.py).

Verdicts are rows (``Verdict``) so that the deviations view counts, filters and pages them in the
database. They are decided from the cells as the grid shows them: a reviewer's correction is the
value read, and for an agreement that an amendment in the grid changes, the amendment's cell is
read (``selectors.amending_cells``: the agreement as amended). An amendment whose agreement is in
the grid is not judged on its own; its terms are judged in the agreement's row.

A run's verdicts are decided again, when they are read, if what they were decided from has
changed since (``grid_state``: cells written or refilled, a review given or undone, an amendment
linked): a review or a refill costs nothing until someone reads the deviations, and reading
those of a grid that has not changed costs one query. Access and audit are the
actions' (review/actions.py); nothing here checks who is asking.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from legalnav.core.lookup import row_or_404
from legalnav.documents.models import Document
from legalnav.matters.models import Matter
from legalnav.review import services
from legalnav.review.columns import ANSWER_TYPES, preset_column
from legalnav.review.models import (
    Cell,
    Grid,
    GridColumn,
    Playbook,
    PlaybookRun,
    PlaybookVersion,
    Verdict,
)
from legalnav.review.rules import (
    SEVERITIES,
    VERDICTS,
    CellFacts,
    Rule,
    RuleError,
    decide,
    parse_rule,
)
from legalnav.review.selectors import amending_cells, row_documents
from legalnav.review.services import ColumnSpec, GridRejected

if TYPE_CHECKING:
    from django.contrib.auth.models import User

MAX_POSITIONS = 60
SEVERITY_RANK = Verdict.SEVERITY_ORDER


class PlaybookRejected(GridRejected):
    """A playbook that cannot be saved or applied as given; the message says why."""


# --- positions --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Position:
    key: str
    question: str
    type: str
    rule: Rule
    severity: str = "medium"
    note: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "question": self.question,
            "type": self.type,
            "rule": self.rule.as_json(),
            "severity": self.severity,
            "note": self.note,
        }

    @property
    def described(self) -> str:
        return f"{self.key} {self.rule.describe()}"

    @property
    def column(self) -> ColumnSpec:
        """The grid column the position reads. A position in words gets a yes/no column of its
        own that asks whether the agreement meets it (filled by Claude with a verified
        quotation in a Claude grid, decided by a reviewer otherwise); any other reads its
        column's value."""
        if self.rule.kind != "words":
            return ColumnSpec(self.key, self.question, self.type)
        key = f"{self.key}: {self.rule.limit}"
        if len(key) > 120:
            key = key[:119].rstrip() + "…"
        question = (
            f"On {self.key}: does this agreement meet the position that {self.rule.limit}? "
            "Answer Yes only if a provision does, and quote it."
        )
        return ColumnSpec(key, question, "yes_no")


def position_from(raw: object, n: int = 0) -> Position:
    """One position from its JSON form, checked. A key that names a CUAD preset column takes
    that column's question and type (what the grid will fill); an own column needs both."""
    if not isinstance(raw, dict):
        raise PlaybookRejected(f"position {n + 1}: must be an object", "positions")
    key = " ".join(str(raw.get("key") or "").split())
    if not key:
        raise PlaybookRejected(f"position {n + 1}: name the column", "positions")
    if len(key) > 120:
        raise PlaybookRejected(
            f"position {n + 1}: a column name is at most 120 characters", "positions"
        )
    preset = preset_column(key)
    if preset is not None:
        key, question, type_ = preset.key, preset.question, preset.type
    else:
        question = " ".join(str(raw.get("question") or "").split()) or key
        type_ = str(raw.get("type") or "clause")
        if type_ not in ANSWER_TYPES:
            raise PlaybookRejected(
                f"position {n + 1} ({key}): the answer type must be one of "
                f"{', '.join(ANSWER_TYPES)}",
                "positions",
            )
    if len(question) > 2000:
        raise PlaybookRejected(f"position {n + 1} ({key}): the question is too long", "positions")
    try:
        rule = parse_rule(raw.get("rule"), type_)
    except RuleError as exc:
        raise PlaybookRejected(f"position {n + 1} ({key}): {exc}", "positions") from None
    severity = str(raw.get("severity") or "medium").lower()
    if severity not in SEVERITIES:
        raise PlaybookRejected(
            f"position {n + 1} ({key}): severity must be one of {', '.join(SEVERITIES)}",
            "positions",
        )
    note = str(raw.get("note") or "").strip()
    if len(note) > 2000:
        raise PlaybookRejected(f"position {n + 1} ({key}): the note is too long", "positions")
    return Position(key, question, type_, rule, severity, note)


def positions_check(raw: object) -> list[Position]:
    if not isinstance(raw, list) or not raw:
        raise PlaybookRejected("A playbook needs at least one position.", "positions")
    if len(raw) > MAX_POSITIONS:
        raise PlaybookRejected(f"A playbook has at most {MAX_POSITIONS} positions.", "positions")
    out = [position_from(item, n) for n, item in enumerate(raw)]
    types: dict[str, str] = {}
    for p in out:
        # Two positions may read one column ("at least 30 days", "at most 90 days"), but it is
        # one grid column, so it has one question and type.
        if types.setdefault(p.key, p.type) != p.type:
            raise PlaybookRejected(
                f"{p.key} is given two answer types ({types[p.key]} and {p.type}).", "positions"
            )
    return out


def positions_of(stored: Sequence[dict[str, Any]]) -> list[Position]:
    """The positions of a stored version (checked when saved)."""
    return [position_from(p, n) for n, p in enumerate(stored)]


# --- writing playbooks ------------------------------------------------------------------------


def playbook_write(
    *,
    playbook: Playbook | None,
    name: str,
    description: str,
    positions: Sequence[Position],
    user: User,
    archived: bool = False,
) -> Playbook:
    """Create a playbook, or save a new version of one; run inside the caller's transaction (the
    action's, with its audit row). Saving what is already the current version writes nothing."""
    name = " ".join(name.split())
    if not name:
        raise PlaybookRejected("A playbook needs a name.", "name")
    if len(name) > 200:
        raise PlaybookRejected("A playbook's name is at most 200 characters.", "name")
    clash = Playbook.objects.filter(name__iexact=name)
    if playbook is not None:
        clash = clash.exclude(pk=playbook.pk)
    if clash.exists():
        raise PlaybookRejected(f"A playbook named {name!r} exists already.", "name")
    stored = [p.as_json() for p in positions]
    who = user if getattr(user, "is_authenticated", False) else None
    if playbook is None:
        playbook = Playbook.objects.create(
            name=name,
            description=description.strip(),
            positions=stored,
            version=1,
            archived=archived,
            created_by=who,
            updated_by=who,
        )
    else:
        playbook = Playbook.objects.select_for_update().get(pk=playbook.pk)
        if playbook.archived != archived:
            # Archiving is not a new version of the positions: it only stops new runs.
            playbook.archived = archived
            playbook.save(update_fields=["archived", "updated_at"])
        if (
            playbook.positions == stored
            and playbook.name == name
            and playbook.description == description.strip()
        ):
            return playbook
        playbook.version += 1
        playbook.name, playbook.description = name, description.strip()
        playbook.positions, playbook.updated_by = stored, who
        playbook.save()
    PlaybookVersion.objects.create(
        playbook=playbook, number=playbook.version, name=name, positions=stored, saved_by=who
    )
    return playbook


def playbook_list(*, include_archived: bool = False) -> QuerySet[Playbook]:
    qs = Playbook.objects.all().select_related("updated_by")
    return qs if include_archived else qs.filter(archived=False)


def playbook_get(*, playbook_id: object) -> Playbook:
    return row_or_404(Playbook.objects.all(), playbook_id, "No such playbook.")


# --- applying ---------------------------------------------------------------------------------


def run_create(
    *,
    matter: Matter,
    playbook: Playbook,
    user: User,
    grid: Grid | None,
    documents: Sequence[Document],
    mode: str = Grid.Mode.OFFLINE,
) -> tuple[PlaybookRun, Grid, bool]:
    """Apply the playbook's current version: reuse ``grid`` (adding the columns it lacks, which
    its job then fills) or make a new grid over ``documents`` (offline, or filled by Claude). Returns the run, its
    grid, and whether the grid needs its job queued. Run inside the action's transaction."""
    version = PlaybookVersion.objects.get(playbook=playbook, number=playbook.version)
    positions = positions_of(version.positions)
    specs: dict[str, ColumnSpec] = {}
    for p in positions:
        specs.setdefault(p.column.key, p.column)
    needs_fill = False
    if grid is None:
        grid = services.grid_create(
            matter=matter,
            user=user,
            title=f"Playbook: {playbook.name} v{version.number}",
            columns=services.columns_check(list(specs.values())),
            documents=documents,
            mode=mode,
        )
        needs_fill = True
    else:
        grid = Grid.objects.select_for_update().get(pk=grid.pk)
        have = {c.key: c for c in grid.columns.all()}
        missing = [s for k, s in specs.items() if k not in have]
        for k, s in specs.items():
            if k in have and have[k].type != s.type:
                raise PlaybookRejected(
                    f"The grid's column {k!r} is a {have[k].type} column; the playbook reads it "
                    f"as {s.type}. Apply it to a new grid.",
                    "grid",
                )
        if len(have) + len(missing) > services.MAX_COLUMNS:
            raise PlaybookRejected(
                f"The grid would have more than {services.MAX_COLUMNS} columns.", "grid"
            )
        if missing:
            start = max((c.position for c in have.values()), default=-1) + 1
            GridColumn.objects.bulk_create(
                GridColumn(
                    grid=grid, position=start + i, key=s.key, question=s.question, type=s.type
                )
                for i, s in enumerate(missing)
            )
            grid.cells_total = grid.rows.count() * (len(have) + len(missing))
            grid.save(update_fields=["cells_total", "updated_at"])
            needs_fill = True
    run = PlaybookRun.objects.create(
        matter=matter,
        playbook=playbook,
        version=version,
        grid=grid,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    return run, grid, needs_fill


def _facts(cell: Cell, type_: str, mode: str) -> CellFacts:
    """What the rules read of a cell: the value it shows, and the filler's typed value unless a
    reviewer corrected it (a correction is re-read from its words); and who gave it."""
    if cell.reviewed_status == Cell.Review.CORRECTED:
        value = cell.corrected_value
        found = bool(value.strip()) and value.strip().lower() not in ("not found", "none", "n/a")
        return CellFacts(type_, value, found, None, "reviewer")
    by = ""
    if cell.reviewed_status == Cell.Review.CONFIRMED:
        by = "reviewer"
    elif mode == Grid.Mode.CLAUDE and services.OFFLINE_SHOWN not in cell.searched:
        by = "claude"
    value = cell.value if cell.found else ""
    return CellFacts(type_, value, cell.found, cell.typed, by)


def grid_state(grid: Grid) -> str:
    """A digest of everything a run's verdicts are decided from, in two queries: the grid's
    cells (a refill writes new ones), their reviews (given, changed or undone) and which of its
    documents amends which."""
    cells = Cell.objects.filter(grid=grid).aggregate(
        n=Count("id"),
        last_id=Max("id"),
        reviewed=Count("id", filter=~Q(reviewed_status=Cell.Review.NONE)),
        last_review=Max("reviewed_at"),
    )
    links = sorted(
        Document.objects.filter(
            pk__in=grid.rows.values("document_id"), amends__isnull=False
        ).values_list("pk", "amends_id")
    )
    raw = repr((sorted(cells.items()), links))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def verdicts_decide(*, run: PlaybookRun) -> int:
    """Decide every (document, position) of the run whose cell is written, from the grid as it
    stands; returns how many verdicts were written. Rows of documents whose cells are not
    written yet are left for the next call."""
    grid = run.grid
    state = grid_state(grid)
    positions = positions_of(run.version.positions)
    documents = row_documents(grid)
    in_grid = {d.pk for d in documents}
    amended = amending_cells(grid=grid, documents=documents)
    cells = {
        (c.document_id, c.column.key): c
        for c in Cell.objects.filter(grid=grid).select_related("column").defer("snapshot")
    }
    rows: list[Verdict] = []
    for document in documents:
        if document.amends_id and document.amends_id in in_grid:
            continue  # judged in its agreement's row, as the agreement as amended
        for n, p in enumerate(positions):
            cell = cells.get((document.pk, p.column.key))
            if cell is None:
                continue
            read, by = cell, None
            change = amended.get((document.pk, cell.column_id))
            if change is not None:
                read, by = change, change.document_id
            decision = decide(p.rule, _facts(read, p.column.type, grid.mode), column=p.key)
            reason = decision.reason
            if by is not None:
                reason = f"as amended by {change.document.key}: {reason}"  # type: ignore[union-attr]
            shown = read.shown_value
            rows.append(
                Verdict(
                    run=run,
                    document=document,
                    position=n,
                    key=p.key,
                    severity=p.severity,
                    severity_rank=SEVERITY_RANK.get(p.severity, 1),
                    verdict=decision.verdict,
                    reason=reason[:4000],
                    cell=read,
                    amended_by_id=by,
                    value=shown[:4000],
                    quotation=read.quotation[:8000] if read.found else "",
                    citation=read.citation if read.found else "",
                )
            )
    with transaction.atomic():
        # Two readers deciding at once (two polls of the page) take turns on the run's row, so
        # the second replaces the first's verdicts instead of colliding with them.
        PlaybookRun.objects.select_for_update().filter(pk=run.pk).first()
        Verdict.objects.filter(run=run).delete()
        Verdict.objects.bulk_create(rows, batch_size=500)
        PlaybookRun.objects.filter(pk=run.pk).update(decided_state=state, decided_at=timezone.now())
    run.decided_state = state
    return len(rows)


def run_refresh(*, run: PlaybookRun) -> bool:
    """Decide the run's verdicts again if what they were decided from has changed
    (``grid_state``); True when they were."""
    if grid_state(run.grid) == run.decided_state:
        return False
    verdicts_decide(run=run)
    return True


# --- reading runs -------------------------------------------------------------------------------


def run_list(*, matter: Matter) -> QuerySet[PlaybookRun]:
    return (
        PlaybookRun.objects.filter(matter=matter)
        .select_related("version", "grid", "created_by", "playbook")
        .order_by("-created_at", "-id")
    )


def run_get(*, matter: Matter, run_id: object) -> PlaybookRun:
    return row_or_404(run_list(matter=matter), run_id, "No such playbook run.")


@dataclass
class PositionSummary:
    index: int
    position: Position
    counts: dict[str, int]
    documents: int

    @property
    def deviates(self) -> int:
        return self.counts.get("deviates", 0)

    @property
    def headline(self) -> str:
        """'12 of 300 contracts deviate on Governing Law'."""
        return f"{self.deviates} of {self.documents} deviate on {self.position.key}"


def run_summary(*, run: PlaybookRun) -> list[PositionSummary]:
    """Per position, in severity order (high first): how many documents meet, deviate, are
    missing the term or need review. One query."""
    positions = positions_of(run.version.positions)
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    for row in (
        Verdict.objects.filter(run=run).values("position", "verdict").annotate(n=Count("id"))
    ):
        counts[row["position"]][row["verdict"]] = row["n"]
    out = [
        PositionSummary(n, p, {v: counts[n].get(v, 0) for v in VERDICTS}, sum(counts[n].values()))
        for n, p in enumerate(positions)
    ]
    return sorted(
        out, key=lambda s: (SEVERITY_RANK.get(s.position.severity, 1), -s.deviates, s.index)
    )


def verdicts_filtered(
    *,
    run: PlaybookRun,
    verdict: str = "",
    severity: str = "",
    position: str = "",
    document: str = "",
) -> QuerySet[Verdict]:
    """The run's verdicts, high severity first, filtered in the database."""
    qs = Verdict.objects.filter(run=run).select_related("document", "amended_by", "cell")
    qs = qs.defer("document__text", "amended_by__text", "cell__snapshot", "cell__searched")
    if verdict in VERDICTS:
        qs = qs.filter(verdict=verdict)
    elif verdict == "problems":
        qs = qs.filter(~Q(verdict="meets"))
    if severity in SEVERITIES:
        qs = qs.filter(severity=severity)
    if position.isdigit():
        qs = qs.filter(position=int(position))
    if document.isdigit():
        qs = qs.filter(document_id=int(document))
    return qs.order_by("severity_rank", "document_id", "position")


@dataclass
class DocumentSummary:
    document: Document
    high: int = 0
    medium: int = 0
    low: int = 0


def run_documents(*, run: PlaybookRun, limit: int = 50) -> list[DocumentSummary]:
    """The documents that deviate most, high severity first: how many positions each deviates
    on, by severity. Two queries whatever the matter's size."""
    counts: dict[int, DocumentSummary] = {}
    rows = (
        Verdict.objects.filter(run=run, verdict="deviates")
        .values("document_id", "severity")
        .annotate(n=Count("id"))
    )
    by_doc: dict[int, dict[str, int]] = defaultdict(dict)
    for row in rows:
        by_doc[row["document_id"]][row["severity"]] = row["n"]
    ranked = sorted(
        by_doc.items(),
        key=lambda kv: (
            -kv[1].get("high", 0),
            -kv[1].get("medium", 0),
            -kv[1].get("low", 0),
            kv[0],
        ),
    )[:limit]
    docs = Document.objects.filter(pk__in=[k for k, _ in ranked]).defer("text").in_bulk()
    for pk, sev in ranked:
        if pk in docs:
            counts[pk] = DocumentSummary(
                docs[pk], sev.get("high", 0), sev.get("medium", 0), sev.get("low", 0)
            )
    return list(counts.values())


def run_document_counts(*, run: PlaybookRun) -> dict[str, int]:
    """Documents judged, and how many deviate on at least one position."""
    judged = Verdict.objects.filter(run=run).values("document_id").distinct().count()
    deviating = (
        Verdict.objects.filter(run=run, verdict="deviates").values("document_id").distinct().count()
    )
    return {"documents": judged, "deviating": deviating}
