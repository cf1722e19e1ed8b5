from __future__ import annotations

from django.apps import AppConfig


class LLMConfig(AppConfig):
    name = "legalnav.llm"
    label = "llm"
    verbose_name = "LLM calls"

    def ready(self) -> None:
        # A purge removes this app's part of the matter (see matters/apphooks.py).
        from legalnav.llm import receivers
        from legalnav.matters.apphooks import hook_app

        hook_app("llm", purge=receivers.purge_matter_ledger)
