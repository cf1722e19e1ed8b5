"""Review grids through the JSON API and the MCP tools: create, poll, read cells, resume and
cancel, with the same permissions (404 for a non-member, 403 for a read-only token) and the
same audit rows (the door named)."""

from __future__ import annotations

import pytest
from django.test import Client
from mcp import Client as McpClient

from legalnav.api.tokens import api_token_create
from legalnav.matters.models import AuditEvent
from legalnav.mcp.server import build_server
from legalnav.review.models import Cell, Grid
from tests.conftest import MatterFactory, MembershipFactory, index_bioamber_pair
from tests.mcp.conftest import World, run, world  # noqa: F401 - the MCP tests' world fixture

COLUMNS = [
    {"key": "Governing Law", "question": "Which law governs this agreement?", "type": "text"},
    {"key": "Parties", "type": "party"},
]


def bearer(user, **kw) -> Client:
    _, raw = api_token_create(user=user, name="tests", **kw)
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")


@pytest.mark.django_db
def test_api_create_poll_and_read_cells(matter, owner, django_capture_on_commit_callbacks):
    base, amendment = index_bioamber_pair(matter)
    api = bearer(owner)
    url = f"/api/v1/matters/{matter.pk}/grids"
    with django_capture_on_commit_callbacks(execute=True):
        made = api.post(
            url,
            {"title": "API grid", "columns": COLUMNS, "document_ids": [base.pk]},
            content_type="application/json",
        )
    assert made.status_code == 202, made.content
    body = made.json()
    assert made["Location"].endswith(f"/grids/{body['id']}")
    assert body["cells_total"] == 2 and body["estimate"]["offline"]["dollars"] == "0"
    assert [c["key"] for c in body["columns"]] == ["Governing Law", "Parties"]
    assert body["columns"][1]["question"] == "Parties"  # a bare key is its own question
    polled = api.get(f"{url}/{body['id']}").json()
    assert polled["status"] == "done" and polled["cells_done"] == 2 and polled["progress"] == 1
    cells = api.get(f"{url}/{body['id']}/cells").json()
    assert cells["count"] == 2
    by_column = {c["column"]: c for c in cells["items"]}
    law = Cell.objects.get(grid_id=body["id"], column__key="Governing Law")
    assert by_column["Governing Law"]["value"] == law.shown_value
    assert by_column["Governing Law"]["citation"] == law.citation
    for c in cells["items"]:
        if c["found"]:
            assert c["quotes"] and all(q["verdict"] == "verified" for q in c["quotes"])
            assert c["quotes"][0]["citation"] == f"[{base.key}:{c['quotes'][0]['node_id']}]"
        else:
            assert c["searched"]
    assert api.get(f"{url}/{body['id']}/cells?show=reviewed").json()["count"] == 0
    listed = api.get(url).json()
    assert listed["count"] == 1 and listed["items"][0]["id"] == body["id"]
    event = AuditEvent.objects.get(action="grid_created")
    assert event.detail["via"] == "api" and event.user == owner
    # Nothing to resume or cancel in a finished grid.
    assert api.post(f"{url}/{body['id']}/retry").status_code == 409
    assert api.post(f"{url}/{body['id']}/cancel").status_code == 409
    # The preset brings CUAD's 41 columns; bad input is a 422 naming the problem.
    bad = api.post(url, {"columns": []}, content_type="application/json")
    assert bad.status_code == 422
    dup = api.post(url, {"columns": [COLUMNS[0], COLUMNS[0]]}, content_type="application/json")
    assert dup.status_code == 422 and "twice" in dup.json()["error"]["message"]
    other_doc = api.post(
        url, {"columns": COLUMNS, "document_ids": [amendment.pk + 99]},
        content_type="application/json",
    )  # fmt: skip
    assert other_doc.status_code == 422 and other_doc.json()["error"]["field"] == "documents"
    assert Grid.objects.count() == 1


