from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from legalnav.accounts.models import AccessEvent


@admin.register(AccessEvent)
class AccessEventAdmin(admin.ModelAdmin):
    """The sign-in log, for staff: read-only."""

    list_display = ("at", "kind", "username", "method", "provider", "second_factor", "address")
    list_filter = ("kind", "method", "second_factor", "at")
    search_fields = ("username", "address")
    date_hierarchy = "at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
