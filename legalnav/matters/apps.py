from __future__ import annotations

from django.apps import AppConfig


class MattersConfig(AppConfig):
    name = "legalnav.matters"
    label = "matters"

    def ready(self) -> None:
        from legalnav.matters.audit import register_verbs
        from legalnav.matters.models import AuditEvent

        register_verbs(AuditEvent.Action.choices)
