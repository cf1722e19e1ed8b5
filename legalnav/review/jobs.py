"""This app's kinds of background job, as the job lifecycle (``legalnav.core.jobs``) runs them;
registered in the app's ``ready()``."""

from __future__ import annotations

from legalnav.core.jobs import JobSpec

GRID_JOB = JobSpec(
    kind="grid",
    model="review.Grid",
    task="legalnav.review.tasks.fill_grid",
    execute="legalnav.review.services.grid_fill_job",
    noun="Filling the grid",
    alive="legalnav.review.services.grid_chunks_alive",
)
CHUNK_JOB = JobSpec(
    kind="grid_chunk",
    model="review.GridChunk",
    task="legalnav.review.tasks.fill_grid_chunk",
    execute="legalnav.review.services.grid_chunk_job",
    noun="Filling part of the grid",
)

SPECS = (
    GRID_JOB,
    CHUNK_JOB,
)
