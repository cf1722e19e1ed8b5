"""The Django admin for matters: a list to find them, and their members edited through the same
actions as the members page (audited, the last owner kept). Matters are opened, closed and purged
on their pages, the API or the commands, never here, so the admin cannot skip the audit or leave
a purge half done."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from legalnav.matters.access import visible_matters
from legalnav.matters.actions import member_add, member_change_role, member_remove
from legalnav.matters.models import Matter, Membership

VIA = "admin"


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Matter)
class MatterAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "status", "document_count", "retain_until", "updated_at")
    list_filter = ("kind", "status")
    search_fields = ("name", "description")
    inlines = (MembershipInline,)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Matter]:
        queryset = super().get_queryset(request).filter(pk__in=visible_matters(request.user))
        return queryset.annotate(_documents=Count("documents"))

    def get_readonly_fields(self, request: HttpRequest, obj: Matter | None = None) -> list[str]:
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # opened on the matters page, the API or a command (audited there)

    def has_delete_permission(self, request: HttpRequest, obj: Matter | None = None) -> bool:
        return False  # closed, then purged: the matter's "Close & retention" tab

    def save_model(self, request: HttpRequest, obj: Matter, form, change: bool) -> None:  # type: ignore[no-untyped-def]
        pass  # nothing of the matter itself is edited here; members are (save_formset)

    def save_formset(self, request: HttpRequest, form, formset, change: bool) -> None:  # type: ignore[no-untyped-def]
        """Each added, changed or removed member through the members' actions."""
        if formset.model is not Membership:
            super().save_formset(request, form, formset, change)
            return
        matter = form.instance
        for inline in formset.forms:
            if not inline.has_changed() and inline not in formset.deleted_forms:
                continue
            old = inline.instance if inline.instance.pk else None
            try:
                if inline in formset.deleted_forms:
                    if old is not None:
                        member_remove(
                            matter=matter, user=request.user, membership_id=old.pk, via=VIA
                        )
                    continue
                user, role = inline.cleaned_data["user"], inline.cleaned_data["role"]
                if old is not None and old.user_id != user.pk:  # another person: remove, add
                    member_remove(matter=matter, user=request.user, membership_id=old.pk, via=VIA)
                    old = None
                if old is None:
                    member_add(
                        matter=matter,
                        user=request.user,
                        username=user.get_username(),
                        role=role,
                        via=VIA,
                    )
                else:
                    member_change_role(
                        matter=matter,
                        user=request.user,
                        membership_id=old.pk,
                        role=role,
                        via=VIA,
                    )
            except (ValueError, ValidationError) as exc:
                messages.error(request, str(getattr(exc, "message", exc)))
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []

    @admin.display(description="documents", ordering="_documents")
    def document_count(self, obj: Matter) -> int:
        return obj._documents  # type: ignore[attr-defined]
