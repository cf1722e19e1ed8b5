"""This app's kinds of background job, as the job lifecycle (``legalnav.core.jobs``) runs them;
registered in the app's ``ready()``."""

from __future__ import annotations

from legalnav.core.jobs import JobSpec

EVALUATION = JobSpec(
    kind="evaluation",
    model="evaluation.EvaluationRun",
    task="legalnav.evaluation.tasks.run_evaluation",
    execute="legalnav.evaluation.services.evaluation_run_job",
    noun="The evaluation run",
    abandoned="interrupted",
    requeue_abandoned=False,
)

SPECS = (EVALUATION,)
