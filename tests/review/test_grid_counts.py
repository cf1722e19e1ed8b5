"""The counts above a grid's table (filled, found, not found, low confidence, reviewed) are kept
on the grid as it fills, not counted per poll: after every writer of cells (a document's cells
written, by one job or by chunks side by side, a review given, changed and undone, a column
confirmed, a refill, a document deleted) they equal a fresh count of the cells, a finished fill
and the migration recount them, and reading them is one query of the grid's row."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.db.models import Count, F, Q
from django.test.utils import CaptureQueriesContext

from legalnav.core import jobs
from legalnav.documents.actions import document_remove
from legalnav.review import actions, selectors, services
from legalnav.review.models import LOW_CONFIDENCE, Cell, Grid, GridChunk
from legalnav.review.services import ColumnSpec
from tests.conftest import index_bioamber_pair

pytestmark = pytest.mark.django_db

COLUMNS = [
    ColumnSpec("Governing Law", "Which law governs this agreement?", "text"),
    ColumnSpec("Agreement Date", "When was it made?", "date"),
    ColumnSpec("Source Code Escrow", "Is source code put in escrow?", "yes_no"),
]


@pytest.fixture
def pair(matter):
    return index_bioamber_pair(matter)


def fresh(grid: Grid) -> dict[str, int]:
    """The counts as a fresh aggregate over the grid's cells (what every poll used to run)."""
    # (Aliases other than the field names: Django refuses an aggregate named like a field.)
    got = Cell.objects.filter(grid=grid).aggregate(
        n_filled=Count("id"),
        n_found=Count("id", filter=Q(found=True)),
        n_not_found=Count("id", filter=Q(found=False)),
        # low: the value's own confidence where the cell has one, else the quotation's
        n_low=Count(
            "id",
            filter=Q(found=True)
            & (
                Q(value_confidence__isnull=True, confidence__lt=LOW_CONFIDENCE)
                | Q(value_confidence__lt=LOW_CONFIDENCE)
            ),
        ),
        n_reviewed=Count("id", filter=~Q(reviewed_status=Cell.Review.NONE)),
    )
    return {name.removeprefix("n_"): value for name, value in got.items()}


def kept(grid: Grid) -> dict[str, int]:
    return selectors.grid_counts(grid=grid)


def _create(matter, owner, *, capture=None, ids=None) -> Grid:
    def make() -> Grid:
        return actions.grid_create(
            matter=matter, user=owner, title="Counts", columns=COLUMNS, document_ids=ids,
            mode="offline", via="page",
        )  # fmt: skip

    if capture is None:
        return make()  # queued: on_commit never runs inside the test transaction
    with capture(execute=True):
        grid = make()
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE, grid.error_message
    return grid


def _made(grid: Grid, document, states: list[tuple[bool, float]]) -> list[Cell]:
    """Cells of ``document`` as the filler would write them, one per column, found or not and
    with the confidence given (so that every count, low confidence too, is met)."""
    columns = list(grid.columns.order_by("position"))
    return [
        Cell(
            grid=grid,
            column=c,
            document=document,
            found=found,
            confidence=confidence,
            status=Cell.Status.FOUND if found else Cell.Status.NOT_FOUND,
            value="x" if found else "",
        )  # fmt: skip
        for c, (found, confidence) in zip(columns, states, strict=True)
    ]


def _drift(grid: Grid) -> None:
    """Counts gone wrong (what a lost increment would leave)."""
    Grid.objects.filter(pk=grid.pk).update(
        cells_done=F("cells_done") + 5, n_found=F("n_found") + 3, n_low=7, n_reviewed=2
    )


def test_cells_written_add_to_the_counts_and_the_finished_fill_recounts_them(matter, owner, pair):
    base, amendment = pair
    grid = _create(matter, owner)
    lease = jobs.job_claim(jobs.spec_for("grid"), grid.pk, owner="worker")
    assert isinstance(lease, jobs.Lease)
    assert kept(grid) == fresh(grid) == dict.fromkeys(fresh(grid), 0)
    # Two documents written with the same stale instance of the grid: the counts go up in the
    # database, not from the instance, so neither write is lost.
    services._write_cells(
        grid, lease, base.pk, _made(grid, base, [(True, 0.9), (True, 0.2), (False, 0.1)])
    )
    services._write_cells(grid, lease, amendment.pk, _made(grid, amendment, [(True, 0.3), (False, 0.0), (False, 0.0)]))  # fmt: skip
    assert kept(grid) == fresh(grid) == {
        "filled": 6, "found": 3, "not_found": 3, "low": 2, "reviewed": 0,
    }  # fmt: skip
    # A cell written meanwhile (by a worker that took over) is kept, and not counted again.
    services._write_cells(grid, lease, base.pk, _made(grid, base, [(True, 0.9)] * 3))
    assert kept(grid) == fresh(grid) and kept(grid)["filled"] == 6
    assert Grid.objects.get(pk=grid.pk).cells_done == 6  # "filled" is the progress count
    # The end of the fill counts the cells afresh: drift does not outlive the run.
    _drift(grid)
    assert kept(grid) != fresh(grid)
    services._fill_claimed(Grid.objects.get(pk=grid.pk), lease)
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE
    assert kept(grid) == fresh(grid) and kept(grid)["filled"] == 6


