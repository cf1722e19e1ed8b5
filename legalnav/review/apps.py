from __future__ import annotations

from django.apps import AppConfig


class ReviewConfig(AppConfig):
    """The review grid: columns of questions over a matter's documents, one typed cell each."""

    name = "legalnav.review"
    label = "review"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Review grid"
