from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from legalnav.core.adminkit import ReadOnlyAdmin
from legalnav.llm.models import LLMCall


@admin.register(LLMCall)
class LLMCallAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """The ledger is read-only: rows are written by the providers, never by hand, and a row
    edited or deleted afterwards would make the cost panel disagree with what was billed."""

    list_display = (
        "created_at",
        "provider",
        "model",
        "purpose",
        "status",
        "attempts",
        "input_tokens",
        "cache_write_tokens",
        "cache_read_tokens",
        "output_tokens",
        "dollars",
        "latency_ms",
        "estimated",
        "matter_id",
        "query_id",
    )
    list_filter = ("provider", "purpose", "status", "estimated", "model", "created_at")
    search_fields = ("model", "response_id", "error_message")
    date_hierarchy = "created_at"
    list_per_page = 100

    def get_readonly_fields(self, request: HttpRequest, obj: LLMCall | None = None) -> list[str]:
        return [field.name for field in self.model._meta.fields]
