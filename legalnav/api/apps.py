from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "legalnav.api"
    label = "api"
    verbose_name = "JSON API"

    def ready(self) -> None:
        # This app's audit verbs (see matters/audit.py).
        from legalnav.api.verbs import Verb
        from legalnav.matters.audit import register_verbs

        register_verbs(Verb.choices, in_matter=False)

        from legalnav.accounts.signals import user_deactivated
        from legalnav.api import tokens

        # A deactivated person's tokens stop working at once (and stay revoked if they return).
        user_deactivated.connect(
            tokens.revoke_all_of_deactivated, dispatch_uid="legalnav-api-deact"
        )
