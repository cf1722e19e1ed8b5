"""The JSON API under /api/: the operations of ``views`` at /api/v1/..., the OpenAPI document at
/api/openapi.json (both served by Ninja), and a JSON 404 for anything else under /api/."""

from __future__ import annotations

from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.urls import URLPattern, re_path
from django.views.decorators.csrf import csrf_exempt

from legalnav.api.errors import error_response
from legalnav.api.views import api

app_name = "api"  # the same namespace as api.urls_namespace, which Ninja reverses its root in


def with_head_and_json_405(pattern: URLPattern) -> URLPattern:
    """Ninja's view for one path, answering HEAD like GET without the body, and a method the path
    has no operation for with a 405 in the API's error format (Ninja knows nothing of HEAD, and
    answers a wrong method in plain text)."""
    view = pattern.callback

    @csrf_exempt
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        head = request.method == "HEAD"
        if head:
            request.method = "GET"
        try:
            response = view(request, *args, **kwargs)
        finally:
            if head:
                request.method = "HEAD"
        if isinstance(response, HttpResponseNotAllowed):
            methods = {m.strip() for m in response["Allow"].split(",")}
            allowed = sorted(methods | ({"HEAD"} if "GET" in methods else set()))
            return error_response(
                405,
                "method_not_allowed",
                f"{request.method} is not allowed here; use {', '.join(allowed)}.",
                headers={"Allow": ", ".join(allowed)},
            )
        if head:
            response.content = b""
        return response

    return URLPattern(pattern.pattern, wrapper, pattern.default_args, pattern.name)


@csrf_exempt
def unknown(request: HttpRequest, rest: str = "") -> JsonResponse:
    return error_response(404, "not_found", "No such API endpoint; see /api/openapi.json.")


NOT_OPERATIONS = {"openapi-json", "api-root"}

ninja_patterns = [p for p in api.urls[0] if isinstance(p, URLPattern)]  # no includes in there
urlpatterns = [
    # The document's own view takes GET and HEAD only (http.get_or_head).
    *(p for p in ninja_patterns if p.name == "openapi-json"),
    *(with_head_and_json_405(p) for p in ninja_patterns if p.name not in NOT_OPERATIONS),
    # [\s\S], not ".": a path with an encoded newline must get the API's JSON 404 too.
    re_path(r"^(?P<rest>[\s\S]*)$", unknown, name="unknown"),
    # Never reached (the catch-all answers /api/ itself); Ninja reverses it to find its prefix.
    *(p for p in ninja_patterns if p.name == "api-root"),
]
