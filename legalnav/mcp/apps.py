from __future__ import annotations

from django.apps import AppConfig


class McpConfig(AppConfig):
    """The MCP server: no models, only the ``mcp`` management command and the HTTP mount."""

    name = "legalnav.mcp"
    label = "legalnav_mcp"  # not "mcp": the SDK's package has that name
    verbose_name = "MCP server"
