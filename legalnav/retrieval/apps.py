from __future__ import annotations

from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "legalnav.retrieval"
    label = "retrieval"
    default_auto_field = "django.db.models.BigAutoField"
