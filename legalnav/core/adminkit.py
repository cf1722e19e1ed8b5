"""What the Django admin's pages share: rows shown but never written there (derived rows, logs,
the ledger), because they are written by the actions and jobs, never by hand."""

from __future__ import annotations

from django.http import HttpRequest


class ReadOnlyAdmin:
    """Mix into a ModelAdmin: no adding, changing or deleting from the admin."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
