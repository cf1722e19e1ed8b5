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
