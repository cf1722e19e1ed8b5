"""The MCP server over its real transports, each in its own process against this test's database:
stdio (``manage.py mcp``, as Claude Desktop starts it) and streamable HTTP (the ASGI app under
uvicorn, /mcp beside Django)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from contextlib import contextmanager

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from legalnav.documents.models import Node
from tests.conftest import REPO
from tests.mcp.conftest import World, run, server_env

# --- stdio ------------------------------------------------------------------------------------


def stdio(token: str | None, *args: str) -> StdioServerParameters:
    env = server_env(**({"LEGALNAV_API_TOKEN": token} if token else {}))
    return StdioServerParameters(
        command=sys.executable, args=["manage.py", "mcp", *args], env=env, cwd=str(REPO)
    )


def test_stdio_server_acts_for_the_tokens_user_only(world: World):
    async def go():
        async with Client(stdio(world.alice_token), read_timeout_seconds=120) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            matters = await client.call_tool("list_matters", {})
            provisions = await client.call_tool(
                "get_provisions", {"document_id": world.base.pk, "node_ids": ["s13.2"]}
            )
            denied = await client.call_tool("list_documents", {"matter_id": world.other_matter.pk})
            node = await client.read_resource(f"legalnav://documents/{world.base.pk}/nodes/s13.2")
            return tools, matters, provisions, denied, node

    tools, matters, provisions, denied, node = run(go)
    assert {"list_matters", "get_provisions", "search", "ask"} <= tools
    assert [m["id"] for m in matters.structured_content["items"]] == [world.matter.pk]
    text = Node.objects.get(document=world.base, node_id="s13.2").text
    assert provisions.structured_content["provisions"][0]["text"] == text
    assert denied.is_error and "No such matter" in denied.content[0].text
    assert node.contents[0].text == text


def test_stdio_server_takes_the_token_as_an_option_too(world: World):
    async def go():
        async with Client(stdio(None, "--token", world.bob_token), read_timeout_seconds=120) as c:
            return await c.call_tool("list_matters", {})

    matters = run(go).structured_content
    assert [m["id"] for m in matters["items"]] == [world.other_matter.pk]


@pytest.mark.parametrize("token", [None, "lnav_" + "z" * 43])
def test_stdio_server_refuses_to_start_without_a_valid_token(world: World, token):
    args = [sys.executable, "manage.py", "mcp"]
    env = server_env(**({"LEGALNAV_API_TOKEN": token} if token else {}))
    done = subprocess.run(
        args, cwd=REPO, env=env, input="", capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0 and done.stdout == ""
    assert ("revoked" if token else "--token") in done.stderr


# --- streamable HTTP --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def asgi_server():
    """The ASGI application (Django with /mcp) under uvicorn, on a free local port."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "legalnav.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--lifespan",
            "on",
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=server_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"uvicorn did not start:\n{proc.stdout.read()[-3000:]}")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def http_client(base: str, token: str) -> Client:
    transport = streamable_http_client(
        f"{base}/mcp",
        http_client=httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=120)
        ),
    )
    return Client(transport, read_timeout_seconds=120)


def test_http_transport_is_scoped_to_each_requests_token(world: World):
    with asgi_server() as base:
        # Without a token, or with a wrong one, the MCP endpoint refuses before any session.
        init = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"Accept": "application/json, text/event-stream"}
        assert httpx.post(f"{base}/mcp", json=init, headers=headers).status_code == 401
        wrong = {**headers, "Authorization": "Bearer lnav_" + "w" * 43}
        assert httpx.post(f"{base}/mcp", json=init, headers=wrong).status_code == 401

        async def session(token: str):
            async with http_client(base, token) as client:
                matters = await client.call_tool("list_matters", {})
                theirs = await client.call_tool(
                    "list_documents", {"matter_id": world.other_matter.pk}
                )
                mine = await client.call_tool(
                    "search",
                    {"matter_id": world.matter.pk, "query": "governing law", "mode": "bm25"},
                )
                return matters, theirs, mine

        matters, theirs, mine = run(lambda: session(world.alice_token))
        assert [m["id"] for m in matters.structured_content["items"]] == [world.matter.pk]
        assert theirs.is_error and "No such matter" in theirs.content[0].text
        assert mine.structured_content["hits"][0]["node_id"] == "s13.2"

        bob_matters, _, bob_search = run(lambda: session(world.bob_token))
        assert [m["id"] for m in bob_matters.structured_content["items"]] == [world.other_matter.pk]
        assert bob_search.is_error and "No such matter" in bob_search.content[0].text

        # Django is still served beside /mcp by the same ASGI application.
        api = httpx.get(
            f"{base}/api/v1/matters", headers={"Authorization": f"Bearer {world.bob_token}"}
        )
        assert api.status_code == 200 and api.json()["items"][0]["id"] == world.other_matter.pk
