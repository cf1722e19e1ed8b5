"""API tokens in the Django admin: staff see every person's tokens (never their secrets, which
are not stored) and revoke them, audited. Tokens are made by their owners on the token page."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from legalnav.api.models import ApiToken
from legalnav.api.tokens import api_token_revoke_by_staff


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = (
        "user",
        "name",
        "prefix",
        "scope",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
    )
    list_filter = ("scope", ("revoked_at", admin.EmptyFieldListFilter), "user")
    search_fields = ("user__username", "name", "prefix")
    list_select_related = ("user",)
    actions = ("revoke",)
    exclude = ("digest",)

    def get_readonly_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> list[str]:
        return [f.name for f in self.model._meta.fields if f.name != "digest"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ApiToken | None = None) -> bool:
        return False  # revoked, not deleted: the row says who had which token and when

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        done = sum(
            api_token_revoke_by_staff(staff=request.user, token=t)
            for t in queryset.select_related("user")
        )
        messages.success(request, f"Revoked {done} token(s); they no longer work.")
