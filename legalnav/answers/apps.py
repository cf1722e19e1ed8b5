from __future__ import annotations

from django.apps import AppConfig


class AnswersConfig(AppConfig):
    name = "legalnav.answers"
    label = "answers"
    default_auto_field = "django.db.models.BigAutoField"
