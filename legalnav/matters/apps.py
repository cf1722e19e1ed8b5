from __future__ import annotations

from django.apps import AppConfig


class MattersConfig(AppConfig):
    name = "legalnav.matters"
    label = "matters"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from legalnav.matters.audit import register_verbs
        from legalnav.matters.models import AuditEvent

        register_verbs(AuditEvent.Action.choices)
