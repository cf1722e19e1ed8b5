"""The API token settings page (HTML, signed-in users), mounted at /settings/api-tokens/."""

from __future__ import annotations

from django.urls import path

from legalnav.api import pages

urlpatterns = [
    path("", pages.token_settings, name="api-tokens"),
    path("<int:token_id>/revoke/", pages.token_revoke, name="api-token-revoke"),
]
