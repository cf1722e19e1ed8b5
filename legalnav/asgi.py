"""ASGI entry point: Django, with the MCP server's streamable HTTP transport mounted at /mcp.

Serve it with an ASGI server that runs lifespan events (they start the MCP session manager):
``uvicorn legalnav.asgi:application``. ``manage.py runserver`` (WSGI) keeps serving everything
else; there /mcp answers with a pointer to this entry point.
"""

from __future__ import annotations

import os
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
django.setup(set_prefix=False)  # what get_asgi_application() does, with our handler below

# Django's handler, reading no more than LEGALNAV_MAX_REQUEST_BYTES of a body (it would spool a
# chunked upload of any size to disk before a view could refuse it).
from legalnav.core.uploads import BoundedASGIHandler  # noqa: E402 - after Django is set up

django_application = BoundedASGIHandler()

from legalnav.mcp.http import MOUNT_PATH, mcp_http_app  # noqa: E402 - after Django is set up

mcp_application = mcp_http_app()


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    path = scope.get("path", "")
    if scope["type"] == "lifespan" or path == MOUNT_PATH or path.startswith(MOUNT_PATH + "/"):
        await mcp_application(scope, receive, send)
    else:
        await django_application(scope, receive, send)
