"""The JSON API under /api/: the operations of ``views.api`` at /api/v1/..., the OpenAPI
document at /api/openapi.json, and a JSON 404 for anything else under /api/."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.urls import path, re_path
from django.views.decorators.csrf import csrf_exempt

from legalnav.api.errors import error_response
from legalnav.api.openapi import openapi_document
from legalnav.api.views import api

app_name = "api"


def openapi_json(request: HttpRequest) -> JsonResponse:
    if request.method not in ("GET", "HEAD"):
        return error_response(405, "method_not_allowed", "Use GET.", headers={"Allow": "GET, HEAD"})
    return JsonResponse(openapi_document())


@csrf_exempt
def unknown(request: HttpRequest, rest: str = "") -> JsonResponse:
    return error_response(404, "not_found", "No such API endpoint; see /api/openapi.json.")


urlpatterns = [
    path("openapi.json", csrf_exempt(openapi_json), name="openapi"),
    *api.urlpatterns(mounted_at="/api/"),
    # [\s\S], not ".": a path with an encoded newline must get the API's JSON 404 too.
    re_path(r"^(?P<rest>[\s\S]*)$", unknown, name="unknown"),
]
