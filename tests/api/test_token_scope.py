"""API tokens that expire, read-only tokens, and a token page that never puts a secret in the
session: a read-only token reads everything its user may read and writes nothing, through every
write route of the API (listed from the OpenAPI document, so a new one cannot slip past)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from legalnav.answers.models import Question
from legalnav.answers.services import query_create
from legalnav.api import writes
from legalnav.api.models import ApiToken
from legalnav.api.tokens import TokenRefused, api_token_create, api_token_user
from legalnav.documents.models import Document
from legalnav.documents.services import document_add, document_index
from legalnav.evaluation.models import EvaluationRun
from legalnav.matters.models import AuditEvent, Membership
from legalnav.review.models import Grid, Playbook, PlaybookRun
from tests.conftest import MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db
V1 = "/api/v1"
PAGE = "/settings/api-tokens/"


def bearer(raw: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")


def error_of(response, status: int) -> dict:
    assert response.status_code == status, response.content[:500]
    return response.json()["error"]


@pytest.fixture
def owner(matter):
    return MembershipFactory(matter=matter, role=Membership.Role.OWNER).user


@pytest.fixture
def document(matter) -> Document:
    doc, _ = document_add(
        matter=matter,
        filename="terms.txt",
        data=b"1. Payment.\nThe Buyer shall pay $100 on 1 May 2024.\n",
        enqueue=False,
    )
    document_index(document_id=doc.pk)
    doc.refresh_from_db()
    return doc


# --- expiry ----------------------------------------------------------------------------------


def test_an_expired_token_is_refused_with_401_saying_it_expired(owner, matter):
    token, raw = api_token_create(
        user=owner, name="laptop", expires_at=timezone.now() + timedelta(days=1)
    )
    client = bearer(raw)
    assert client.get(f"{V1}/matters/{matter.pk}").status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    response = client.get(f"{V1}/matters/{matter.pk}")
    err = error_of(response, 401)
    assert err["code"] == "invalid_token"
    assert "expired" in err["message"] and "laptop" in err["message"]
    assert raw not in err["message"]
    assert 'error="invalid_token"' in response["WWW-Authenticate"]
    assert api_token_user(raw=raw) is None  # the MCP HTTP door's verifier refuses it too


def test_expiry_must_be_in_the_future():
    user = UserFactory()
    with pytest.raises(TokenRefused):
        api_token_create(user=user, name="x", expires_at=timezone.now() - timedelta(minutes=1))
    assert not ApiToken.objects.exists()


def test_expired_tokens_do_not_count_against_the_limit_of_active_ones():
    from legalnav.api.tokens import MAX_ACTIVE_TOKENS

    user = UserFactory()
    for i in range(MAX_ACTIVE_TOKENS):
        api_token_create(user=user, name=f"t{i}", expires_at=timezone.now() + timedelta(days=1))
    with pytest.raises(TokenRefused):
        api_token_create(user=user, name="one more")
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    api_token_create(user=user, name="one more")


# --- read-only tokens --------------------------------------------------------------------------


def test_a_read_only_token_reads_everything(owner, matter, document):
    _, raw = api_token_create(user=owner, name="reader", scope=ApiToken.Scope.READ)
    query = query_create(matter=matter, user=owner, question="Who pays?", enqueue=False)
    run = EvaluationRun.objects.create(
        name="r", gold_set="qa", modes=["navembed:bm25"], status="failed", created_by=owner
    )
    client = bearer(raw)
    for url in (
        f"{V1}/matters",
        f"{V1}/matters/{matter.pk}",
        f"{V1}/matters/{matter.pk}/documents",
        f"{V1}/documents/{document.pk}",
        f"{V1}/documents/{document.pk}/nodes",
        f"{V1}/documents/{document.pk}/nodes/s1",
        f"{V1}/documents/{document.pk}/navindex",
        f"{V1}/matters/{matter.pk}/search?q=pay",
        f"{V1}/matters/{matter.pk}/queries",
        f"{V1}/matters/{matter.pk}/queries/{query.pk}",
        f"{V1}/evaluation/runs/{run.pk}",
        f"{V1}/matters/{matter.pk}/costs",
    ):
        assert client.get(url).status_code == 200, url


def _write_requests(matter, document, query, run, grid, playbook) -> dict[tuple[str, str], dict]:
    """Every write route of the API (each method but GET in the OpenAPI document), with ids and
    a body it would accept from a token that may write."""
    ids = {
        "matter_id": matter.pk,
        "document_id": document.pk,
        "query_id": query.pk,
        "run_id": run.pk,
        "grid_id": grid.pk,
        "playbook_id": playbook.pk,
    }
    positions = [{"key": "Anti-Assignment", "rule": {"required": True}}]
    schema = Client().get("/api/openapi.json").json()
    requests: dict[tuple[str, str], dict] = {}
    for path, operations in schema["paths"].items():
        for method in operations:
            if method in ("get", "head", "options"):
                continue
            url = path.format(**ids)
            kwargs: dict = {}
            if path.endswith("/documents") and method == "post":
                kwargs = {"data": {"file": SimpleUploadedFile("side.txt", b"1. Side.\nText.\n")}}
            elif path.endswith("/archives") and method == "post":
                room = io.BytesIO()
                with zipfile.ZipFile(room, "w") as zf:
                    zf.writestr("Room/side.txt", b"1. Side.\nText.\n")
                kwargs = {"data": {"file": SimpleUploadedFile("room.zip", room.getvalue())}}
            elif path.endswith("/link") and method == "post":
                kwargs = {"data": json.dumps({"accept": True}), "content_type": "application/json"}
            elif path.endswith("/grids") and method == "post":
                kwargs = {
                    "data": json.dumps({"columns": [{"key": "Governing Law"}]}),
                    "content_type": "application/json",
                }
            elif path.startswith("/api/v1/playbooks"):
                kwargs = {
                    "data": json.dumps({"name": "P2", "positions": positions}),
                    "content_type": "application/json",
                }
            elif path.endswith("/playbook-runs") and method == "post":
                kwargs = {
                    "data": json.dumps({"playbook_id": playbook.pk}),
                    "content_type": "application/json",
                }
            elif path.endswith("/retention") and method == "put":
                kwargs = {
                    "data": json.dumps({"retain_until": "2040-01-01"}),
                    "content_type": "application/json",
                }
            elif path.endswith(("/purge", "/purge-request")) and method == "post":
                kwargs = {
                    "data": json.dumps({"name": matter.name}),
                    "content_type": "application/json",
                }
            elif path.endswith("/queries") and method == "post":
                kwargs = {
                    "data": json.dumps({"question": "Who pays?"}),
                    "content_type": "application/json",
                }
            requests[(method, url)] = kwargs
    return requests


def test_a_read_only_token_is_refused_every_write_with_403(owner, matter, document):
    _, raw = api_token_create(user=owner, name="reader", scope=ApiToken.Scope.READ)
    query = query_create(matter=matter, user=owner, question="Who pays?", enqueue=False)
    Question.objects.filter(pk=query.pk).update(status=Question.Status.FAILED)
    run = EvaluationRun.objects.create(
        name="r", gold_set="qa", modes=["navembed:bm25"], status="failed", created_by=owner
    )
    grid = Grid.objects.create(matter=matter, title="g", created_by=owner, status="failed")
    owner.is_staff = True  # may write playbooks, but not with a read-only token
    owner.save(update_fields=["is_staff"])
    playbook = Playbook.objects.create(name="P", positions=[])
    requests = _write_requests(matter, document, query, run, grid, playbook)
    # upload a file and a zip, delete, reindex, cancel indexing, answer a link proposal, ask,
    # retry and cancel a question, retry and cancel an evaluation run, make a review grid,
    # resume and cancel one, write a playbook, save a new version, apply one; close, reopen,
    # set the retention date, ask for a purge, withdraw it, purge
    assert len(requests) == 23, sorted(requests)
    client = bearer(raw)
    events = AuditEvent.objects.count()
    for (method, url), kwargs in requests.items():
        if kwargs:
            response = getattr(client, method)(url, **kwargs)
        else:  # no body at all (the test client's post() would send an empty form)
            response = client.generic(method.upper(), url)
        err = error_of(response, 403)
        assert err["code"] == "read_only_token", (method, url)
        assert "read-only" in err["message"] and "reader" in err["message"], (method, url)
    assert AuditEvent.objects.count() == events
    assert Document.objects.filter(matter=matter).count() == 1
    assert Question.objects.count() == 1
    assert Question.objects.get().status == Question.Status.FAILED
    assert EvaluationRun.objects.get().status == "failed"
    assert Grid.objects.get().status == "failed"
    assert Playbook.objects.get().version == 1 and not PlaybookRun.objects.exists()
    matter.refresh_from_db()
    assert matter.status == "open" and matter.retain_until is None
    assert matter.purge_requested_at is None
    # The same user's read-and-write token may (a retry of the failed run, for one).
    _, writer = api_token_create(user=owner, name="writer")
    assert bearer(writer).post(f"{V1}/evaluation/runs/{run.pk}/cancel").status_code == 409
    assert bearer(writer).delete(f"{V1}/documents/{document.pk}").status_code == 204


def test_every_write_is_marked_and_no_read_is():
    marked = {
        name
        for name, fn in vars(writes).items()
        if callable(fn) and getattr(fn, "writes", False) and fn.__module__ == writes.__name__
    }
    assert marked == {
        "document_upload",
        "archive_upload",
        "document_link",
        "document_retry",
        "document_cancel",
        "document_remove",
        "question_ask",
        "question_retry",
        "question_cancel",
        "evaluation_retry",
        "evaluation_cancel",
        "matter_close",
        "matter_reopen",
        "matter_retention",
        "matter_purge_request",
        "matter_purge_withdraw",
        "matter_purge",
    }


# --- the token page ------------------------------------------------------------------------------


def _session_texts() -> list[str]:
    return [str(s.get_decoded()) + s.session_data for s in Session.objects.all()]


def test_a_new_token_is_shown_in_the_post_response_and_never_stored_in_the_session():
    user = UserFactory()
    client = Client()
    client.force_login(user)
    response = client.post(PAGE, {"name": "Claude Desktop", "expires": "30", "scope": "read"})
    assert response.status_code == 200  # rendered at once: no redirect to carry the secret
    assert "no-store" in response["Cache-Control"]
    page = response.content.decode()
    secret = re.search(r'value="(lnav_[A-Za-z0-9_-]+)"', page).group(1)
    assert api_token_user(raw=secret).user == user
    token = ApiToken.objects.get(user=user)
    assert token.scope == "read" and token.read_only
    assert abs(token.expires_at - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)
    assert f"expires {token.expires_at:%Y-%m-%d}" in page and "Read only" in page
    # Nowhere else: not in any session row, not in a cookie, not on the next page.
    assert all(secret not in text for text in _session_texts())
    assert all(secret not in morsel.value for morsel in response.cookies.values())
    assert all(secret not in morsel.value for morsel in client.cookies.values())
    again = client.get(PAGE).content.decode()
    assert secret not in again and token.prefix in again


def test_the_page_lists_scope_and_expiry_and_marks_expired_tokens():
    user = UserFactory()
    api_token_create(user=user, name="forever")
    soon = timezone.now() + timedelta(days=7)
    api_token_create(user=user, name="weekly", expires_at=soon, scope=ApiToken.Scope.READ)
    old, _ = api_token_create(user=user, name="old", expires_at=soon)
    ApiToken.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(days=1))
    client = Client()
    client.force_login(user)
    rows = {
        m.group(1): m.group(0)
        for m in re.finditer(
            r"<tr>\s*<td>([^<]+)</td>.*?</tr>", client.get(PAGE).content.decode(), re.S
        )
    }
    assert "never" in rows["forever"] and "Read and write" in rows["forever"]
    assert f"{soon:%Y-%m-%d}" in rows["weekly"] and "Read only" in rows["weekly"]
    assert "expired" in rows["old"] and ">active<" not in rows["old"]


def test_the_page_refuses_an_expiry_or_scope_not_offered():
    user = UserFactory()
    client = Client()
    client.force_login(user)
    assert client.post(PAGE, {"name": "x", "expires": "9999"}).status_code == 422
    assert client.post(PAGE, {"name": "x", "scope": "admin"}).status_code == 422
    assert not ApiToken.objects.exists()
