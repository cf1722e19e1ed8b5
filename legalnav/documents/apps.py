from __future__ import annotations

from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    name = "legalnav.documents"
    label = "documents"
    default_auto_field = "django.db.models.BigAutoField"
