from __future__ import annotations

from django.apps import AppConfig


class AnswersConfig(AppConfig):
    name = "legalnav.answers"
    label = "answers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from legalnav.answers import receivers
        from legalnav.matters.signals import matter_purging

        # A purge removes this app's part of the matter (see matters/signals.py).
        matter_purging.connect(
            receivers.purge_matter_answers, dispatch_uid="legalnav-answers-purge"
        )
