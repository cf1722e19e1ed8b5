from __future__ import annotations

from django.apps import AppConfig


class AnswersConfig(AppConfig):
    name = "legalnav.answers"
    label = "answers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # This app's jobs (see core/jobs/).
        from legalnav.answers.jobs import SPECS as JOBS
        from legalnav.core.jobs import register_job

        for spec in JOBS:
            register_job(spec)

        # This app's audit verbs (see matters/audit.py).
        from legalnav.answers.verbs import Verb
        from legalnav.matters.audit import register_verbs

        register_verbs(Verb.choices)

        from legalnav.answers import receivers
        from legalnav.matters.signals import matter_purging

        # A purge removes this app's part of the matter (see matters/signals.py).
        matter_purging.connect(
            receivers.purge_matter_answers, dispatch_uid="legalnav-answers-purge"
        )

        # The handover zip: this app's part (see matters/handover.py).
        from legalnav.answers import handover as answers_handover
        from legalnav.matters.handover import register

        register(
            "answers",
            order=20,
            describes="answers/: each question with its answer and cited provisions (Markdown); memos/: the PDF memo of each answered question; answers/index.csv",
        )(answers_handover.answers_part)
