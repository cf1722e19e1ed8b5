"""``manage.py mcp``: the MCP server over stdio, acting for one API token's user.

For Claude Desktop and other local MCP clients, which start this command and talk JSON-RPC over
its stdin and stdout (so nothing else may be printed on stdout; logs go to stderr).
"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import close_old_connections

from legalnav.api.tokens import api_token_user

TOKEN_ENV = "LEGALNAV_API_TOKEN"


class Command(BaseCommand):
    help = (
        "Run the MCP server over stdio for one user's API token (from --token or the "
        f"{TOKEN_ENV} environment variable; create tokens at /settings/api-tokens/)."
    )
    requires_system_checks: list[str] = []  # stdout belongs to the protocol

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--token", default=None, help=f"API token (default: ${TOKEN_ENV})")

    def handle(self, *args: Any, **options: Any) -> None:
        raw = options["token"] or os.environ.get(TOKEN_ENV, "")
        if not raw:
            raise CommandError(
                f"Give an API token with --token or {TOKEN_ENV} (create one at "
                "/settings/api-tokens/)."
            )
        found = api_token_user(raw=raw)
        close_old_connections()
        if found is None:
            raise CommandError("The API token is unknown or has been revoked.")
        from legalnav.mcp.server import build_server

        build_server(token=raw).run("stdio")
