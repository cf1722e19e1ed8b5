from __future__ import annotations

from django.contrib import admin
from django.db.models import Count

from legalnav.matters.models import Matter, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Matter)
class MatterAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "document_count", "updated_at")
    list_filter = ("kind",)
    search_fields = ("name", "description")
    inlines = (MembershipInline,)

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        return super().get_queryset(request).annotate(_documents=Count("documents"))

    @admin.display(description="documents", ordering="_documents")
    def document_count(self, obj: Matter) -> int:
        return obj._documents  # type: ignore[attr-defined]
