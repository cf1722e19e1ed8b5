from __future__ import annotations

from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "legalnav.evaluation"
    label = "evaluation"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        # This app's jobs (see core/jobs/).
        from legalnav.core.jobs import register_job
        from legalnav.evaluation.jobs import SPECS as JOBS

        for spec in JOBS:
            register_job(spec)

        # This app's audit verbs (see matters/audit.py).
        from legalnav.evaluation.verbs import Verb
        from legalnav.matters.audit import register_verbs

        register_verbs(Verb.choices, in_matter=False)
