"""Grids and saved columns in the Django admin, to look at: they are made, resumed, cancelled and
exported on the matter's review page (or the API), through the review actions."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from legalnav.core.adminkit import ReadOnlyAdmin
from legalnav.matters.access import visible_matters
from legalnav.review.models import Grid, SavedColumn


class LookOnly(ReadOnlyAdmin, admin.ModelAdmin):
    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).filter(matter__in=visible_matters(request.user))


@admin.register(Grid)
class GridAdmin(LookOnly):
    list_display = ("id", "title", "matter", "status", "cells_done", "cells_total", "created_at")
    list_filter = ("status", "mode")
    search_fields = ("title",)
    raw_id_fields = ("matter", "created_by")


@admin.register(SavedColumn)
class SavedColumnAdmin(LookOnly):
    list_display = ("key", "type", "matter", "created_by")
    raw_id_fields = ("matter", "created_by")
