"""Evaluation run actions (legalnav.evaluation.actions) through every door: the run page, the API,
MCP and ``manage.py evaluate``. Each writes one audit row (no matter: runs belong to none) saying
which door it came through, and refuses anyone but staff and the run's creator the same way."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.exceptions import PermissionDenied
from django.core.management import CommandError, call_command
from django.http import Http404
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from mcp import Client as McpClient

from legalnav.api.tokens import api_token_create
from legalnav.core import jobs
from legalnav.evaluation import actions
from legalnav.evaluation.models import EvaluationRun
from legalnav.matters.models import AuditEvent
from legalnav.mcp.server import build_server
from tests.conftest import UserFactory
from tests.mcp.conftest import run as run_async

pytestmark = pytest.mark.django_db


@pytest.fixture
def creator():
    return UserFactory()


def make_run(creator, status: str = "failed") -> EvaluationRun:
    return EvaluationRun.objects.create(
        name="r", gold_set="qa", modes=["navembed:bm25"], status=status, created_by=creator
    )


def api(user) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {api_token_create(user=user, name='t')[1]}")


def trail() -> list[tuple[str, object, dict]]:
    return [
        (e.action, e.matter_id, e.detail)
        for e in AuditEvent.objects.order_by("id").only("action", "matter_id", "detail")
    ]


def test_retry_from_the_page_and_the_api_is_audited_with_its_door(client, creator):
    run = make_run(creator)
    client.force_login(creator)
    response = client.post(reverse("evaluation-retry", args=[run.pk]), follow=True)
    assert "is queued; it resumes where it stopped" in response.content.decode()
    run.refresh_from_db()
    assert run.status == "queued"
    EvaluationRun.objects.filter(pk=run.pk).update(status="interrupted")
    response = api(creator).post(f"/api/v1/evaluation/runs/{run.pk}/retry")
    assert response.status_code == 202 and response.json()["status"] == "queued"
    assert trail() == [
        ("retried", None, {"run_id": run.pk, "before": "failed", "via": "page"}),
        ("retried", None, {"run_id": run.pk, "before": "interrupted", "via": "api"}),
    ]
    event = AuditEvent.objects.first()
    assert event.user == creator and event.target == f"evaluation run #{run.pk} r"


def test_cancel_from_the_page_and_the_api_is_audited_with_its_door(client, creator):
    run = make_run(creator, status="queued")
    client.force_login(creator)
    response = client.post(reverse("evaluation-cancel", args=[run.pk]), follow=True)
    assert "is cancelled; what it finished is kept" in response.content.decode()
    run.refresh_from_db()
    assert run.status == "cancelled" and f"by {creator.username}" in run.error_message
    # Nothing left to cancel: the page says so, the API answers 409; neither writes a row.
    again = client.post(reverse("evaluation-cancel", args=[run.pk]), follow=True)
    assert f"Run {run.pk} is cancelled." in again.content.decode()
    assert api(creator).post(f"/api/v1/evaluation/runs/{run.pk}/cancel").status_code == 409
    EvaluationRun.objects.filter(pk=run.pk).update(status="running")
    response = api(creator).post(f"/api/v1/evaluation/runs/{run.pk}/cancel")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert trail() == [
        ("cancelled", None, {"run_id": run.pk, "before": "queued", "via": "page"}),
        ("cancelled", None, {"run_id": run.pk, "before": "running", "via": "api"}),
    ]


def test_only_staff_and_the_creator_may_act_and_others_are_refused_alike(client, creator):
    run = make_run(creator, status="queued")
    stranger = UserFactory()
    client.force_login(stranger)
    for name in ("evaluation-retry", "evaluation-cancel"):
        assert client.post(reverse(name, args=[run.pk])).status_code == 404
    for verb in ("retry", "cancel"):
        response = api(stranger).post(f"/api/v1/evaluation/runs/{run.pk}/{verb}")
        assert response.status_code == 404
        assert response.json()["error"]["message"] == "No such evaluation run."
    # The action itself refuses them the same way, whatever door forgot to look.
    for act in (actions.evaluation_retry, actions.evaluation_cancel):
        with pytest.raises(Http404, match="No such evaluation run."):
            act(run=run, user=stranger, via="api")
    run.refresh_from_db()
    assert run.status == "queued" and not AuditEvent.objects.exists()
    # Staff may act on anyone's run.
    staff = UserFactory(is_staff=True)
    assert actions.evaluation_cancel(run=run, user=staff, via="api")
    assert trail() == [("cancelled", None, {"run_id": run.pk, "before": "queued", "via": "api"})]


def test_starting_a_run_is_audited_and_needs_staff_outside_commands(creator):
    with pytest.raises(PermissionDenied):
        actions.evaluation_start(user=creator, via="api", name="x", gold_set="qa", modes=["inject"])
    assert not EvaluationRun.objects.exists()
    run = actions.evaluation_start(
        user=creator, via="command", name="x", gold_set="qa", modes=["inject"]
    )
    assert run.status == "queued" and run.created_by == creator
    assert trail() == [
        (
            "started",
            None,
            {"run_id": run.pk, "gold_set": "qa", "modes": ["inject"], "via": "command"},
        )
    ]


def test_the_evaluate_command_refuses_to_resume_a_run_another_process_holds(creator):
    run = make_run(creator, status="running")
    EvaluationRun.objects.filter(pk=run.pk).update(
        lease_owner="elsewhere", lease_expires_at=timezone.now() + timedelta(minutes=5)
    )
    with pytest.raises(CommandError, match="another process is running it"):
        call_command("evaluate", run=run.pk, stdout=StringIO(), stderr=StringIO())
    assert not AuditEvent.objects.exists()
    EvaluationRun.objects.filter(pk=run.pk).update(status="interrupted", lease_owner="")
    run.refresh_from_db()
    assert actions.evaluation_retry(run=run, user=None, via="command", here=True)
    assert trail() == [
        (
            "retried",
            None,
            {"run_id": run.pk, "before": "interrupted", "here": True, "via": "command"},
        )
    ]


@pytest.mark.django_db(transaction=True)  # autocommit, as in production: sent at once
def test_a_retry_when_the_queue_is_down_is_audited_and_the_run_kept_failed(
    client, creator, monkeypatch
):
    def down(spec, pk):
        raise jobs.QueueUnavailable("connection refused")

    monkeypatch.setattr("legalnav.core.jobs.dispatch._send", down)
    run = make_run(creator)
    client.force_login(creator)
    response = client.post(reverse("evaluation-retry", args=[run.pk]), follow=True)
    assert "task queue is unavailable" in response.content.decode()
    run.refresh_from_db()
    assert run.status == "failed" and "task queue is unavailable" in run.error_message
    assert [a for a, _, _ in trail()] == ["retried", "queue_down"]
    assert trail()[1][2] == {"run_id": run.pk, "via": "page"}


def _mcp(token: str, name: str, args: dict):
    async def go():
        async with McpClient(build_server(token=token)) as mcp:
            return await mcp.call_tool(name, args)

    return run_async(go)


@pytest.mark.django_db(transaction=True)  # the MCP server answers in a thread of its own
def test_cancel_through_mcp_is_audited_and_refused_like_the_api(creator):
    run = make_run(creator, status="queued")
    stranger_token = api_token_create(user=UserFactory(), name="mcp")[1]
    refused = _mcp(stranger_token, "cancel_job", {"kind": "evaluation", "job_id": run.pk})
    assert refused.is_error and refused.content[0].text.endswith(": No such evaluation run.")
    token = api_token_create(user=creator, name="mcp")[1]
    out = _mcp(token, "cancel_job", {"kind": "evaluation", "job_id": run.pk})
    assert out.structured_content["status"] == "cancelled"
    assert trail() == [("cancelled", None, {"run_id": run.pk, "before": "queued", "via": "mcp"})]
