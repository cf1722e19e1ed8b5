from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """People: signing in (local accounts, single sign-on, second factors), sign-ins audited,
    and what ends when a person is deactivated."""

    name = "legalnav.accounts"
    label = "accounts"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
        from django.db.models.signals import post_save, pre_save

        from legalnav.accounts import receivers

        user_logged_in.connect(receivers.signed_in, dispatch_uid="legalnav-accounts-signed-in")
        user_logged_out.connect(receivers.signed_out, dispatch_uid="legalnav-accounts-signed-out")
        user_login_failed.connect(
            receivers.sign_in_failed, dispatch_uid="legalnav-accounts-sign-in-failed"
        )
        User = get_user_model()
        pre_save.connect(receivers.note_activity, sender=User, dispatch_uid="legalnav-was-active")
        post_save.connect(
            receivers.end_access_if_deactivated, sender=User, dispatch_uid="legalnav-deactivated"
        )
