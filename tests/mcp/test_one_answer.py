"""One answer, four doors: ``manage.py ask --json``, the JSON API, MCP's get_answer and the answer
page all render the same answer report, compared here field by field; the page's HTML shows what
the report says."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

from django.core.management import call_command
from django.template.defaultfilters import floatformat
from django.test import Client
from mcp import Client as McpClient

from legalnav.answers.selectors import VERDICT_LABELS
from legalnav.mcp.server import build_server
from tests.mcp.conftest import World, run

QUESTION = "Which state's law governs the Development Agreement?"


def flat(value: Any, path: str = "") -> dict[str, Any]:  # noqa: ANN401
    """Every leaf of a JSON value by its path ("answer.citations[0].verdict")."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out |= flat(item, f"{path}.{key}" if path else key)
        return out or {path: {}}
    if isinstance(value, list):
        out = {}
        for i, item in enumerate(value):
            out |= flat(item, f"{path}[{i}]")
        return out or {path: []}
    return {path: value}


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    fa, fb = flat(a), flat(b)
    return [
        f"{key}: {fa.get(key, '<missing>')!r} != {fb.get(key, '<missing>')!r}"
        for key in sorted(set(fa) | set(fb))
        if fa.get(key, "<missing>") != fb.get(key, "<missing>")
    ]


def mcp_get_answer(token: str, matter_id: int, query_id: int) -> dict[str, Any]:
    async def go():  # noqa: ANN202
        async with McpClient(build_server(token=token)) as client:
            return await client.call_tool(
                "get_answer", {"matter_id": matter_id, "query_id": query_id}
            )

    return run(go).structured_content


def test_page_api_mcp_and_ask_json_give_the_same_answer_field_by_field(world: World, settings):
    settings.LEGALNAV_EVIDENCE_CUTOFF = 0.0  # ten evidence rows, so that every bucket fills
    out = StringIO()
    call_command(
        "ask",
        QUESTION,
        "--matter",
        str(world.matter.pk),
        "--mode",
        "navembed",
        "--json",
        stdout=out,
    )
    from_ask = json.loads(out.getvalue())
    assert from_ask["status"] == "answered", from_ask["error"]
    answer = from_ask["answer"]
    # Something worth comparing: checked citations, evidence in buckets, a cost with a ledger.
    assert answer["citations"] and answer["cost"]["ledger"]
    evidence = answer["evidence"]
    assert evidence["sorted_by"] == "rules"
    assert sum(len(evidence[b]) for b in ("supporting", "adverse", "neutral")) >= 5
    qid = from_ask["id"]

    api = Client(HTTP_AUTHORIZATION=f"Bearer {world.alice_token}")
    response = api.get(f"/api/v1/matters/{world.matter.pk}/queries/{qid}")
    assert response.status_code == 200, response.content
    from_api = response.json()

    from_mcp = mcp_get_answer(world.alice_token, world.matter.pk, qid)

    browser = Client()
    browser.force_login(world.alice)
    page = browser.get(f"/matters/{world.matter.pk}/questions/{qid}/")
    assert page.status_code == 200
    from_page = page.context["page"].report.model_dump(mode="json")

    for name, other in (("API", from_api), ("MCP", from_mcp), ("page", from_page)):
        diff = differences(from_ask, other)
        assert not diff, f"ask --json and the {name} disagree:\n" + "\n".join(diff)

    # And the page shows what the report says.
    html = page.content.decode()
    assert answer["answerer"] == "offline" and "Offline extractive answerer" in html
    for c in answer["citations"]:
        assert f"{c['doc_key']}:{c['node_ref']}</a>" in html
        assert VERDICT_LABELS[c["verdict"]] in html
    for bucket in ("supporting", "adverse", "neutral"):
        count = len(evidence[bucket])
        assert f'{bucket.capitalize()} <span class="count">{count}</span>' in html
        for row in evidence[bucket]:
            assert f"#{row['rank'] + 1} · score {floatformat(row['score'], 3)}" in html
    cost = answer["cost"]
    assert f"<dd>${floatformat(cost['dollars'], '4g')}</dd>" in html
    assert f"<dd>{floatformat(cost['token_footprint'], '0g')}</dd>" in html
    assert f"<dd>{floatformat(cost['inject_tokens'], '0g')} tokens</dd>" in html
    assert f"Ledger rows ({cost['calls']})" in html
    assert cost["verdict"] in html.replace("&#x27;", "'")


