"""Playbooks through the JSON API and the MCP tools: staff write them (403 for others, 422 for a
rule that does not fit its column), members apply them and read the deviations, with the same
verdicts as the page, the same boundary (404 for a non-member, 403 for a read-only token) and the
same audit rows naming the door."""

from __future__ import annotations

import pytest
from django.test import Client
from mcp import Client as McpClient

from legalnav.api.tokens import api_token_create
from legalnav.matters.models import AuditEvent
from legalnav.mcp.server import build_server
from legalnav.review import playbooks
from legalnav.review.models import Playbook, PlaybookRun
from tests.conftest import MatterFactory, MembershipFactory, UserFactory, index_bioamber_pair
from tests.mcp.conftest import World, run, world  # noqa: F401 - the MCP tests' world fixture

POSITIONS = [
    {"key": "Governing Law", "rule": {"allowed": ["New York", "Delaware"]}, "severity": "high"},
    {"key": "Anti-Assignment", "rule": {"required": True}},
    {"key": "Notice Period To Terminate Renewal", "rule": {"min": "60 days"}, "severity": "low"},
]


def bearer(user, **kw) -> Client:
    _, raw = api_token_create(user=user, name="tests", **kw)
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")


def post(api: Client, url: str, body: dict, method: str = "post"):
    return getattr(api, method)(url, body, content_type="application/json")


@pytest.mark.django_db
def test_api_staff_write_members_apply_and_read_the_deviations(
    matter, owner, django_capture_on_commit_callbacks
):
    base, _ = index_bioamber_pair(matter)
    staff = bearer(UserFactory(username="partner", is_staff=True))
    refused = post(bearer(owner), "/api/v1/playbooks", {"name": "X", "positions": POSITIONS})
    assert refused.status_code == 403
    bad = post(
        staff, "/api/v1/playbooks",
        {"name": "X", "positions": [{"key": "Expiration Date", "rule": {"min": "1 year"}}]},
    )  # fmt: skip
    assert bad.status_code == 422 and "does not fit a date column" in bad.json()["error"]["message"]
    made = post(staff, "/api/v1/playbooks", {"name": "US commercial", "positions": POSITIONS})
    assert made.status_code == 201, made.content
    playbook = made.json()
    assert playbook["version"] == 1 and playbook["positions"][0]["rule_text"].startswith(
        "must be one of New York"
    )
    changed = post(
        staff, f"/api/v1/playbooks/{playbook['id']}",
        {"name": "US commercial", "positions": POSITIONS[:2]}, method="put",
    )  # fmt: skip
    assert changed.status_code == 200 and changed.json()["version"] == 2
    api = bearer(owner)
    assert api.get("/api/v1/playbooks").json()["count"] == 1

    url = f"/api/v1/matters/{matter.pk}/playbook-runs"
    with django_capture_on_commit_callbacks(execute=True):
        applied = post(api, url, {"playbook_id": playbook["id"]})
    assert applied.status_code == 202, applied.content
    body = applied.json()
    assert applied["Location"].endswith(f"/playbook-runs/{body['id']}")
    assert body["version"] == 2
    polled = api.get(f"{url}/{body['id']}").json()
    assert polled["grid_status"] == "done" and polled["documents"] == 1  # the amendment is read
    law = next(s for s in polled["summary"] if s["position"]["key"] == "Governing Law")
    assert (law["deviates"], law["headline"]) == (1, "1 of 1 deviate on Governing Law")
    page = api.get(f"{url}/{body['id']}/deviations", {"verdict": "deviates"}).json()
    assert page["count"] == 1
    item = page["items"][0]
    assert (item["document"]["id"], item["key"], item["value"]) == (
        base.pk,
        "Governing Law",
        "Minnesota",
    )
    assert "Minnesota" in item["quotation"] and item["citation"].startswith(f"[{base.key}:")
    # The page's verdicts are the API's.
    run_row = PlaybookRun.objects.get(pk=body["id"])
    assert [v.verdict for v in playbooks.verdicts_filtered(run=run_row, verdict="")] == [
        i["verdict"] for i in api.get(f"{url}/{body['id']}/deviations").json()["items"]
    ]
    event = AuditEvent.objects.get(action="playbook_applied")
    assert event.detail["via"] == "api" and event.detail["version"] == 2
    assert AuditEvent.objects.filter(action="playbook_saved", matter=None).count() == 2


@pytest.mark.django_db
def test_api_refuses_non_members_and_read_only_tokens(matter, owner):
    index_bioamber_pair(matter)
    staff = UserFactory(username="partner", is_staff=True)
    playbook = Playbook.objects.create(name="P", positions=POSITIONS, created_by=staff)
    from legalnav.review.models import PlaybookVersion

    PlaybookVersion.objects.create(playbook=playbook, number=1, name="P", positions=POSITIONS)
    stranger = bearer(MembershipFactory(matter=MatterFactory()).user)
    url = f"/api/v1/matters/{matter.pk}/playbook-runs"
    assert post(stranger, url, {"playbook_id": playbook.pk}).status_code == 404
    read_only = bearer(owner, scope="read")
    refused = post(read_only, url, {"playbook_id": playbook.pk})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "read_only_token"
    assert post(bearer(owner), url, {"playbook_id": playbook.pk + 99}).status_code == 404
    assert bearer(owner).get(f"{url}/12345/deviations").status_code == 404
    assert not PlaybookRun.objects.exists()


def _tool(token: str, name: str, args: dict):
    async def go():
        async with McpClient(build_server(token=token)) as client:
            return await client.call_tool(name, args)

    return run(go)


@pytest.mark.django_db(transaction=True)
def test_mcp_apply_playbook_and_get_deviations_inside_the_boundary(world: World):  # noqa: F811
    staff = UserFactory(username="partner", is_staff=True)
    from legalnav.review import actions

    playbook = actions.playbook_save(
        user=staff, playbook=None, name="US", description="", positions=POSITIONS, via="page"
    )
    listed = _tool(world.alice_token, "list_playbooks", {}).structured_content
    assert [p["name"] for p in listed["items"]] == ["US"]
    applied = _tool(
        world.alice_token,
        "apply_playbook",
        {"matter_id": world.matter.pk, "playbook_id": playbook.pk, "document_ids": [world.base.pk]},
    )
    assert not applied.is_error, applied.content
    run_id = applied.structured_content["id"]
    got = _tool(
        world.alice_token,
        "get_deviations",
        {"matter_id": world.matter.pk, "run_id": run_id, "verdict": ""},
    ).structured_content
    assert got["run"]["grid_status"] == "done"
    by_key = {v["key"]: v["verdict"] for v in got["verdicts"]["items"]}
    assert by_key["Governing Law"] == "deviates" and by_key["Anti-Assignment"] == "meets"
    event = AuditEvent.objects.get(action="playbook_applied")
    assert event.detail["via"] == "mcp" and event.user == world.alice
    for name, args in [
        ("get_deviations", {"matter_id": world.matter.pk, "run_id": run_id}),
        ("get_deviations", {"matter_id": world.other_matter.pk, "run_id": run_id}),
        ("apply_playbook", {"matter_id": world.matter.pk, "playbook_id": playbook.pk}),
    ]:
        assert _tool(world.bob_token, name, args).is_error, name
    assert PlaybookRun.objects.count() == 1
