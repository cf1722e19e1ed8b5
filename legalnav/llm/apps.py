from __future__ import annotations

from django.apps import AppConfig


class LLMConfig(AppConfig):
    name = "legalnav.llm"
    label = "llm"
    verbose_name = "LLM calls"
    default_auto_field = "django.db.models.BigAutoField"
