"""The JSON API, endpoint by endpoint, through Django's test client with real API tokens: what
each returns, and each refusal (no token, revoked token, wrong matter, weak role, malformed body,
unknown id, oversized upload) in the one error format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from legalnav.answers.models import Question
from legalnav.answers.verbs import Verb as AnswerVerb
from legalnav.api.models import ApiToken
from legalnav.api.tokens import api_token_revoke
from legalnav.documents.models import Document, Node
from legalnav.documents.services import document_add, document_index
from legalnav.documents.verbs import Verb as DocumentVerb
from legalnav.llm.models import LLMCall
from legalnav.matters.models import AuditEvent, Membership
from tests.api.conftest import actor_for
from tests.conftest import MatterFactory, MembershipFactory, UserFactory, demo_bytes

pytestmark = pytest.mark.django_db

V1 = "/api/v1"


def error_of(response, status: int) -> dict:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "field"}
    assert body["error"]["message"]
    return body["error"]


# --- authentication ---------------------------------------------------------------------------


def test_no_token_malformed_header_unknown_and_revoked_tokens_are_401(owner_actor, matter):
    url = f"{V1}/matters"
    err = error_of(Client().get(url), 401)
    assert err["code"] == "unauthenticated" and "Bearer" in err["message"]
    assert Client().get(url)["WWW-Authenticate"].startswith("Bearer")
    assert error_of(Client(HTTP_AUTHORIZATION="Basic abc").get(url), 401)["code"] == (
        "unauthenticated"
    )
    bogus = Client(HTTP_AUTHORIZATION="Bearer lnav_" + "x" * 43)
    assert error_of(bogus.get(url), 401)["code"] == "invalid_token"

    assert owner_actor.get(url).status_code == 200
    token = ApiToken.objects.get(user=owner_actor.user)
    assert api_token_revoke(user=owner_actor.user, token_id=token.pk) is not None
    assert error_of(owner_actor.get(url), 401)["code"] == "invalid_token"


def test_a_deactivated_users_token_stops_working(owner_actor):
    owner_actor.user.is_active = False
    owner_actor.user.save(update_fields=["is_active"])
    assert error_of(owner_actor.get(f"{V1}/matters"), 401)["code"] == "invalid_token"


def test_a_signed_in_browser_session_is_not_an_api_credential(matter, owner_actor):
    browser = Client()
    browser.force_login(owner_actor.user)
    assert error_of(browser.get(f"{V1}/matters"), 401)["code"] == "unauthenticated"


def test_token_auth_needs_no_csrf_token(matter, owner_actor):
    strict = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Bearer {owner_actor.token}")
    response = strict.post(
        f"{V1}/matters/{matter.pk}/queries",
        data=json.dumps({"question": ""}),
        content_type="application/json",
    )
    # Refused for the empty question (422), not by CSRF (403).
    assert error_of(response, 422)["field"] == "question"


def test_tokens_are_stored_hashed_and_touched_on_use(owner_actor):
    row = ApiToken.objects.get(user=owner_actor.user)
    assert owner_actor.token not in (row.digest, row.prefix) and len(row.digest) == 64
    assert owner_actor.token.startswith(row.prefix) and row.last_used_at is None
    owner_actor.get(f"{V1}/matters")
    row.refresh_from_db()
    assert row.last_used_at is not None


# --- matters ----------------------------------------------------------------------------------


def test_matters_list_shows_only_the_users_matters_paginated(matter, owner_actor, indexed):
    others = [MatterFactory(name=f"Z other {i}") for i in range(3)]
    for m in others[:2]:
        MembershipFactory(matter=m, user=owner_actor.user, role=Membership.Role.VIEWER)
    body = owner_actor.get(f"{V1}/matters").json()
    assert body["count"] == 3 and body["next"] is None and body["next_offset"] is None
    assert {m["id"] for m in body["items"]} == {matter.pk, others[0].pk, others[1].pk}
    first = next(m for m in body["items"] if m["id"] == matter.pk)
    assert first["role"] == "owner" and first["document_count"] == first["indexed_count"] == 2

    page = owner_actor.get(f"{V1}/matters?limit=2").json()
    assert len(page["items"]) == 2 and page["next_offset"] == 2
    assert page["next"].startswith("http://testserver/api/v1/matters?")
    rest = owner_actor.get(page["next"]).json()
    assert len(rest["items"]) == 1 and rest["next"] is None
    assert {m["id"] for m in page["items"] + rest["items"]} == {m["id"] for m in body["items"]}


@pytest.mark.parametrize(
    ("query", "field"), [("limit=0", "limit"), ("limit=abc", "limit"), ("offset=-1", "offset")]
)
def test_bad_pagination_is_422_naming_the_field(owner_actor, query, field):
    err = error_of(owner_actor.get(f"{V1}/matters?{query}"), 422)
    assert err["code"] == "invalid" and err["field"] == field


def test_matter_detail_for_a_member_and_404_for_everyone_else(matter, owner_actor, outsider_actor):
    body = owner_actor.get(f"{V1}/matters/{matter.pk}").json()
    assert body["id"] == matter.pk and body["name"] == matter.name and body["role"] == "owner"
    assert error_of(outsider_actor.get(f"{V1}/matters/{matter.pk}"), 404)["code"] == "not_found"
    for bad in ("999999", "99999999999999999999999", "abc", "0"):
        assert error_of(owner_actor.get(f"{V1}/matters/{bad}"), 404)["code"] == "not_found"


# --- documents --------------------------------------------------------------------------------


def test_documents_list_with_status_filter_and_refusals(
    matter, owner_actor, outsider_actor, indexed
):
    queued, _ = document_add(matter=matter, filename="note.txt", data=b"1. Hello.", enqueue=False)
    body = owner_actor.get(f"{V1}/matters/{matter.pk}/documents").json()
    assert body["count"] == 3
    keys = {d["key"] for d in body["items"]}
    assert keys == {indexed[0].key, indexed[1].key, queued.key}
    only = owner_actor.get(f"{V1}/matters/{matter.pk}/documents?status=queued").json()
    assert [d["id"] for d in only["items"]] == [queued.pk]
    amendment = next(d for d in body["items"] if d["id"] == indexed[1].pk)
    assert amendment["amends_id"] == indexed[0].pk and amendment["status"] == "indexed"
    assert amendment["node_count"] > 0 and amendment["error"] is None
    assert error_of(owner_actor.get(f"{V1}/matters/{matter.pk}/documents?status=x"), 422)[
        "field"
    ] == ("status")
    assert error_of(outsider_actor.get(f"{V1}/matters/{matter.pk}/documents"), 404)


def upload(actor, matter_id, name="side-letter.txt", data=None, **fields):
    data = data if data is not None else b"1. Payment.\nThe Buyer shall pay $100 on 1 May 2024.\n"
    from django.core.files.uploadedfile import SimpleUploadedFile

    return actor.client.post(
        f"{V1}/matters/{matter_id}/documents",
        data={"file": SimpleUploadedFile(name, data), **fields},
    )


def test_upload_indexes_and_audits_and_a_duplicate_changes_nothing(
    matter, owner_actor, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as queued:
        response = upload(owner_actor, matter.pk, title="Side letter", kind="side_letter")
    assert response.status_code == 201, response.content
    assert len(queued) == 1  # the indexing task, queued once the upload committed
    body = response.json()
    doc = body["document"]
    assert (
        body["created"] is True and doc["title"] == "Side letter" and doc["kind"] == "side_letter"
    )
    assert doc["status"] == "queued"
    polled = owner_actor.get(f"{V1}/documents/{doc['id']}").json()
    assert polled["status"] == "indexed" and polled["node_count"] >= 1
    assert response["Location"] == f"{V1}/documents/{doc['id']}"
    event = AuditEvent.objects.get(matter=matter, action=DocumentVerb.UPLOADED)
    assert event.user == owner_actor.user and event.detail["via"] == "api"
    assert event.detail["document_id"] == doc["id"]

    again = upload(owner_actor, matter.pk)
    assert again.status_code == 200 and again.json()["created"] is False
    assert again.json()["document"]["id"] == doc["id"]
    assert Document.objects.filter(matter=matter).count() == 1
    assert AuditEvent.objects.filter(action=DocumentVerb.UPLOADED).count() == 1


def test_upload_refusals(matter, owner_actor, viewer_actor, outsider_actor, settings):
    assert error_of(upload(viewer_actor, matter.pk), 403)["code"] == "forbidden"
    assert error_of(upload(outsider_actor, matter.pk), 404)["code"] == "not_found"

    settings.LEGALNAV_MAX_UPLOAD_BYTES = 1000
    err = error_of(upload(owner_actor, matter.pk, data=b"x" * 5000), 413)
    assert err["code"] == "too_large" and err["field"] == "file"

    err = error_of(upload(owner_actor, matter.pk, name="evil.exe", data=b"MZ..."), 415)
    assert err["code"] == "unknown_type"
    assert error_of(upload(owner_actor, matter.pk, data=b"  \n "), 422)["code"] == "empty"

    not_multipart = owner_actor.client.post(
        f"{V1}/matters/{matter.pk}/documents", data="{}", content_type="application/json"
    )
    assert error_of(not_multipart, 415)["code"] == "unsupported_media_type"
    no_file = owner_actor.client.post(f"{V1}/matters/{matter.pk}/documents", data={"title": "x"})
    assert error_of(no_file, 422)["field"] == "file"
    assert error_of(upload(owner_actor, matter.pk, kind="novel"), 422)["field"] == "kind"
    assert error_of(upload(owner_actor, matter.pk, effective_date="yesterday"), 422)["field"] == (
        "effective_date"
    )
    foreign, _ = document_add(
        matter=MatterFactory(), filename="f.txt", data=b"1. Other.", enqueue=False
    )
    err = error_of(upload(owner_actor, matter.pk, amends=str(foreign.pk)), 422)
    assert err["field"] == "amends"
    assert not Document.objects.filter(matter=matter).exists()  # nothing was half-added
    assert not AuditEvent.objects.filter(action=DocumentVerb.UPLOADED).exists()


def test_upload_refuses_a_body_past_the_limit_before_reading_it(matter, owner_actor, settings):
    settings.LEGALNAV_MAX_UPLOAD_BYTES = 10
    big = b"y" * (2 * 1024 * 1024)
    err = error_of(upload(owner_actor, matter.pk, data=big), 413)
    assert err["code"] == "too_large"


def test_document_detail_and_status(matter, owner_actor, outsider_actor):
    doc, _ = document_add(
        matter=matter, filename="scan.pdf", data=b"%PDF-1.4 broken", enqueue=False
    )
    assert owner_actor.get(f"{V1}/documents/{doc.pk}").json()["status"] == "queued"
    document_index(document_id=doc.pk)
    body = owner_actor.get(f"{V1}/documents/{doc.pk}").json()
    assert body["status"] == "failed" and body["error"]["code"] == "corrupt"
    assert body["key"] == doc.key and body["matter_id"] == matter.pk
    assert error_of(outsider_actor.get(f"{V1}/documents/{doc.pk}"), 404)["code"] == "not_found"
    assert error_of(owner_actor.get(f"{V1}/documents/424242"), 404)


def test_reindex_queues_again_and_audits(
    matter, owner_actor, viewer_actor, indexed, django_capture_on_commit_callbacks
):
    base = indexed[0]
    url = f"{V1}/documents/{base.pk}/reindex"
    refused = viewer_actor.client.post(url, data="", content_type="application/json")
    assert error_of(refused, 403)["code"] == "forbidden"

    before = Node.objects.filter(document=base).values_list("pk", flat=True).first()
    with django_capture_on_commit_callbacks(execute=True) as queued:
        response = owner_actor.client.post(
            url, data=json.dumps({"force": True}), content_type="application/json"
        )
    assert response.status_code == 202, response.content
    assert len(queued) == 1 and response.json()["queued"] is True
    assert response.json()["document"]["status"] == "queued"
    assert owner_actor.get(f"{V1}/documents/{base.pk}").json()["status"] == "indexed"
    # Forced: the nodes were rebuilt (new rows).
    assert Node.objects.filter(document=base).values_list("pk", flat=True).first() != before
    event = AuditEvent.objects.get(action=DocumentVerb.REINDEXED)
    assert event.detail == {
        "document_id": base.pk,
        "force": True,
        "retry": False,
        "status_before": "indexed",
        "via": "api",
    }
    # No body at all is fine: the body is optional.
    assert owner_actor.client.generic("POST", url).status_code == 202


def test_reindex_body_refusals(owner_actor, indexed):
    url = f"{V1}/documents/{indexed[0].pk}/reindex"
    post = owner_actor.client.post
    err = error_of(post(url, data="{not json", content_type="application/json"), 400)
    assert err["code"] == "malformed_json"
    assert error_of(post(url, data="[1]", content_type="application/json"), 400)
    err = error_of(post(url, data='{"forse": true}', content_type="application/json"), 422)
    assert err["field"] == "forse"
    err = error_of(post(url, data='{"force": "maybe"}', content_type="application/json"), 422)
    assert err["field"] == "force"
    assert error_of(post(url, data="force=1", content_type="text/plain"), 415)
    assert not AuditEvent.objects.filter(action=DocumentVerb.REINDEXED).exists()


def test_delete_removes_the_document_and_its_files_and_audits(
    matter, owner_actor, viewer_actor, outsider_actor, indexed
):
    amendment = indexed[1]
    url = f"{V1}/documents/{amendment.pk}"
    folder = Path(settings.NAVINDEX_DIR) / f"matter-{matter.pk}"
    assert (folder / f"{amendment.key}.index.json").exists()
    assert error_of(viewer_actor.client.delete(url), 403)["code"] == "forbidden"
    assert error_of(outsider_actor.client.delete(url), 404)["code"] == "not_found"

    response = owner_actor.client.delete(url)
    assert response.status_code == 204 and response.content == b""
    assert not Document.objects.filter(pk=amendment.pk).exists()
    assert not (folder / f"{amendment.key}.index.json").exists()
    event = AuditEvent.objects.get(action=DocumentVerb.DELETED)
    assert event.detail["document_id"] == amendment.pk and event.user == owner_actor.user
    assert error_of(owner_actor.get(url), 404)
    assert error_of(owner_actor.client.delete(url), 404)


# --- nodes and navindex -----------------------------------------------------------------------


def test_node_tree_is_nested_and_has_no_text(owner_actor, outsider_actor, indexed):
    base = indexed[0]
    body = owner_actor.get(f"{V1}/documents/{base.pk}/nodes").json()
    assert body["document"]["key"] == base.key
    assert body["node_count"] == Node.objects.filter(document=base).count()

    def walk(nodes):
        for n in nodes:
            yield n
            yield from walk(n["children"])

    flat = list(walk(body["nodes"]))
    assert len(flat) == body["node_count"]
    assert all("text" not in n for n in flat)
    assert any(n["children"] for n in body["nodes"])
    s132 = next(n for n in flat if n["node_id"] == "s13.2")
    assert s132["text_length"] == len(Node.objects.get(document=base, node_id="s13.2").text)
    assert error_of(outsider_actor.get(f"{V1}/documents/{base.pk}/nodes"), 404)


def test_single_node_is_verbatim_with_cross_references_and_definitions(owner_actor, indexed):
    base = indexed[0]
    node = Node.objects.get(document=base, node_id="s13.2")
    body = owner_actor.get(f"{V1}/documents/{base.pk}/nodes/s13.2").json()
    (provision,) = body["provisions"]
    assert provision["text"] == node.text and "Minnesota" in provision["text"]
    assert provision["node_id"] == "s13.2" and provision["document"]["id"] == base.pk
    assert body["cross_referenced"] == [] and body["definitions"] == []

    # A provision that refers to others and uses defined terms.
    source = (
        Node.objects.filter(
            document=base, outgoing_refs__target__isnull=False, terms_used__isnull=False
        )
        .distinct()
        .order_by("order")
        .first()
    )
    assert source is not None
    url = f"{V1}/documents/{base.pk}/nodes/{source.node_id}?cross_references=true&definitions=1"
    rich = owner_actor.get(url).json()
    targets = set(
        Node.objects.filter(incoming_refs__source=source).values_list("node_id", flat=True)
    ) - {source.node_id}
    assert {p["node_id"] for p in rich["cross_referenced"]} == targets
    assert set(rich["provisions"][0]["cross_referenced_ids"]) >= targets
    defining = (
        set(Node.objects.filter(terms_defined__used_in=source).values_list("node_id", flat=True))
        - {source.node_id}
        - targets
    )
    assert defining and defining <= {p["node_id"] for p in rich["definitions"]}
    assert all(p["text"] for p in rich["cross_referenced"] + rich["definitions"])


def test_unknown_node_is_404(owner_actor, indexed):
    assert error_of(owner_actor.get(f"{V1}/documents/{indexed[0].pk}/nodes/s999.9"), 404)
    assert error_of(owner_actor.get(f"{V1}/documents/{indexed[0].pk}/nodes/a/b/../c"), 404)


def test_navindex_files_readable_and_min(matter, owner_actor, indexed):
    base = indexed[0]
    folder = Path(settings.NAVINDEX_DIR) / f"matter-{matter.pk}"
    url = f"{V1}/documents/{base.pk}/navindex"
    readable = owner_actor.get(url)
    assert readable.status_code == 200 and readable["Content-Type"] == "application/json"
    assert readable.content == (folder / f"{base.key}.index.json").read_bytes()
    assert readable.json()["documentId"] == base.key

    small = owner_actor.get(f"{url}?form=min")
    assert small.content == (folder / f"{base.key}.index.min.json").read_bytes()
    assert small.json()["di"] == base.key and len(small.content) < len(readable.content)

    full = owner_actor.get(f"{url}?part=full").json()
    assert full["provisions"]["s13.2"] == Node.objects.get(document=base, node_id="s13.2").text

    # A cleared navindex folder is rebuilt on request.
    (folder / f"{base.key}.full.min.json").unlink()
    assert owner_actor.get(f"{url}?part=full&form=min").json()["pv"]["s13.2"]
    assert error_of(owner_actor.get(f"{url}?part=everything"), 422)["field"] == "part"


def test_navindex_of_a_document_not_yet_indexed_is_409(matter, owner_actor):
    doc, _ = document_add(matter=matter, filename="later.txt", data=b"1. Later.", enqueue=False)
    err = error_of(owner_actor.get(f"{V1}/documents/{doc.pk}/navindex"), 409)
    assert err["code"] == "not_indexed"


# --- search -----------------------------------------------------------------------------------


def test_search_returns_provisions_with_snippets_and_scores(matter, owner_actor, indexed):
    url = f"{V1}/matters/{matter.pk}/search?q=governing+law+Minnesota&mode=bm25&k=5"
    body = owner_actor.get(url).json()
    assert body["mode"] == "bm25" and 1 <= len(body["hits"]) <= 5
    top = body["hits"][0]
    assert top["node_id"] == "s13.2" and top["document"]["key"] == indexed[0].key
    assert "Minnesota" in top["snippet"] and top["score"] > 0 and top["rank"] == 1
    assert [h["rank"] for h in body["hits"]] == list(range(1, len(body["hits"]) + 1))
    pairs = [(h["document"]["id"], h["node_id"]) for h in body["hits"]]
    assert len(pairs) == len(set(pairs))  # one hit per provision


def test_search_flags_are_filters(matter, owner_actor, indexed):
    url = f"{V1}/matters/{matter.pk}/search?q=payment+fees&mode=bm25&k=20"
    plain = owner_actor.get(url).json()["hits"]
    filtered = owner_actor.get(f"{url}&flags=hasMoney,hasDate").json()
    assert filtered["flags"] == ["hasMoney", "hasDate"] and filtered["hits"]
    for hit in filtered["hits"]:
        assert {"hasMoney", "hasDate"} <= set(hit["flags"])
        node = Node.objects.get(document_id=hit["document"]["id"], node_id=hit["node_id"])
        assert node.has_money and node.has_date
    assert any("hasMoney" not in h["flags"] for h in plain)  # the filter removed something


def test_search_hybrid_and_one_document(matter, owner_actor, indexed):
    amendment = indexed[1]
    url = f"{V1}/matters/{matter.pk}/search?q=amendment+to+the+agreement&document_id={amendment.pk}"
    body = owner_actor.get(url).json()
    assert body["mode"] == "hybrid" and body["hits"]
    assert {h["document"]["id"] for h in body["hits"]} == {amendment.pk}


def test_search_refusals(matter, owner_actor, outsider_actor, indexed):
    base = f"{V1}/matters/{matter.pk}/search"
    assert error_of(owner_actor.get(base), 422)["field"] == "q"
    assert error_of(owner_actor.get(f"{base}?q=x&flags=hasUnicorns"), 422)["field"] == "flags"
    assert error_of(owner_actor.get(f"{base}?q=x&k=500"), 422)["field"] == "k"
    assert error_of(owner_actor.get(f"{base}?q=x%00y"), 422)["field"] == "q"
    assert (
        error_of(owner_actor.get(f"{base}?q=x&document_id=424242&mode=bm25"), 422)["field"]
        == "document_id"
    )
    assert error_of(outsider_actor.get(f"{base}?q=law"), 404)


# --- questions --------------------------------------------------------------------------------


def test_ask_returns_an_id_to_poll_and_the_answer_with_everything(
    matter, owner_actor, indexed, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_actor.client.post(
            f"{V1}/matters/{matter.pk}/queries",
            data=json.dumps(
                {
                    "question": "Which state's law governs the Development Agreement?",
                    "mode": "navindex",
                }
            ),
            content_type="application/json",
        )
    assert response.status_code == 202, response.content
    started = response.json()
    assert started["id"] and started["mode"] == "navindex" and started["status"] == "queued"
    assert started["answer"] is None
    assert response["Location"] == f"{V1}/matters/{matter.pk}/queries/{started['id']}"

    body = owner_actor.get(response["Location"]).json()
    assert body["status"] == "answered", body["error"]
    answer = body["answer"]
    assert answer["answerer"] == "offline" and "Minnesota" in answer["text"]
    assert answer["validation"]["ok"] is True
    assert answer["citations"] and all(c["valid"] for c in answer["citations"])
    assert any(c["node_id"] == "s13.2" for c in answer["citations"])
    evidence = answer["evidence"]
    assert set(evidence) == {"sorted_by", "supporting", "adverse", "neutral"}
    assert evidence["supporting"] and evidence["supporting"][0]["document"]["key"]
    cost = answer["cost"]
    assert cost["calls"] == 1 and cost["dollars"] == "0.00000000" and cost["estimated"]
    assert cost["token_footprint"] > 0 and cost["inject_tokens"] > cost["context_tokens"]

    event = AuditEvent.objects.get(action=AnswerVerb.ASKED)
    assert event.detail["query_id"] == started["id"] and event.detail["via"] == "api"

    listed = owner_actor.get(f"{V1}/matters/{matter.pk}/queries").json()
    assert [q["id"] for q in listed["items"]] == [started["id"]]
    assert listed["items"][0]["answer"] is None  # lists leave answers out


def test_ask_refusals(matter, owner_actor, outsider_actor, indexed):
    url = f"{V1}/matters/{matter.pk}/queries"
    post = owner_actor.client.post
    assert error_of(post(url, data="", content_type="application/json"), 400)
    assert error_of(post(url, data="{", content_type="application/json"), 400)["code"] == (
        "malformed_json"
    )
    assert error_of(post(url, data="{}", content_type="application/json"), 422)["field"] == (
        "question"
    )
    for body, field in (
        ({"question": "   "}, "question"),
        ({"question": "q", "mode": "telepathy"}, "mode"),
        ({"question": "q" * 20_001}, "question"),
        ({"question": 7}, "question"),
        ({"question": "q", "extra": 1}, "extra"),
    ):
        response = post(url, data=json.dumps(body), content_type="application/json")
        assert error_of(response, 422)["field"] == field, body
    other = outsider_actor.client.post(
        url, data=json.dumps({"question": "law?"}), content_type="application/json"
    )
    assert error_of(other, 404)
    assert not Question.objects.exists()
    assert not AuditEvent.objects.filter(action=AnswerVerb.ASKED).exists()
    assert error_of(owner_actor.get(f"{url}/424242"), 404)
    assert error_of(outsider_actor.get(f"{url}/1"), 404)


def test_a_question_of_another_matter_is_not_found(matter, owner_actor, indexed):
    other = MatterFactory()
    MembershipFactory(matter=other, user=owner_actor.user)
    query = Question.objects.create(matter=other, question="q")
    assert error_of(owner_actor.get(f"{V1}/matters/{matter.pk}/queries/{query.pk}"), 404)
    assert owner_actor.get(f"{V1}/matters/{other.pk}/queries/{query.pk}").status_code == 200


def test_ask_is_rate_limited_with_retry_after(matter, owner_actor, settings):
    settings.LEGALNAV_ASK_RATE_PER_MINUTE = 1
    url = f"{V1}/matters/{matter.pk}/queries"
    body = json.dumps({"question": "Who are the parties?"})
    first = owner_actor.client.post(url, data=body, content_type="application/json")
    assert first.status_code == 202
    second = owner_actor.client.post(url, data=body, content_type="application/json")
    assert error_of(second, 429)["code"] == "rate_limited"
    assert int(second["Retry-After"]) >= 1
    assert Question.objects.count() == 1


# --- cost ledger ------------------------------------------------------------------------------


def test_cost_ledger_lists_the_matters_calls_with_totals(matter, owner_actor, outsider_actor):
    for i in range(3):
        LLMCall.objects.create(
            provider="claude",
            model="claude-sonnet-4-6",
            purpose="answer",
            input_tokens=1000 * (i + 1),
            output_tokens=10,
            dollars="0.00315000",
            matter_id=matter.pk,
            query_id=7 if i else None,
        )
    LLMCall.objects.create(provider="claude", model="m", purpose="answer", matter_id=matter.pk + 1)
    body = owner_actor.get(f"{V1}/matters/{matter.pk}/costs?limit=2").json()
    assert body["count"] == 3 and len(body["items"]) == 2 and body["next_offset"] == 2
    assert body["totals"]["calls"] == 3 and body["totals"]["input_tokens"] == 6000
    assert body["totals"]["dollars"] == "0.00945000"
    assert body["items"][0]["dollars"] == "0.00315000"
    one = owner_actor.get(f"{V1}/matters/{matter.pk}/costs?query_id=7").json()
    assert one["count"] == 2 and {r["query_id"] for r in one["items"]} == {7}
    assert error_of(outsider_actor.get(f"{V1}/matters/{matter.pk}/costs"), 404)


# --- the rest of the surface ------------------------------------------------------------------


def test_wrong_method_is_405_with_allow_and_unknown_paths_are_json_404(matter, owner_actor):
    response = owner_actor.client.put(f"{V1}/matters/{matter.pk}")
    err = error_of(response, 405)
    assert err["code"] == "method_not_allowed" and "GET" in response["Allow"]
    assert owner_actor.client.head(f"{V1}/matters").status_code == 200
    assert error_of(owner_actor.get("/api/v2/anything"), 404)["code"] == "not_found"
    # Paths no route matches, such as a negative id or an encoded newline (found by schemathesis),
    # still get the JSON error, not the HTML page.
    assert (
        error_of(owner_actor.get(f"{V1}/documents/-416/nodes/%F2%0A%194"), 404)["code"]
        == "not_found"
    )


def test_methods_and_bodies_at_the_edges_keep_the_api_format(matter, owner_actor, indexed):
    c = owner_actor.client
    head = c.head(f"{V1}/matters")
    assert head.status_code == 200 and head.content == b""
    reindex = f"{V1}/documents/{indexed[0].pk}/reindex"
    response = c.get(reindex)
    assert error_of(response, 405)["message"] == "GET is not allowed here; use POST."
    assert response["Allow"] == "POST"
    response = c.patch(f"{V1}/matters/{matter.pk}/documents")
    assert error_of(response, 405) and response["Allow"] == "GET, HEAD, POST"
    response = c.post("/api/openapi.json")
    assert error_of(response, 405)["code"] == "method_not_allowed"
    assert c.head("/api/openapi.json").status_code == 200
    assert error_of(c.get("/api/"), 404)["code"] == "not_found"
    # A blank body is no body: fine where the body is optional, refused where it is required.
    blank = c.post(reindex, data="  \n", content_type="text/plain")
    assert blank.status_code == 202, blank.content
    ask = c.post(f"{V1}/matters/{matter.pk}/queries", data=" ", content_type="application/json")
    assert error_of(ask, 400) == {
        "code": "invalid_request",
        "message": "Send a JSON body.",
        "field": None,
    }
    err = error_of(c.post(reindex, data="null", content_type="application/json"), 400)
    assert err["code"] == "malformed_json"
    # Messages name the field the way they always have, nested list items included.
    err = error_of(owner_actor.get(f"{V1}/matters/{matter.pk}/search?q=x&flags=hasUnicorns"), 422)
    assert err["message"].startswith("'flags' input should be 'isDefinition'")
    err = error_of(owner_actor.get(f"{V1}/matters?limit=abc"), 422)
    assert (
        err["message"]
        == "'limit' input should be a valid integer, unable to parse string as an integer"
    )


def test_upload_form_fields_left_empty_are_not_given(matter, owner_actor):
    response = upload(owner_actor, matter.pk, title="", kind="", amends="", effective_date="")
    assert response.status_code == 201, response.content
    doc = response.json()["document"]
    assert doc["effective_date"] is None and doc["amends_id"] is None and doc["kind"]


def test_json_as_pydantic_writes_it(matter, owner_actor):
    response = owner_actor.get(f"{V1}/matters/{matter.pk}")
    assert response["Content-Type"] == "application/json"
    created = response.json()["created_at"]
    assert created == matter.created_at.isoformat().replace("+00:00", "Z")  # microseconds kept


def test_openapi_document_matches_the_routes(client):
    doc = client.get("/api/openapi.json").json()
    assert doc["openapi"].startswith("3.1") and doc["components"]["securitySchemes"]["bearer"]
    operations = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    assert ("POST", "/api/v1/matters/{matter_id}/documents") in operations
    assert ("POST", "/api/v1/matters/{matter_id}/archives") in operations
    assert ("GET", "/api/v1/matters/{matter_id}/search") in operations
    assert ("POST", "/api/v1/matters/{matter_id}/playbook-runs") in operations
    assert ("PUT", "/api/v1/playbooks/{playbook_id}") in operations
    assert ("POST", "/api/v1/matters/{matter_id}/close") in operations
    assert ("POST", "/api/v1/matters/{matter_id}/purge") in operations
    assert len(operations) == 43
    for path in doc["paths"]:
        concrete = (
            path.replace("{matter_id}", "1")
            .replace("{document_id}", "1")
            .replace("{query_id}", "1")
            .replace("{node_id}", "s1.1")
            .replace("{grid_id}", "1")
            .replace("{playbook_id}", "1")
            .replace("{run_id}", "1")
        )
        # Every documented path is served by the API (401 without a token), none falls through
        # to the JSON 404 for unknown endpoints.
        assert client.get(concrete).status_code in (401, 405), path
    flags = next(
        p
        for p in doc["paths"]["/api/v1/matters/{matter_id}/search"]["get"]["parameters"]
        if p["name"] == "flags"
    )
    assert flags["explode"] is False and "hasMoney" in json.dumps(flags["schema"])
    # One bearer scheme for the whole API; each operation named as its URL and documenting its
    # refusals in the error format.
    assert doc["security"] == [{"bearer": []}]
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    ids = [op["operationId"] for ops in doc["paths"].values() for op in ops.values()]
    assert len(set(ids)) == 43 and "matters_list" in ids
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            assert "security" not in op and op["tags"] and op["summary"], (method, path)
            assert op["responses"]["401"]["content"] == error, (method, path)
    upload = doc["paths"]["/api/v1/matters/{matter_id}/documents"]["post"]
    assert upload["operationId"] == "documents_upload"
    assert set(upload["responses"]) == {
        "200",
        "201",
        "400",
        "401",
        "403",
        "404",
        "409",  # the matter is closed
        "413",
        "415",
        "422",
        "503",
    }
    form = upload["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert form["required"] == ["file"]
    # Each optional field is its type, or "" (what a form sends for a field left empty).
    kind = form["properties"]["kind"]["anyOf"]
    assert {"const": "", "type": "string"} in kind
    assert any("amendment" in branch.get("enum", []) for branch in kind)
    date_field = form["properties"]["effective_date"]["anyOf"]
    assert {"format": "date", "type": "string"} in date_field


def test_mcp_over_wsgi_points_to_the_asgi_entry_point(client):
    response = client.post("/mcp", data="{}", content_type="application/json")
    assert response.status_code == 501 and "uvicorn" in response.json()["error"]["message"]


def test_reverse_names(matter):
    assert reverse("api:openapi-json") == "/api/openapi.json"
    assert reverse("api:matters_detail", args=[matter.pk]) == f"{V1}/matters/{matter.pk}"


def test_staff_see_every_matter_only_when_the_setting_is_on(matter, settings):
    staff = actor_for(UserFactory(is_staff=True))
    assert error_of(staff.get(f"{V1}/matters/{matter.pk}"), 404)["code"] == "not_found"
    assert staff.get(f"{V1}/matters").json()["items"] == []
    settings.LEGALNAV_STAFF_SEE_ALL_MATTERS = True
    body = staff.get(f"{V1}/matters/{matter.pk}").json()
    assert body["role"] == "admin"
    assert [m["id"] for m in staff.get(f"{V1}/matters").json()["items"]] == [matter.pk]
    event = AuditEvent.objects.get(action=AuditEvent.Action.STAFF_ACCESS)
    assert event.user == staff.user and event.matter_id == matter.pk


def test_demo_document_upload_through_the_api_is_indexed(
    matter, owner_actor, django_capture_on_commit_callbacks
):
    data = demo_bytes("bioamber-development-agreement-first-amendment.txt")
    with django_capture_on_commit_callbacks(execute=True):
        body = upload(owner_actor, matter.pk, name="amendment.txt", data=data).json()
    doc = owner_actor.get(f"{V1}/documents/{body['document']['id']}").json()
    assert doc["status"] == "indexed" and doc["node_count"] > 3


def test_text_the_database_cannot_store_is_refused_or_cleaned_not_a_server_error(
    matter, owner_actor, indexed
):
    # NUL is refused by PostgreSQL: an id holding one names nothing, a name is cleaned.
    assert error_of(owner_actor.get(f"{V1}/documents/{indexed[0].pk}/nodes/s13.2%00"), 404)
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = owner_actor.client.post(
        f"{V1}/matters/{matter.pk}/documents",
        data={"file": SimpleUploadedFile("side\x01letter.txt", b"1. Terms.\nPay $5.\n")},
    )
    assert response.status_code == 201, response.content
    assert response.json()["document"]["original_filename"] == "sideletter.txt"
    question = owner_actor.client.post(
        f"{V1}/matters/{matter.pk}/queries",
        data='{"question": "law\\u0000?"}',
        content_type="application/json",
    )
    assert error_of(question, 422)["field"] == "question"
    surrogate = owner_actor.client.post(
        f"{V1}/matters/{matter.pk}/queries",
        data='{"question": "law \\ud800?"}',
        content_type="application/json",
    )
    assert error_of(surrogate, 422)["field"] == "question"
