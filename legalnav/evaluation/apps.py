from __future__ import annotations

from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "legalnav.evaluation"
    label = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        # This app's jobs and audit verbs, outside any matter (see matters/apphooks.py).
        from legalnav.evaluation.jobs import SPECS as JOBS
        from legalnav.evaluation.verbs import Verb
        from legalnav.matters.apphooks import hook_app

        hook_app("evaluation", jobs=JOBS, verbs=Verb.choices, in_matter=False)
