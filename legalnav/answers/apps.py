from __future__ import annotations

from django.apps import AppConfig


class AnswersConfig(AppConfig):
    name = "legalnav.answers"
    label = "answers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # This app's jobs, audit verbs, purge and handover part (see matters/apphooks.py).
        from legalnav.answers import handover as answers_handover
        from legalnav.answers import receivers
        from legalnav.answers.jobs import SPECS as JOBS
        from legalnav.answers.verbs import Verb
        from legalnav.matters.apphooks import HandoverPart, hook_app

        hook_app(
            "answers",
            jobs=JOBS,
            verbs=Verb.choices,
            purge=receivers.purge_matter_answers,
            handover=HandoverPart(
                20,
                "answers/: each question with its answer and cited provisions (Markdown); memos/: the PDF memo of each answered question; answers/index.csv",
                answers_handover.answers_part,
            ),
        )
