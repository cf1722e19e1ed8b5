from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from legalnav.core.adminkit import ReadOnlyAdmin
from legalnav.core.jobs import QueueUnavailable
from legalnav.documents.actions import document_remove, document_retry, document_update_details
from legalnav.documents.models import NODE_FLAG_COLUMNS, CrossReference, DefinedTerm, Document, Node
from legalnav.matters.access import visible_matters

VIA = "admin"


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = (
        "title",
        "matter",
        "kind",
        "effective_date",
        "status",
        "progress",
        "node_count",
        "tree",
    )
    list_filter = ("status", "kind", ("matter", admin.RelatedOnlyFieldListFilter))
    search_fields = ("title", "original_filename", "sha256")
    raw_id_fields = ("amends",)
    list_select_related = ("matter",)
    exclude = ("text",)
    actions = ("reindex", "force_reindex")
    # Everything goes through the documents' actions, as on the matter page: the same audit rows,
    # the same refusals in a closed matter, the same clean-up of files, vectors and caches.

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        return super().get_queryset(request).filter(matter__in=visible_matters(request.user))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # uploads: the matter page, the API or manage.py ingest

    def get_readonly_fields(self, request: HttpRequest, obj: Document | None = None) -> list[str]:
        editable = {"title", "kind", "effective_date", "amends"}
        names = [f.name for f in self.model._meta.fields if f.name not in editable | {"text"}]
        return [*names, "tree"]

    def get_form(self, request: HttpRequest, obj: Document | None = None, **kwargs):  # type: ignore[no-untyped-def]
        form = super().get_form(request, obj, **kwargs)
        if obj is not None and "amends" in form.base_fields:
            # Only another document of the same matter can be amended (a raw id could name any).
            others = Document.objects.filter(matter_id=obj.matter_id).exclude(pk=obj.pk)
            form.base_fields["amends"].queryset = others
        return form

    def save_model(self, request: HttpRequest, obj: Document, form, change: bool) -> None:  # type: ignore[no-untyped-def]
        stored = Document.objects.get(pk=obj.pk)
        try:
            document_update_details(
                document=stored,
                user=request.user,
                title=form.cleaned_data.get("title", stored.title),
                kind=form.cleaned_data.get("kind", stored.kind),
                effective_date=form.cleaned_data.get("effective_date", stored.effective_date),
                amends=form.cleaned_data.get("amends", stored.amends),
            )
        except QueueUnavailable:
            # The details are saved; the re-index could not be queued (the document is failed,
            # retryable), as on the details page.
            messages.error(request, f"{stored.key}: {QueueUnavailable.message}")

    def get_deleted_objects(self, objs, request: HttpRequest):  # type: ignore[no-untyped-def]
        # The clauses, references and terms go with their document (and may not be deleted on
        # their own): the document's delete permission is the one asked.
        deleted, counts, _, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_model(self, request: HttpRequest, obj: Document) -> None:
        document_remove(document=obj, user=request.user, via=VIA)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        for doc in queryset:
            document_remove(document=doc, user=request.user, via=VIA)

    @admin.display(description="clause tree")
    def tree(self, obj: Document) -> str:
        if not obj.pk or not obj.node_count:
            return "—"
        url = reverse("admin:documents_node_changelist") + f"?document__id__exact={obj.pk}"
        return format_html('<a href="{}">Browse {} clauses</a>', url, obj.node_count)

    def _retry(self, request: HttpRequest, queryset: QuerySet[Document], force: bool) -> None:
        queued = busy = 0
        for doc in queryset:
            try:
                if document_retry(document=doc, user=request.user, force=force, via=VIA):
                    queued += 1
                else:
                    busy += 1
            except QueueUnavailable:
                messages.error(request, f"{doc.key}: {QueueUnavailable.message}")
        messages.info(
            request,
            f"Queued {queued} document(s)"
            + (f"; {busy} left alone (a worker is indexing them)." if busy else "."),
        )

    @admin.action(description="Re-index (retries failed documents; skips unchanged files)")
    def reindex(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        self._retry(request, queryset, force=False)

    @admin.action(description="Rebuild the index even if unchanged")
    def force_reindex(self, request: HttpRequest, queryset: QuerySet[Document]) -> None:
        self._retry(request, queryset, force=True)


class ChildInline(admin.TabularInline):
    model = Node
    fk_name = "parent"
    fields = ("link", "kind", "heading", "text_length")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False
    ordering = ("order",)

    @admin.display(description="clause")
    def link(self, obj: Node) -> str:
        url = reverse("admin:documents_node_change", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, obj.ref or obj.node_id)

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Node)
class NodeAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("outline", "kind", "node_id", "document", "flags", "text_length")
    list_filter = ("kind", *NODE_FLAG_COLUMNS, ("document", admin.RelatedOnlyFieldListFilter))
    search_fields = ("node_id", "ref", "heading", "text")
    list_select_related = ("document",)
    ordering = ("document_id", "order")
    list_per_page = 200
    inlines = (ChildInline,)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Node]:
        matters = visible_matters(request.user)
        return super().get_queryset(request).filter(document__matter__in=matters)

    readonly_fields = (
        "document",
        "parent_link",
        "breadcrumbs",
        "references",
        "start",
        "end",
        "subtree_end",
    )
    fields = (
        "document",
        "breadcrumbs",
        "parent_link",
        "node_id",
        "kind",
        "ref",
        "label",
        "scope",
        "heading",
        "text",
        "summary",
        "keywords",
        "references",
        "start",
        "end",
        "subtree_end",
        "level",
        "order",
        "is_definition",
        "has_money",
        "has_date",
        "has_percentage",
        "has_liability_limit",
        "has_condition",
        "has_party",
        "is_toc_entry",
        "text_length",
    )

    @admin.display(description="clause", ordering="order")
    def outline(self, obj: Node) -> str:
        label = f"{obj.ref} {obj.heading}".strip() or obj.node_id
        return format_html('<span style="padding-left:{}em">{}</span>', obj.level * 1.5, label[:90])

    @admin.display(description="flags")
    def flags(self, obj: Node) -> str:
        names = [
            ("def", obj.is_definition),
            ("$", obj.has_money),
            ("date", obj.has_date),
            ("%", obj.has_percentage),
            ("cap", obj.has_liability_limit),
            ("cond", obj.has_condition),
            ("party", obj.has_party),
            ("toc", obj.is_toc_entry),
        ]
        return " ".join(n for n, on in names if on)

    @admin.display(description="parent")
    def parent_link(self, obj: Node) -> str:
        if not obj.parent_id:
            return "—"
        url = reverse("admin:documents_node_change", args=[obj.parent_id])
        return format_html('<a href="{}">{}</a>', url, obj.parent)

    @admin.display(description="path")
    def breadcrumbs(self, obj: Node) -> str:
        chain = []
        node = obj.parent
        while node is not None:
            chain.append(node)
            node = node.parent
        chain.reverse()
        return (
            format_html_join(
                " › ",
                '<a href="{}">{}</a>',
                (
                    (reverse("admin:documents_node_change", args=[n.pk]), n.ref or n.node_id)
                    for n in chain
                ),
            )
            or "—"
        )

    @admin.display(description="cross-references")
    def references(self, obj: Node) -> str:
        rows = obj.outgoing_refs.select_related("target", "target__document")
        return (
            format_html_join(
                "<br>",
                "{} → {}",
                (
                    (
                        r.text,
                        r.target.node_id if r.target else f"unresolved ({r.unresolved_reason})",
                    )
                    for r in rows
                ),
            )
            or "—"
        )


@admin.register(CrossReference)
class CrossReferenceAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("text", "kind", "source", "target", "qualifier", "unresolved_reason")
    list_filter = ("kind", "unresolved_reason")
    search_fields = ("text", "target_ref", "qualifier")
    raw_id_fields = ("source", "target")
    list_select_related = ("source", "target")

    def get_queryset(self, request: HttpRequest) -> QuerySet[CrossReference]:
        matters = visible_matters(request.user)
        return super().get_queryset(request).filter(source__document__matter__in=matters)


@admin.register(DefinedTerm)
class DefinedTermAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("term", "document", "defining_node", "use_count")
    search_fields = ("term",)
    list_filter = (("document", admin.RelatedOnlyFieldListFilter),)
    raw_id_fields = ("defining_node", "used_in")
    list_select_related = ("document", "defining_node")

    def get_queryset(self, request: HttpRequest) -> QuerySet[DefinedTerm]:
        matters = visible_matters(request.user)
        queryset = super().get_queryset(request).filter(document__matter__in=matters)
        return queryset.annotate(_uses=Count("used_in"))

    @admin.display(description="uses", ordering="_uses")
    def use_count(self, obj: DefinedTerm) -> int:
        return obj._uses  # type: ignore[attr-defined]
