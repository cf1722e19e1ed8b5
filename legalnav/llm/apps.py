from __future__ import annotations

from django.apps import AppConfig


class LLMConfig(AppConfig):
    name = "legalnav.llm"
    label = "llm"
    verbose_name = "LLM calls"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from legalnav.llm import receivers
        from legalnav.matters.signals import matter_purging

        # A purge removes this app's part of the matter (see matters/signals.py).
        matter_purging.connect(receivers.purge_matter_ledger, dispatch_uid="legalnav-llm-purge")
