from __future__ import annotations

from django.contrib import admin

from legalnav.review.models import Grid, SavedColumn


@admin.register(Grid)
class GridAdmin(admin.ModelAdmin):
    list_display = ("id", "title", "matter", "status", "cells_done", "cells_total", "created_at")
    list_filter = ("status", "mode")
    search_fields = ("title",)
    raw_id_fields = ("matter", "created_by")
    readonly_fields = ("lease_owner", "lease_expires_at", "attempts", "estimate")


@admin.register(SavedColumn)
class SavedColumnAdmin(admin.ModelAdmin):
    list_display = ("key", "type", "matter", "created_by")
    raw_id_fields = ("matter", "created_by")
