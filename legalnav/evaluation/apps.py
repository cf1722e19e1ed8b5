from __future__ import annotations

from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "legalnav.evaluation"
    label = "evaluation"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Evaluation"
