"""The MCP server through the SDK's client, in process: every tool, the resources, and the
boundary between two users' matters."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from legalnav.answers.models import Question
from legalnav.answers.verbs import Verb as AnswerVerb
from legalnav.api.tokens import api_token_revoke
from legalnav.documents.models import Node
from legalnav.matters.models import AuditEvent
from legalnav.mcp.server import build_server
from tests.mcp.conftest import World, run

TOOLS = {
    "list_matters",
    "list_documents",
    "get_navindex",
    "get_provisions",
    "search",
    "ask",
    "get_answer",
    "retry_job",
    "cancel_job",
    "create_grid",
    "get_grid",
    "get_grid_cells",
    "list_playbooks",
    "apply_playbook",
    "get_deviations",
}


def call(token: str, name: str, args: dict | None = None):
    async def go():
        async with Client(build_server(token=token)) as client:
            return await client.call_tool(name, args or {})

    return run(go)


def refused(result) -> str:
    assert result.is_error, result.structured_content
    return result.content[0].text


def test_tools_are_listed_with_structured_output_schemas(world: World):
    async def go():
        async with Client(build_server(token=world.alice_token)) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in run(go)}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and tool.output_schema, tool.name
        assert tool.input_schema["type"] == "object"
    assert "matter_id" in tools["search"].input_schema["required"]
    assert "hasMoney" in json.dumps(tools["search"].input_schema)


def test_each_user_lists_only_their_own_matters(world: World):
    alice = call(world.alice_token, "list_matters").structured_content
    assert [m["id"] for m in alice["items"]] == [world.matter.pk]
    assert alice["items"][0]["role"] == "owner" and alice["items"][0]["indexed_count"] == 2
    bob = call(world.bob_token, "list_matters").structured_content
    assert [m["id"] for m in bob["items"]] == [world.other_matter.pk]


def test_another_users_matter_and_documents_do_not_exist(world: World):
    token = world.alice_token
    assert "No such matter" in refused(
        call(token, "list_documents", {"matter_id": world.other_matter.pk})
    )
    assert "No such document" in refused(
        call(token, "get_navindex", {"document_id": world.other_document.pk})
    )
    assert "No such document" in refused(
        call(token, "get_provisions", {"document_id": world.other_document.pk, "node_ids": ["s1"]})
    )
    assert "No such matter" in refused(
        call(token, "search", {"matter_id": world.other_matter.pk, "query": "price"})
    )
    assert "No such matter" in refused(
        call(token, "ask", {"matter_id": world.other_matter.pk, "question": "What is the price?"})
    )
    # Named as a cross-document id from one of her own documents: still not found.
    result = call(
        token,
        "get_provisions",
        {"document_id": world.base.pk, "node_ids": [f"D{world.other_document.pk}:s1"]},
    ).structured_content
    assert result["provisions"] == [] and result["not_found"] == [f"D{world.other_document.pk}:s1"]
    assert not Question.objects.filter(matter=world.other_matter).exists()


def test_list_documents(world: World):
    page = call(world.alice_token, "list_documents", {"matter_id": world.matter.pk})
    items = page.structured_content["items"]
    assert [d["key"] for d in items] == [world.base.key, world.amendment.key]
    assert all(d["status"] == "indexed" for d in items)
    indexed = call(
        world.alice_token,
        "list_documents",
        {"matter_id": world.matter.pk, "status": "failed"},
    ).structured_content
    assert indexed["count"] == 0


def test_get_navindex_is_the_token_optimised_index(world: World):
    result = call(world.alice_token, "get_navindex", {"document_id": world.base.pk})
    out = result.structured_content
    assert out["form"] == "min" and out["legend"]["xr"] == "crossReferencedIds"
    content = out["content"]
    assert content["di"] == world.base.key and "documentIndex" not in content
    text = json.dumps(content)
    governing = Node.objects.get(document=world.base, node_id="s13.2").text
    assert governing not in text  # the index has no provision text
    full = call(
        world.alice_token, "get_navindex", {"document_id": world.base.pk, "part": "full"}
    ).structured_content
    assert full["content"]["pv"]["s13.2"] == governing


def test_get_provisions_verbatim_with_cross_references_and_definitions(world: World):
    base = world.base
    source = (
        Node.objects.filter(
            document=base, outgoing_refs__target__isnull=False, terms_used__isnull=False
        )
        .distinct()
        .order_by("order")
        .first()
    )
    out = call(
        world.alice_token,
        "get_provisions",
        {
            "document_id": base.pk,
            "node_ids": ["s13.2", source.node_id, "s404"],
            "include_cross_references": True,
            "include_definitions": True,
        },
    ).structured_content
    by_id = {p["node_id"]: p for p in out["provisions"]}
    assert by_id["s13.2"]["text"] == Node.objects.get(document=base, node_id="s13.2").text
    assert by_id[source.node_id]["text"] == source.text
    assert out["not_found"] == ["s404"]
    targets = set(
        Node.objects.filter(incoming_refs__source=source).values_list("node_id", flat=True)
    ) - {"s13.2", source.node_id}
    assert targets <= {p["node_id"] for p in out["cross_referenced"]}
    defining = (
        set(
            Node.objects.filter(
                document=base, terms_defined__used_in__node_id__in=["s13.2", source.node_id]
            ).values_list("node_id", flat=True)
        )
        - {"s13.2", source.node_id}
        - {p["node_id"] for p in out["cross_referenced"]}
    )
    assert defining and {p["node_id"] for p in out["definitions"]} == defining

    # The amendment's references into the base document, by the navindex's qualified ids.
    amendment_refs = [
        i
        for p in call(
            world.alice_token,
            "get_provisions",
            {
                "document_id": world.amendment.pk,
                "node_ids": list(
                    Node.objects.filter(document=world.amendment).values_list("node_id", flat=True)
                ),
            },
        ).structured_content["provisions"]
        for i in p["cross_referenced_ids"]
        if i.startswith(f"{base.key}:")
    ]
    assert amendment_refs
    across = call(
        world.alice_token,
        "get_provisions",
        {"document_id": world.amendment.pk, "node_ids": amendment_refs[:1]},
    ).structured_content
    assert across["provisions"][0]["document"]["id"] == base.pk and not across["not_found"]


def test_get_provisions_refuses_bad_arguments(world: World):
    assert refused(call(world.alice_token, "get_provisions", {"document_id": world.base.pk}))
    assert refused(
        call(
            world.alice_token,
            "get_provisions",
            {"document_id": world.base.pk, "node_ids": [f"s{i}" for i in range(60)]},
        )
    )
    assert refused(call(world.alice_token, "get_provisions", {"document_id": 0, "node_ids": ["a"]}))


def test_search_with_flags(world: World):
    out = call(
        world.alice_token,
        "search",
        {"matter_id": world.matter.pk, "query": "governing law Minnesota", "mode": "bm25"},
    ).structured_content
    assert out["hits"][0]["node_id"] == "s13.2"
    money = call(
        world.alice_token,
        "search",
        {
            "matter_id": world.matter.pk,
            "query": "payment",
            "mode": "bm25",
            "flags": ["hasMoney"],
            "k": 20,
        },
    ).structured_content
    assert money["hits"] and all("hasMoney" in h["flags"] for h in money["hits"])
    assert refused(
        call(
            world.alice_token,
            "search",
            {"matter_id": world.matter.pk, "query": "x", "flags": ["hasUnicorns"]},
        )
    )


def test_ask_waits_for_the_answer_and_get_answer_polls(world: World):
    out = call(
        world.alice_token,
        "ask",
        {
            "matter_id": world.matter.pk,
            "question": "Which state's law governs the Development Agreement?",
            "mode": "navindex",
            "wait_seconds": 120,
        },
    ).structured_content
    assert out["status"] == "answered", out["error"]
    answer = out["answer"]
    assert "Minnesota" in answer["text"] and answer["validation"]["ok"]
    assert any(c["node_id"] == "s13.2" and c["valid"] for c in answer["citations"])
    assert set(answer["evidence"]) == {"sorted_by", "supporting", "adverse", "neutral"}
    assert answer["cost"]["calls"] == 1
    event = AuditEvent.objects.get(matter=world.matter, action=AnswerVerb.ASKED)
    assert event.user == world.alice and event.detail["via"] == "mcp"

    polled = call(
        world.alice_token, "get_answer", {"matter_id": world.matter.pk, "query_id": out["id"]}
    ).structured_content
    assert polled["id"] == out["id"] and polled["answer"]["text"] == answer["text"]
    # Bob cannot read Alice's question, by either matter.
    assert refused(
        call(world.bob_token, "get_answer", {"matter_id": world.matter.pk, "query_id": out["id"]})
    )
    assert refused(
        call(
            world.bob_token,
            "get_answer",
            {"matter_id": world.other_matter.pk, "query_id": out["id"]},
        )
    )


def test_ask_without_waiting_returns_the_id(world: World, settings):
    settings.LEGALNAV_ASK_RATE_PER_MINUTE = 1
    first = call(
        world.alice_token,
        "ask",
        {"matter_id": world.matter.pk, "question": "Who are the parties?", "wait_seconds": 0},
    ).structured_content
    assert first["id"] and first["status"] in ("queued", "running", "answered")
    limited = call(
        world.alice_token,
        "ask",
        {"matter_id": world.matter.pk, "question": "And the term?", "wait_seconds": 0},
    )
    assert "questions in the last minute" in refused(limited)


def test_a_revoked_token_stops_working_mid_session(world: World):
    from legalnav.api.models import ApiToken

    token = ApiToken.objects.get(user=world.alice)

    async def go():
        async with Client(build_server(token=world.alice_token)) as client:
            before = await client.call_tool("list_matters", {})
            from asgiref.sync import sync_to_async

            await sync_to_async(api_token_revoke, thread_sensitive=False)(
                user=world.alice, token_id=token.pk
            )
            after = await client.call_tool("list_matters", {})
            return before, after

    before, after = run(go)
    assert not before.is_error
    assert "revoked" in refused(after)


def test_resources_for_documents_and_nodes(world: World):
    async def go(token):
        async with Client(build_server(token=token)) as client:
            listed = (await client.list_resources()).resources
            templates = (await client.list_resource_templates()).resource_templates
            document = await client.read_resource(f"legalnav://documents/{world.base.pk}")
            node = await client.read_resource(f"legalnav://documents/{world.base.pk}/nodes/s13.2")
            try:
                await client.read_resource(f"legalnav://documents/{world.other_document.pk}")
            except Exception as exc:  # the SDK raises the server's error
                denied = str(exc)
            else:
                denied = ""
            return listed, templates, document, node, denied

    listed, templates, document, node, denied = run(lambda: go(world.alice_token))
    assert {str(r.uri) for r in listed} == {
        f"legalnav://documents/{world.base.pk}",
        f"legalnav://documents/{world.amendment.pk}",
    }
    assert {t.uri_template for t in templates} == {
        "legalnav://documents/{document_id}",
        "legalnav://documents/{document_id}/nodes/{+node_id}",
    }
    body = json.loads(document.contents[0].text)
    assert body["document"]["key"] == world.base.key and body["outline"]
    assert node.contents[0].text == Node.objects.get(document=world.base, node_id="s13.2").text
    assert "No such document" in denied

    async def bob():
        async with Client(build_server(token=world.bob_token)) as client:
            return (await client.list_resources()).resources

    bob_listed = run(bob)
    assert {str(r.uri) for r in bob_listed} == {f"legalnav://documents/{world.other_document.pk}"}


@pytest.mark.django_db(transaction=True)
def test_an_unknown_token_gets_nothing(world: World):
    assert "revoked" in refused(call("lnav_" + "n" * 43, "list_matters"))


def test_retry_and_cancel_jobs(world: World):
    from legalnav.answers.services import query_create
    from legalnav.documents.services import document_add

    q = query_create(
        matter=world.matter, user=None, question="What is the term?", mode="navembed", enqueue=False
    )
    args = {"kind": "question", "job_id": q.pk, "matter_id": world.matter.pk}
    out = call(world.alice_token, "cancel_job", args).structured_content
    assert out["status"] == "cancelled"
    assert "nothing to cancel" in refused(call(world.alice_token, "cancel_job", args))
    out = call(world.alice_token, "retry_job", args).structured_content
    assert out["status"] == "answered"
    assert AuditEvent.objects.filter(action="retried", detail__via="mcp").exists()

    doc, _ = document_add(
        matter=world.matter, filename="d.txt", data=b"1. Term. One year.\n", enqueue=False
    )
    doc_args = {"kind": "document", "job_id": doc.pk}
    out = call(world.alice_token, "cancel_job", doc_args).structured_content
    assert out["status"] == "cancelled"
    out = call(world.alice_token, "retry_job", doc_args).structured_content
    assert out["document"]["status"] == "indexed"
    # Bob is no member of Alice's matter: her jobs do not exist for him.
    assert "no such document" in refused(call(world.bob_token, "cancel_job", doc_args)).lower()
    assert "no such matter" in refused(call(world.bob_token, "retry_job", args)).lower()
    assert "matter_id" in refused(
        call(world.alice_token, "retry_job", {"kind": "question", "job_id": q.pk})
    )
