from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from legalnav.api.errors import error_body


@csrf_exempt
def mcp_needs_asgi(request: HttpRequest) -> JsonResponse:
    """/mcp under the WSGI server: the streamable HTTP transport needs the ASGI entry point
    (which routes /mcp before Django sees it); say how to reach it instead of a bare 404."""
    return JsonResponse(
        error_body(
            "mcp_needs_asgi",
            "MCP over HTTP is served by the ASGI entry point: run 'uvicorn "
            "legalnav.asgi:application' (or use 'python manage.py mcp' over stdio).",
        ),
        status=501,
    )