def test_a_yes_no_cell_is_low_by_its_value_s_confidence_where_it_has_one(matter, owner, pair):
    """A yes/no cell decided by its document model carries how sure its Yes or No is apart from
    the quotation's confidence; the low count, the low filter and the page's mark read that:
    a sure "No" with a weak closest quotation is not low, an unsure "Yes" with a strong one is."""
    base, amendment = pair
    grid = _create(matter, owner)
    lease = jobs.job_claim(jobs.spec_for("grid"), grid.pk, owner="worker")
    assert isinstance(lease, jobs.Lease)
    sure_no, unsure_yes = (
        _made(grid, base, [(True, 0.9), (True, 0.9), (True, 0.17)]),
        _made(grid, amendment, [(True, 0.9), (True, 0.9), (True, 0.95)]),
    )
    sure_no[2].value, sure_no[2].value_confidence = "No", 0.97
    unsure_yes[2].value, unsure_yes[2].value_confidence = "Yes", 0.31
    services._write_cells(grid, lease, base.pk, sure_no)
    services._write_cells(grid, lease, amendment.pk, unsure_yes)
    assert kept(grid) == fresh(grid) and kept(grid)["low"] == 1
    low = selectors.cells_filtered(Cell.objects.filter(grid=grid), "low")
    assert [(c.document_id, c.value) for c in low] == [(amendment.pk, "Yes")]
    escrow = Cell.objects.filter(grid=grid, column__key="Source Code Escrow")
    got = {c.document_id: c for c in escrow}
    assert not got[base.pk].low_confidence and got[base.pk].certainty == pytest.approx(0.97)
    assert got[amendment.pk].low_confidence and got[amendment.pk].certainty == pytest.approx(0.31)


def test_chunks_add_to_the_counts_side_by_side_and_the_last_recounts_them(
    matter, owner, pair, settings
):
    settings.GRID_CHUNK_DOCUMENTS = 1  # two documents: two chunks
    grid = _create(matter, owner)
    lease = jobs.job_claim(jobs.spec_for("grid"), grid.pk, owner="coordinator")
    services._fan_out(Grid.objects.get(pk=grid.pk), lease)  # the chunks wait (on_commit)
    first, second = GridChunk.objects.filter(grid=grid)
    assert services.grid_chunk_job(first.pk, "worker-a") == "done"
    grid.refresh_from_db()
    assert grid.status == Grid.Status.RUNNING  # not settled: these are the chunk's increments
    assert kept(grid) == fresh(grid) and kept(grid)["filled"] == 3
    _drift(grid)
    assert services.grid_chunk_job(second.pk, "worker-b") == "done"
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE  # settled by the last chunk, which recounted
    assert kept(grid) == fresh(grid) and kept(grid)["filled"] == 6


def test_reviews_confirm_correct_and_undo_move_the_reviewed_count(
    matter, owner, pair, django_capture_on_commit_callbacks
):
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks)
    assert kept(grid) == fresh(grid) and kept(grid)["filled"] == 6
    one, two = Cell.objects.filter(grid=grid).order_by("pk")[:2]

    def review(cell: Cell, status: str, value: str = "") -> dict[str, int]:
        # A fresh instance each time, as a page loads it: the count follows the row, not it.
        cell = Cell.objects.select_related("grid", "document", "column").get(pk=cell.pk)
        actions.cell_review(
            matter=matter, user=owner, cell=cell, status=status, value=value, via="page"
        )
        assert kept(grid) == fresh(grid)
        return kept(grid)

    assert review(one, "confirmed")["reviewed"] == 1
    assert review(one, "confirmed")["reviewed"] == 1  # confirmed again: still one
    assert review(one, "corrected", "Delaware")["reviewed"] == 1  # changed, not added
    assert review(two, "corrected", "New York")["reviewed"] == 2
    assert review(one, "none")["reviewed"] == 1  # undone
    assert review(one, "none")["reviewed"] == 1  # undone twice: counted down once
    assert review(two, "none")["reviewed"] == 0
    # A stale instance (loaded before the review it is reviewed again over) counts right too.
    stale = Cell.objects.select_related("grid", "document", "column").get(pk=one.pk)
    review(one, "confirmed")
    actions.cell_review(matter=matter, user=owner, cell=stale, status="confirmed", via="page")
    assert kept(grid) == fresh(grid) and kept(grid)["reviewed"] == 1