@pytest.mark.django_db
def test_api_refuses_non_members_and_read_only_tokens(matter, owner):
    base, _ = index_bioamber_pair(matter)
    grid = Grid.objects.create(matter=matter, title="g", created_by=owner)
    stranger = MembershipFactory(matter=MatterFactory()).user
    outsider = bearer(stranger)
    base_url = f"/api/v1/matters/{matter.pk}/grids"
    for method, url in [
        ("post", base_url),
        ("get", base_url),
        ("get", f"{base_url}/{grid.pk}"),
        ("get", f"{base_url}/{grid.pk}/cells"),
        ("post", f"{base_url}/{grid.pk}/retry"),
        ("post", f"{base_url}/{grid.pk}/cancel"),
    ]:
        kw = {"content_type": "application/json"} if method == "post" else {}
        data = {"columns": COLUMNS} if url == base_url and method == "post" else None
        response = (
            getattr(outsider, method)(url, data, **kw)
            if data
            else getattr(outsider, method)(url, **kw)
        )
        assert response.status_code == 404, (method, url)
    # A grid is not found under another matter, even by its own member.
    other = MembershipFactory(user=owner).matter
    api = bearer(owner)
    assert api.get(f"/api/v1/matters/{other.pk}/grids/{grid.pk}").status_code == 404
    read_only = bearer(owner, scope="read")
    refused = read_only.post(base_url, {"columns": COLUMNS}, content_type="application/json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "read_only_token"
    assert read_only.get(f"{base_url}/{grid.pk}").status_code == 200
    assert Grid.objects.count() == 1 and not AuditEvent.objects.filter(action="grid_created")


def _tool(token: str, name: str, args: dict):
    async def go():
        async with McpClient(build_server(token=token)) as client:
            return await client.call_tool(name, args)

    return run(go)


@pytest.mark.django_db(transaction=True)
def test_mcp_create_poll_cells_and_the_boundary(world: World):  # noqa: F811
    made = _tool(
        world.alice_token,
        "create_grid",
        {
            "matter_id": world.matter.pk,
            "columns": COLUMNS,
            "document_ids": [world.base.pk],
            "title": "From MCP",
        },
    )
    assert not made.is_error, made.content
    grid = made.structured_content
    polled = _tool(
        world.alice_token,
        "get_grid",
        {"matter_id": world.matter.pk, "grid_id": grid["id"], "wait_seconds": 60},
    ).structured_content
    assert polled["status"] == "done" and polled["cells_done"] == 2
    cells = _tool(
        world.alice_token, "get_grid_cells", {"matter_id": world.matter.pk, "grid_id": grid["id"]}
    ).structured_content
    assert cells["count"] == 2 and {c["column"] for c in cells["items"]} == {
        "Governing Law",
        "Parties",
    }
    event = AuditEvent.objects.get(action="grid_created")
    assert event.detail["via"] == "mcp" and event.user == world.alice
    # Bob sees nothing of Alice's grid, by either matter, and cannot make one in her matter.
    for name, args in [
        ("get_grid", {"matter_id": world.matter.pk, "grid_id": grid["id"]}),
        ("get_grid_cells", {"matter_id": world.matter.pk, "grid_id": grid["id"]}),
        ("get_grid", {"matter_id": world.other_matter.pk, "grid_id": grid["id"]}),
        ("create_grid", {"matter_id": world.matter.pk, "columns": COLUMNS}),
        ("cancel_job", {"kind": "grid", "job_id": grid["id"], "matter_id": world.matter.pk}),
    ]:
        result = _tool(world.bob_token, name, args)
        assert result.is_error, name
    # Retry through the job tool: a done grid has nothing missing.
    again = _tool(
        world.alice_token,
        "retry_job",
        {"kind": "grid", "job_id": grid["id"], "matter_id": world.matter.pk},
    )
    assert again.is_error and "nothing to resume" in again.content[0].text
    assert Grid.objects.count() == 1
