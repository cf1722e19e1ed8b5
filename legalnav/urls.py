from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from legalnav.core.views import SignInView, healthz
from legalnav.documents import views as documents
from legalnav.matters import views as matters
from legalnav.mcp.views import mcp_needs_asgi

admin.site.site_header = "legalnav administration"
admin.site.site_title = "legalnav"

urlpatterns = [
    # Matters: the list, a new one, members and the audit trail.
    path("", documents.matter_list, name="matter-list"),
    path("matters/new/", matters.matter_create, name="matter-create"),
    path("matters/<int:matter_id>/members/", matters.matter_members, name="matter-members"),
    path(
        "matters/<int:matter_id>/members/<int:membership_id>/",
        matters.member_update,
        name="member-update",
    ),
    path(
        "matters/<int:matter_id>/members/<int:membership_id>/remove/",
        matters.member_remove,
        name="member-remove",
    ),
    path("matters/<int:matter_id>/audit/", matters.matter_audit, name="matter-audit"),
    path("matters/<int:matter_id>/life/", matters.matter_life, name="matter-life"),
    path("matters/<int:matter_id>/close/", matters.matter_close, name="matter-close"),
    path("matters/<int:matter_id>/reopen/", matters.matter_reopen, name="matter-reopen"),
    path(
        "matters/<int:matter_id>/retention/", matters.matter_retention, name="matter-retention-set"
    ),
    path(
        "matters/<int:matter_id>/purge-request/",
        matters.matter_purge_request,
        name="matter-purge-request",
    ),
    path(
        "matters/<int:matter_id>/purge-withdraw/",
        matters.matter_purge_withdraw,
        name="matter-purge-withdraw",
    ),
    path("matters/<int:matter_id>/purge/", matters.matter_purge, name="matter-purge"),
    path("matters/<int:matter_id>/handover/", matters.matter_handover, name="matter-handover"),
    path("matters/retention/", matters.retention_list, name="matter-retention"),
    # A matter's documents, upload, and the reader.
    path("matters/<int:matter_id>/", documents.matter_detail, name="matter-detail"),
    path("matters/<int:matter_id>/upload/", documents.matter_upload, name="matter-upload"),
    path("documents/<int:document_id>/", documents.document_detail, name="document-detail"),
    path("documents/<int:document_id>/edit/", documents.document_edit, name="document-edit"),
    path(
        "documents/<int:document_id>/reindex/", documents.document_reindex, name="document-reindex"
    ),
    path("documents/<int:document_id>/cancel/", documents.document_cancel, name="document-cancel"),
    path("documents/<int:document_id>/link/", documents.document_link, name="document-link"),
    path("documents/<int:document_id>/delete/", documents.document_delete, name="document-delete"),
    path(
        "documents/<int:document_id>/nodes/<str:node_id>/",
        documents.node_fragment,
        name="node-fragment",
    ),
    # Ask, answers, history, compare, memos (legalnav/answers/urls.py).
    path("", include("legalnav.answers.urls")),
    # Review grids: documents x questions, one quoted cell each (legalnav/review/urls.py).
    path("", include("legalnav.review.urls")),
    path("", include("legalnav.evaluation.urls")),
    path("api/", include("legalnav.api.urls")),
    path("settings/api-tokens/", include("legalnav.api.page_urls")),
    path("mcp", mcp_needs_asgi, name="mcp"),
    # Sign-in, limited per username and address (before Django's own, which it replaces).
    path("accounts/login/", SignInView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    # allauth after Django's own: single sign-on (/accounts/oidc/...), second factors
    # (/accounts/2fa/...), sessions (/accounts/sessions/). Its login and logout are shadowed by
    # the two above.
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]