def test_confirming_a_column_counts_the_cells_it_confirmed(
    matter, owner, pair, django_capture_on_commit_callbacks
):
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks)
    column = grid.columns.order_by("position").first()
    cells = Cell.objects.filter(grid=grid, column=column)
    # Both found, one of them already corrected (kept, and not counted twice).
    cells.update(found=True, status="found", value="Minnesota", confidence=0.9)
    corrected = cells.order_by("pk").first()
    actions.cell_review(
        matter=matter, user=owner, cell=corrected, status="corrected", value="Ohio", via="page"
    )
    services.grid_recount(grid=grid)  # (the cells were changed behind the services' back)
    assert kept(grid)["reviewed"] == 1
    n = actions.column_confirm(matter=matter, user=owner, grid=grid, column=column, via="page")
    assert n == 1
    assert kept(grid) == fresh(grid) and kept(grid)["reviewed"] == 2
    assert actions.column_confirm(matter=matter, user=owner, grid=grid, column=column, via="page") == 0  # fmt: skip
    assert kept(grid) == fresh(grid) and kept(grid)["reviewed"] == 2


def test_a_refill_counts_the_cells_it_cleared_and_those_it_wrote(
    matter, owner, pair, django_capture_on_commit_callbacks
):
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks)
    cell = Cell.objects.filter(grid=grid).first()
    actions.cell_review(matter=matter, user=owner, cell=cell, status="confirmed", via="page")
    # Refill asked for, not yet run: the unreviewed cells are gone, the reviewed one counted.
    assert actions.grid_retry(matter=matter, user=owner, grid=grid, via="page", refill=True)
    assert kept(grid) == fresh(grid) and kept(grid)["filled"] == kept(grid)["reviewed"] == 1
    Grid.objects.filter(pk=grid.pk).update(status=Grid.Status.DONE)  # (to resume it again)
    with django_capture_on_commit_callbacks(execute=True):
        assert actions.grid_retry(matter=matter, user=owner, grid=grid, via="page", refill=True)
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE
    assert kept(grid) == fresh(grid)
    assert kept(grid)["filled"] == 6 and kept(grid)["reviewed"] == 1


def test_a_document_deleted_leaves_the_counts_of_its_grids(
    matter, owner, pair, django_capture_on_commit_callbacks
):
    base, amendment = pair
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks)
    only_base = _create(matter, owner, capture=django_capture_on_commit_callbacks, ids=[base.pk])
    cell = Cell.objects.filter(grid=grid, document=amendment).first()
    actions.cell_review(matter=matter, user=owner, cell=cell, status="confirmed", via="page")
    before = kept(grid)
    document_remove(document=amendment, user=owner)
    assert kept(grid) == fresh(grid)
    assert kept(grid)["filled"] == before["filled"] - 3 and kept(grid)["reviewed"] == 0
    grid.refresh_from_db()
    assert grid.cells_total == grid.cells_done == 3 and grid.percent == 100  # its row went
    assert kept(only_base) == fresh(only_base) and kept(only_base)["filled"] == 3


def test_a_purge_deleting_documents_leaves_the_counts_to_the_grids_it_deletes(
    matter, owner, pair, django_capture_on_commit_callbacks
):
    # A closed matter takes no writes: its documents go only in its purge, whose review part
    # deletes the grids as well, so the 10,000 deletions of a data room's purge do not each lock
    # and recount them.
    _base, amendment = pair
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks)
    before = kept(grid)
    type(matter).objects.filter(pk=matter.pk).update(status=type(matter).Status.CLOSED)
    amendment.delete()
    assert kept(grid) == before != fresh(grid)


def test_grid_recount_and_the_migration_put_drifted_counts_right(
    matter, owner, pair, django_capture_on_commit_callbacks
):
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks)
    Cell.objects.filter(grid=grid).update(reviewed_status="confirmed")  # behind its back
    _drift(grid)
    assert kept(grid) != fresh(grid)
    services.grid_recount(grid=grid)
    assert kept(grid) == fresh(grid) and kept(grid)["reviewed"] == 6
    empty = Grid.objects.create(matter=matter, title="Empty")
    _drift(grid)
    _drift(empty)
    migration = importlib.import_module("legalnav.review.migrations.0008_grid_counts")
    migration.recount(apps, None)
    assert kept(grid) == fresh(grid)
    assert kept(empty) == fresh(empty) == dict.fromkeys(fresh(empty), 0)


def test_reading_the_counts_is_one_query_of_the_grids_row(
    matter, owner, pair, django_capture_on_commit_callbacks
):
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks)
    with CaptureQueriesContext(connection) as queries:
        counts = selectors.grid_counts(grid=grid)
    assert counts == fresh(grid) and set(counts) == {
        "filled", "found", "not_found", "low", "reviewed",
    }  # fmt: skip
    assert len(queries) == 1
    sql = queries[0]["sql"].lower()
    assert "review_grid" in sql and "review_cell" not in sql and "count(" not in sql
