from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "legalnav.api"
    label = "api"
    verbose_name = "JSON API"
    default_auto_field = "django.db.models.BigAutoField"
