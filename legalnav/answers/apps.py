from __future__ import annotations

from django.apps import AppConfig


class AnswersConfig(AppConfig):
    """Questions asked of a matter, their answers and citations, and the typed answer report."""

    name = "legalnav.answers"
    label = "answers"

    def ready(self) -> None:
        # This app's jobs, audit verbs, purge and handover part (see matters/apphooks.py).
        from legalnav.answers.handover import PART
        from legalnav.answers.jobs import SPECS as JOBS
        from legalnav.answers.receivers import purge_matter_answers
        from legalnav.answers.verbs import Verb
        from legalnav.matters.apphooks import hook_app

        hook_app(
            "answers", jobs=JOBS, verbs=Verb.choices, purge=purge_matter_answers, handover=PART
        )
