from __future__ import annotations

from django.apps import AppConfig


class MattersConfig(AppConfig):
    name = "legalnav.matters"
    label = "matters"
    default_auto_field = "django.db.models.BigAutoField"
