"""The MCP search tool goes through the API's search, and so through its limit."""

from __future__ import annotations

from tests.mcp.conftest import World
from tests.mcp.test_inprocess import call, refused


def test_search_tool_is_limited(world: World, settings):
    settings.LEGALNAV_SEARCH_RATE_PER_MINUTE = 1
    args = {"matter_id": world.matter.pk, "query": "termination", "mode": "bm25"}
    first = call(world.alice_token, "search", args)
    assert not first.is_error, first.content
    assert "searches in the last minute" in refused(call(world.alice_token, "search", args))
