from __future__ import annotations

from django.contrib import admin

from legalnav.accounts.models import AccessEvent
from legalnav.core.adminkit import ReadOnlyAdmin


@admin.register(AccessEvent)
class AccessEventAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """The sign-in log, for staff: read-only."""

    list_display = ("at", "kind", "username", "method", "provider", "second_factor", "address")
    list_filter = ("kind", "method", "second_factor", "at")
    search_fields = ("username", "address")
    date_hierarchy = "at"