def mcp_ask(token: str, matter_id: int, question: str) -> dict[str, Any]:
    async def go():  # noqa: ANN202
        async with McpClient(build_server(token=token)) as client:
            return await client.call_tool(
                "ask", {"matter_id": matter_id, "question": question, "wait_seconds": 60}
            )

    return run(go).structured_content


def test_a_research_brief_is_the_same_through_every_door_and_bob_sees_none(world: World):
    """A brief in a research matter, asked through MCP: the same report (route, side,
    proposition, stance buckets with reasons, cost) from MCP, the API, ``research --json`` and
    the page; a side asked back through MCP too; another matter's member gets nothing."""
    from legalnav.matters.models import Matter, Membership
    from tests.conftest import MatterFactory, MembershipFactory
    from tests.research.conftest import add_judgments

    research = MatterFactory(name="Dying declarations", kind=Matter.Kind.RESEARCH)
    MembershipFactory(matter=research, user=world.alice, role=Membership.Role.OWNER)
    add_judgments(research, ["C1252", "C1193", "C1932", "C1010", "C51"])

    asked = mcp_ask(
        world.alice_token,
        research.pk,
        "The accused was convicted of murder on a dying declaration recorded by a magistrate "
        "without corroboration. Can the conviction stand?",
    )
    assert asked["status"] == "answered", asked["error"]
    clarify = asked["answer"]["research"]
    assert clarify["route"] == "clarify" and clarify["asks_side"]
    choice = next(o for o in clarify["options"] if o.startswith("I act for the accused."))

    from_mcp = mcp_ask(world.alice_token, research.pk, choice)
    assert from_mcp["status"] == "answered", from_mcp["error"]
    answer = from_mcp["answer"]
    r = answer["research"]
    assert r["route"] == "deep" and r["side"] == "the accused" and not r["asks_side"]
    assert r["proposition"] == "the conviction cannot stand"
    ev = answer["evidence"]
    assert ev["supporting"] and ev["adverse"], json.dumps(
        {b: [x["reason"] for x in ev[b]] for b in ("supporting", "adverse", "neutral")}, indent=1
    )
    assert all("supports the accused" in row["reason"] for row in ev["supporting"])
    assert all("adverse to the accused" in row["reason"] for row in ev["adverse"])
    qid = from_mcp["id"]

    api = Client(HTTP_AUTHORIZATION=f"Bearer {world.alice_token}")
    from_api = api.get(f"/api/v1/matters/{research.pk}/queries/{qid}").json()
    out = StringIO()
    call_command("research", choice, "--matter", str(research.pk), "--json", stdout=out)
    # The command asks again: a new question, answered the same way (ids and times differ).
    from_command = json.loads(out.getvalue())
    browser = Client()
    browser.force_login(world.alice)
    page = browser.get(f"/matters/{research.pk}/questions/{qid}/")
    from_page = page.context["page"].report.model_dump(mode="json")
    for name, other in (("API", from_api), ("page", from_page)):
        diff = differences(from_mcp, other)
        assert not diff, f"MCP and the {name} disagree:\n" + "\n".join(diff)
    for key in ("text", "evidence", "validation"):
        assert from_command["answer"][key] == answer[key], key

    def cited(report: dict[str, Any]) -> list[dict[str, Any]]:  # less each row's own id
        return [{k: v for k, v in c.items() if k != "id"} for c in report["answer"]["citations"]]

    assert cited(from_command) == cited(from_mcp)
    assert from_command["answer"]["research"]["side"] == r["side"]

    bob = Client(HTTP_AUTHORIZATION=f"Bearer {world.bob_token}")
    assert bob.get(f"/api/v1/matters/{research.pk}/queries/{qid}").status_code == 404
