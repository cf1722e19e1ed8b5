"""A grid of more documents than ``GRID_CHUNK_DOCUMENTS`` is filled in chunks, each a job of its
own (``services.grid_chunk_job``): every cell written once, the grid settled by the last chunk,
alive while a chunk is open, a dead worker's chunk sent again by the sweeper, cancel stopping
every chunk and resume planning afresh. Real documents, really indexed and filled (inline)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from legalnav.core import jobs
from legalnav.review import actions, services
from legalnav.review.models import Cell, Grid, GridChunk
from legalnav.review.services import ColumnSpec
from tests.conftest import index_bioamber_pair

pytestmark = pytest.mark.django_db

COLUMNS = [
    ColumnSpec("Governing Law", "Which law governs this agreement?", "text"),
    ColumnSpec("Agreement Date", "When was it made?", "date"),
]


@pytest.fixture
def pair(matter, settings):
    settings.GRID_CHUNK_DOCUMENTS = 1  # two documents: two chunks
    return index_bioamber_pair(matter)


def _create(matter, owner):
    return actions.grid_create(
        matter=matter, user=owner, title="Room", columns=COLUMNS, document_ids=None,
        mode="offline", via="api",
    )  # fmt: skip


def test_a_large_grid_is_filled_by_its_chunks_and_settled_by_the_last(
    matter, owner, pair, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        grid = _create(matter, owner)
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE, grid.error_message
    assert grid.cells_done == grid.cells_total == Cell.objects.filter(grid=grid).count() == 4
    chunks = list(GridChunk.objects.filter(grid=grid))
    assert [(c.first, c.last, c.status) for c in chunks] == [(0, 1, "done"), (1, 2, "done")]
    assert grid.lease_owner == "" and grid.attempts == 1  # one claim: the chunks did the work
    assert {c.columns for c in chunks} == {2}


def test_a_fanned_out_grid_is_alive_while_a_chunk_is_open_and_a_dead_chunk_is_sent_again(
    matter, owner, pair
):
    grid = _create(matter, owner)  # queued: on_commit never runs inside the test transaction
    spec = jobs.spec_for("grid")
    lease = jobs.job_claim(spec, grid.pk, owner="coordinator")
    services._fan_out(Grid.objects.get(pk=grid.pk), lease)  # plans; the chunks wait (on_commit)
    grid.refresh_from_db()
    first, second = GridChunk.objects.filter(grid=grid)
    assert grid.status == "running" and grid.lease_owner == services.FANOUT
    assert not jobs.is_stale(spec, grid)  # no lease of its own, but its chunks are open
    assert services.grid_chunk_job(first.pk, "worker-a") == "done"
    grid.refresh_from_db()
    assert grid.status == "running" and grid.cells_done == 2  # the second chunk is still open
    # The second chunk's worker dies holding it: its lease lapses; the grid is still alive.
    chunk_spec = jobs.spec_for("grid_chunk")
    assert isinstance(jobs.job_claim(chunk_spec, second.pk, owner="worker-b"), jobs.Lease)
    GridChunk.objects.filter(pk=second.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert not jobs.is_stale(spec, Grid.objects.get(pk=grid.pk))
    report = jobs.jobs_sweep()  # the inline runner fills the chunk it sends again
    assert report.requeued == 1
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE and grid.cells_done == 4
    assert GridChunk.objects.get(pk=second.pk).attempts == 2
    # A grid whose chunks all ended but that was never settled (its settler died): stale, and
    # the sweeper's re-queue settles it from its chunks rather than filling it again.
    Grid.objects.filter(pk=grid.pk).update(status="running", lease_owner=services.FANOUT)
    assert jobs.is_stale(spec, Grid.objects.get(pk=grid.pk))
    jobs.jobs_sweep()
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE and Cell.objects.filter(grid=grid).count() == 4


def test_cancel_stops_every_chunk_and_resume_plans_afresh(matter, owner, pair):
    grid = _create(matter, owner)
    lease = jobs.job_claim(jobs.spec_for("grid"), grid.pk, owner="coordinator")
    services._fan_out(Grid.objects.get(pk=grid.pk), lease)
    first, second = GridChunk.objects.filter(grid=grid)
    services.grid_chunk_job(first.pk, "worker-a")
    held = jobs.job_claim(jobs.spec_for("grid_chunk"), second.pk, owner="worker-b")
    assert actions.grid_cancel(matter=matter, user=owner, grid=grid, via="page")
    assert set(GridChunk.objects.filter(grid=grid).values_list("status", flat=True)) == {
        "done",
        "cancelled",
    }
    with pytest.raises(jobs.JobLost):  # the worker on the second chunk stops writing
        held.check()
    # A chunk sent before the cancel and taken after it writes nothing.
    assert services.grid_chunk_job(second.pk, "worker-c") in ("final", "cancelled")
    assert Cell.objects.filter(grid=grid).count() == 2
    assert actions.grid_retry(matter=matter, user=owner, grid=grid, via="page")
    assert not GridChunk.objects.filter(grid=grid).exists()  # ended chunks go; a fresh plan
    services.grid_fill_job(grid.pk, "coordinator-2")  # plans; chunks wait for on_commit
    for chunk in GridChunk.objects.filter(grid=grid):
        services.grid_chunk_job(chunk.pk, "worker-d")
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE and grid.cells_done == 4


def test_a_failed_chunk_fails_the_grid_with_its_reason_once_the_others_end(matter, owner, pair):
    grid = _create(matter, owner)
    lease = jobs.job_claim(jobs.spec_for("grid"), grid.pk, owner="coordinator")
    services._fan_out(Grid.objects.get(pk=grid.pk), lease)
    first, second = GridChunk.objects.filter(grid=grid)
    chunk_lease = jobs.job_claim(jobs.spec_for("grid_chunk"), first.pk, owner="worker-a")
    chunk_lease.fail("Claude could not be reached while filling D1.", "llm")
    assert services.grid_settle(grid.pk) == ""  # the second chunk is still open
    services.grid_chunk_job(second.pk, "worker-b")
    grid.refresh_from_db()
    assert grid.status == Grid.Status.FAILED and grid.error_code == "llm"
    assert "Claude could not be reached" in grid.error_message
    assert Cell.objects.filter(grid=grid).count() == 2  # the second chunk's cells are kept


def test_the_page_shows_the_parts_and_the_time_left_while_the_chunks_fill(
    client, matter, owner, pair
):
    from django.urls import reverse

    from legalnav.review.selectors import eta_text

    grid = _create(matter, owner)
    lease = jobs.job_claim(jobs.spec_for("grid"), grid.pk, owner="coordinator")
    services._fan_out(Grid.objects.get(pk=grid.pk), lease)
    first = GridChunk.objects.filter(grid=grid).first()
    services.grid_chunk_job(first.pk, "worker-a")
    # The run began 30 s ago and has filled 2 of 4 cells since: 30 s more at that pace.
    Grid.objects.filter(pk=grid.pk).update(
        started_at=timezone.now() - timedelta(seconds=30), started_cells=0
    )
    grid.refresh_from_db()
    assert 29 <= grid.eta_seconds <= 31
    client.force_login(owner)
    page = client.get(reverse("grid-detail", args=[matter.pk, grid.pk])).content.decode()
    assert "Filled in 2 parts of up to 1 documents" in page
    assert "1 done, 0 filling, 1 waiting" in page
    assert "less than a minute left" in page
    assert eta_text(150) == "about 2 minutes left" and eta_text(7200) == "about 2 h 00 min left"
    assert eta_text(None) == ""


def test_a_column_added_while_the_chunks_run_is_filled_for_every_row(matter, owner, pair):
    from legalnav.review.models import GridColumn

    grid = _create(matter, owner)
    lease = jobs.job_claim(jobs.spec_for("grid"), grid.pk, owner="coordinator")
    services._fan_out(Grid.objects.get(pk=grid.pk), lease)
    first, second = GridChunk.objects.filter(grid=grid)
    services.grid_chunk_job(first.pk, "worker-a")  # the first row, two columns
    GridColumn.objects.create(
        grid=grid, position=2, key="Parties", question="Who are the parties?", type="party"
    )  # a playbook applied meanwhile adds a column
    services.grid_chunk_job(second.pk, "worker-b")  # the second row, three columns
    grid.refresh_from_db()
    assert grid.status == "running"  # settled into a new plan for the first row's new cell
    for chunk in GridChunk.objects.filter(grid=grid, status="queued"):
        services.grid_chunk_job(chunk.pk, "worker-c")
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE
    assert Cell.objects.filter(grid=grid).count() == 6  # every row has every column
