"""What a member can do with review grids, one function per action for every door (the grid
pages, the JSON API, MCP): create a grid, cancel it, resume or refill it, review a cell, confirm
a whole column, save a column, export the grid; write a playbook (staff) and apply one.

Each checks membership itself (``matters.access.require``: Http404 for a non-member, 403 for a
role that may not act), applies its limit, writes the audit row in the same transaction as the
change (``detail["via"]`` names the door) and queues the job once that commits. Any member who
may ask questions may make and review grids (a grid is many questions put at once); cancelling
is for the grid's creator or an editor, as for questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404

from legalnav.answers.actions import RateLimited, limit_require, limit_spent, spend_require
from legalnav.core import jobs
from legalnav.core.jobs import QueueUnavailable
from legalnav.core.limits import EXPORT, Limit, limit_refund
from legalnav.core.users import actor_name
from legalnav.matters import audit
from legalnav.matters.access import Action, require, require_starter_or_editor
from legalnav.matters.audit import audit_action
from legalnav.matters.models import AuditEvent, Matter
from legalnav.review import exports, playbooks, services
from legalnav.review.models import Cell, Grid, GridColumn, Playbook, PlaybookRun, SavedColumn
from legalnav.review.services import (
    CHARS_PER_TOKEN,
    ColumnSpec,
    GridRejected,
    columns_check,
    grid_documents_check,
    grid_estimate,
)
from legalnav.review.verbs import Verb as ReviewVerb

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Besides the actions, what the doors need of the services (they do not import them: the layer
# contract in pyproject.toml): the refusals and the checks and estimate made before acting.
__all__ = [
    "CHARS_PER_TOKEN",
    "ColumnSpec",
    "GridRejected",
    "JobQueueDown",
    "RateLimited",
    "columns_check",
    "grid_documents_check",
    "grid_estimate",
]

# Grids started per user a minute: each is up to MAX_DOCUMENTS x MAX_COLUMNS cells of work.
GRID = Limit("grid", "LEGALNAV_GRID_RATE_PER_MINUTE", 5, "review grids", "started")


class JobQueueDown(audit.JobQueueDown[Grid]):
    """The grid (``.item``) was saved and marked failed ("the task queue is unavailable");
    Resume sends it again once the queue is back."""

    id_key = "grid_id"


def _target(grid: Grid) -> str:
    return f"review grid G{grid.pk} {grid.title}"


def _same_matter(matter: Matter, grid: Grid) -> None:
    if grid.matter_id != matter.pk:  # a grid of another matter does not exist here
        raise Http404("No such review grid.")


def grid_create(
    *,
    matter: Matter,
    user: User | None,
    title: str,
    columns: Sequence[ColumnSpec],
    document_ids: Sequence[int] | None,
    mode: str,
    via: str,
) -> Grid:
    """Make a grid over the matter's indexed documents (``document_ids``, or all for None) and
    queue it to be filled. Raises ``GridRejected`` (nothing saved), ``RateLimited`` or
    ``JobQueueDown`` (saved as failed; Resume sends it again)."""
    require(user=user, matter=matter, action=Action.ASK)
    checked = services.columns_check(columns)
    documents = services.grid_documents_check(matter=matter, document_ids=document_ids)
    if mode == Grid.Mode.CLAUDE:
        spend_require(matter=matter, user=user)  # a Claude grid spends like questions
    subjects = limit_require(GRID, user)
    try:
        with transaction.atomic():
            grid = services.grid_create(
                matter=matter,
                user=user,
                title=title,
                columns=checked,
                documents=documents,
                mode=mode,
            )
            audit_action(
                matter,
                user,
                ReviewVerb.GRID_CREATED,
                _target(grid),
                via,
                grid_id=grid.pk,
                mode=grid.mode,
                documents=len(documents),
                columns=[c.key for c in checked][:60],
            )
            jobs.enqueue_on_commit("grid", grid.pk)
    except QueueUnavailable:
        raise JobQueueDown.recorded(matter, user, grid, _target(grid), via) from None
    except GridRejected:
        limit_refund(GRID, subjects=subjects)
        raise
    grid.refresh_from_db()
    return grid


def grid_cancel(*, matter: Matter, user: User, grid: Grid, via: str) -> bool:
    """Cancel a queued or running grid (its cells so far are kept): its creator may, and so may an
    editor or owner. False when it had ended."""
    role = require(user=user, matter=matter, action=Action.ASK)
    _same_matter(matter, grid)
    require_starter_or_editor(
        user=user,
        matter=matter,
        started_by_id=grid.created_by_id,
        refusal="Only the person who made the grid, or an editor, can cancel it.",
        role=role,
    )
    name = actor_name(user)
    with transaction.atomic():
        if not services.grid_cancel(grid=grid, by=name):
            return False
        audit_action(matter, user, AuditEvent.Action.CANCELLED, _target(grid), via, grid_id=grid.pk)
    return True


def grid_retry(*, matter: Matter, user: User, grid: Grid, via: str, refill: bool = False) -> bool:
    """Resume a failed, cancelled or stalled grid (only missing cells are filled), or with
    ``refill`` fill every unreviewed cell afresh (also a finished grid). Reviewed cells are kept
    either way. False when there is nothing to do."""
    require(user=user, matter=matter, action=Action.ASK)
    _same_matter(matter, grid)
    status_before = grid.status
    try:
        with transaction.atomic():
            if not services.grid_retry(grid=grid, refill=refill):
                return False
            audit_action(
                matter,
                user,
                AuditEvent.Action.RETRIED,
                _target(grid) + (" (refill)" if refill else " (resume)"),
                via,
                grid_id=grid.pk,
                before=status_before,
                refill=refill,
            )
    except QueueUnavailable:
        raise JobQueueDown.recorded(matter, user, grid, _target(grid), via) from None
    return True


def cell_review(
    *, matter: Matter, user: User, cell: Cell, status: str, value: str = "", via: str
) -> Cell:
    """Confirm a cell, correct it (with the reviewer's value) or undo the review; audited, and
    kept by every later run of the grid."""
    require(user=user, matter=matter, action=Action.ASK)
    _same_matter(matter, cell.grid)
    before = cell.reviewed_status
    with transaction.atomic():
        cell = services.cell_review_write(cell=cell, user=user, status=status, value=value)
        audit_action(
            matter,
            user,
            ReviewVerb.CELL_REVIEWED,
            f"{_target(cell.grid)}: {cell.document.key} · {cell.column.key}",
            via,
            grid_id=cell.grid_id,
            cell_id=cell.pk,
            before=before,
            review=cell.reviewed_status,
            value=cell.value[:200],
            corrected_value=cell.corrected_value[:200],
        )
    return cell


def column_confirm(*, matter: Matter, user: User, grid: Grid, column: GridColumn, via: str) -> int:
    """Confirm at once every found cell of one column that nobody has reviewed (a cell already
    confirmed or corrected keeps its review; a "not found" cell is left for a person to look
    at). One audit row names the column and the cells; returns how many were confirmed."""
    require(user=user, matter=matter, action=Action.ASK)
    _same_matter(matter, grid)
    if column.grid_id != grid.pk:
        raise Http404("No such column.")
    with transaction.atomic():
        ids = services.column_confirm_write(grid=grid, column=column, user=user)
        if ids:
            audit_action(
                matter,
                user,
                ReviewVerb.CELL_REVIEWED,
                f"{_target(grid)}: column {column.key} ({len(ids)} cells)",
                via,
                grid_id=grid.pk,
                column_id=column.pk,
                column=column.key,
                cell_ids=ids[:500],
                count=len(ids),
                before=Cell.Review.NONE,
                review=Cell.Review.CONFIRMED,
            )
    return len(ids)


def saved_column_add(
    *, matter: Matter, user: User, key: str, question: str, type_: str, via: str
) -> SavedColumn:
    """Keep the user's own column (a question and an answer type) in the matter for later
    grids; saving the same name again updates it."""
    require(user=user, matter=matter, action=Action.ASK)
    with transaction.atomic():
        column = services.saved_column_create(
            matter=matter, user=user, key=key, question=question, type_=type_
        )
        audit_action(
            matter,
            user,
            ReviewVerb.COLUMN_SAVED,
            f"review column {column.key}",
            via,
            column_id=column.pk,
            type=column.type,
        )
    return column


def grid_export(
    *, matter: Matter, user: User, grid: Grid, fmt: str, via: str, base_url: str = ""
) -> exports.Export:
    """The grid as CSV, XLSX or a PDF memo (any member); the export is audited. Raises
    ``RateLimited`` past the export rate (``LEGALNAV_EXPORT_RATE_PER_MINUTE``). ``base_url``
    (the site's address, from the request) makes the XLSX's links to the reader absolute."""
    require(user=user, matter=matter, action=Action.VIEW)
    _same_matter(matter, grid)
    if fmt not in exports.FORMATS:
        raise GridRejected(f"Export as one of {', '.join(exports.FORMATS)}.", "format")
    with limit_spent(EXPORT, user):
        out = exports.grid_export_render(grid=grid, fmt=fmt, user=user, base_url=base_url)
    audit_action(
        matter,
        user,
        AuditEvent.Action.EXPORTED,
        f"{fmt} of {_target(grid)}",
        via,
        grid_id=grid.pk,
        format=fmt,
        bytes=out.size,
    )
    return out


# --- playbooks ----------------------------------------------------------------------------------


def _staff(user: User) -> None:
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_staff", False):
        raise PermissionDenied("Only staff write the firm's playbooks.")


def playbook_save(
    *,
    user: User,
    playbook: Playbook | None,
    name: str,
    description: str,
    positions: object,
    via: str,
    archived: bool = False,
) -> Playbook:
    """Create a playbook or save a new version of it (staff only: playbooks are the firm's, not a
    matter's). Audited outside any matter with the version saved. Raises ``PlaybookRejected``
    (nothing saved) or ``PermissionDenied``."""
    _staff(user)
    checked = playbooks.positions_check(positions)
    with transaction.atomic():
        before = playbook.version if playbook is not None else 0
        was_archived = playbook.archived if playbook is not None else False
        saved = playbooks.playbook_write(
            playbook=playbook,
            name=name,
            description=description,
            positions=checked,
            user=user,
            archived=archived,
        )
        if saved.version != before or saved.archived != was_archived:
            audit_action(
                None,
                user,
                ReviewVerb.PLAYBOOK_SAVED,
                f"playbook {saved.name} v{saved.version}",
                via,
                playbook_id=saved.pk,
                version=saved.version,
                archived=saved.archived,
                positions=[p.described for p in checked][:60],
            )
    return saved


def playbook_apply(
    *,
    matter: Matter,
    user: User,
    playbook: Playbook,
    document_ids: Sequence[int] | None,
    grid: Grid | None,
    via: str,
    mode: str = Grid.Mode.OFFLINE,
) -> PlaybookRun:
    """Apply a playbook's current version to documents of the matter (``document_ids``, or all
    indexed ones) through a new offline grid, or to an existing ``grid`` of the matter, which
    gets the columns it lacks. Any member who may ask questions may; audited with the version
    applied. Raises ``PlaybookRejected``/``GridRejected`` (nothing saved), ``RateLimited`` or
    ``JobQueueDown`` (the run is saved; Resume on the grid sends it again). With ``mode``
    "claude" the new grid is filled by Claude, which also reads the positions in words."""
    require(user=user, matter=matter, action=Action.ASK)
    if mode == Grid.Mode.CLAUDE and grid is None:
        spend_require(matter=matter, user=user)
    if playbook.archived:
        raise playbooks.PlaybookRejected("This playbook is archived.", "playbook")
    if grid is not None:
        _same_matter(matter, grid)
        documents: list = []  # type: ignore[type-arg]
    else:
        documents = services.grid_documents_check(matter=matter, document_ids=document_ids)
    subjects = limit_require(GRID, user)
    try:
        with transaction.atomic():
            run, grid, fill = playbooks.run_create(
                matter=matter,
                playbook=playbook,
                user=user,
                grid=grid,
                documents=documents,
                mode=mode,
            )
            audit_action(
                matter,
                user,
                ReviewVerb.PLAYBOOK_APPLIED,
                f"playbook {playbook.name} v{run.version.number} on {_target(grid)}",
                via,
                run_id=run.pk,
                playbook_id=playbook.pk,
                version=run.version.number,
                grid_id=grid.pk,
                documents=grid.rows.count(),
            )
            if fill:
                if grid.status in (Grid.Status.DONE, Grid.Status.FAILED, Grid.Status.CANCELLED):
                    services.grid_retry(grid=grid)
                else:
                    jobs.enqueue_on_commit("grid", grid.pk)
    except QueueUnavailable:
        raise JobQueueDown.recorded(matter, user, grid, _target(grid), via) from None
    except GridRejected:
        limit_refund(GRID, subjects=subjects)
        raise
    playbooks.verdicts_decide(run=run)
    return run
