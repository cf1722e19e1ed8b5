"""This app's kinds of background job, as the job lifecycle (``legalnav.core.jobs``) runs them;
registered in the app's ``ready()``."""

from __future__ import annotations

from legalnav.core.jobs import JobSpec

DOCUMENT = JobSpec(
    kind="document",
    model="documents.Document",
    task="legalnav.documents.tasks.index_document",
    execute="legalnav.documents.services.document_index_job",
    noun="Indexing",
    running="indexing",
    done="indexed",
)

SPECS = (DOCUMENT,)
