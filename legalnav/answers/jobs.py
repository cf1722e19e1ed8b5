"""This app's kinds of background job, as the job lifecycle (``legalnav.core.jobs``) runs them;
registered in the app's ``ready()``."""

from __future__ import annotations

from legalnav.core.jobs import JobSpec

QUESTION = JobSpec(
    kind="question",
    model="answers.Question",
    task="legalnav.answers.tasks.answer_query",
    execute="legalnav.answers.services.query_answer_job",
    noun="Answering",
    done="answered",
)

SPECS = (QUESTION,)
