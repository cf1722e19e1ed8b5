from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from legalnav.core.views import healthz
from legalnav.documents import views
from legalnav.mcp.views import mcp_needs_asgi

admin.site.site_header = "legalnav administration"
admin.site.site_title = "legalnav"

urlpatterns = [
    path("", views.matter_list, name="matter-list"),
    path("matters/<int:matter_id>/", views.matter_detail, name="matter-detail"),
    path("documents/<int:document_id>/", views.document_detail, name="document-detail"),
    path("", include("legalnav.answers.urls")),
    path("api/", include("legalnav.api.urls")),
    path("settings/api-tokens/", include("legalnav.api.page_urls")),
    path("mcp", mcp_needs_asgi, name="mcp"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]
