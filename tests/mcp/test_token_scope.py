"""The MCP server holds tokens to their expiry and scope like the JSON API: an expired token is
refused, a read-only one may use every read tool and no write tool (ask, retry_job, cancel_job
for each kind of job); and a staff user sees other people's matters only when the deployment
says so, audited."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from legalnav.answers.models import Question
from legalnav.answers.services import query_create
from legalnav.api.models import ApiToken
from legalnav.api.tokens import api_token_create
from legalnav.evaluation.models import EvaluationRun
from legalnav.matters.models import AuditEvent
from tests.conftest import UserFactory
from tests.mcp.conftest import World
from tests.mcp.test_inprocess import call, refused


def test_an_expired_token_is_refused_saying_it_expired(world: World):
    token, raw = api_token_create(
        user=world.alice, name="desk", expires_at=timezone.now() + timedelta(days=1)
    )
    assert not call(raw, "list_matters").is_error
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    message = refused(call(raw, "list_matters"))
    assert "expired" in message and "desk" in message


def test_a_read_only_token_reads_with_every_read_tool_and_writes_with_none(world: World):
    _, raw = api_token_create(user=world.alice, name="reader", scope=ApiToken.Scope.READ)
    base = world.base
    query = query_create(matter=world.matter, user=world.alice, question="Who?", enqueue=False)
    Question.objects.filter(pk=query.pk).update(status=Question.Status.FAILED)
    run = EvaluationRun.objects.create(
        name="r", gold_set="qa", modes=["navembed:bm25"], status="failed", created_by=world.alice
    )
    reads = {
        "list_matters": {},
        "list_documents": {"matter_id": world.matter.pk},
        "get_navindex": {"document_id": base.pk},
        "get_provisions": {"document_id": base.pk, "node_ids": ["s13.2"]},
        "search": {"matter_id": world.matter.pk, "query": "governing law"},
        "get_answer": {"matter_id": world.matter.pk, "query_id": query.pk},
    }
    for name, args in reads.items():
        result = call(raw, name, args)
        assert not result.is_error, (name, result.content)
    writes = [
        ("ask", {"matter_id": world.matter.pk, "question": "Who are the parties?"}),
        ("retry_job", {"kind": "document", "job_id": base.pk}),
        ("cancel_job", {"kind": "document", "job_id": base.pk}),
        ("retry_job", {"kind": "question", "job_id": query.pk, "matter_id": world.matter.pk}),
        ("cancel_job", {"kind": "question", "job_id": query.pk, "matter_id": world.matter.pk}),
        ("retry_job", {"kind": "evaluation", "job_id": run.pk}),
        ("cancel_job", {"kind": "evaluation", "job_id": run.pk}),
    ]
    events = AuditEvent.objects.count()
    for name, args in writes:
        message = refused(call(raw, name, args))
        assert "read-only" in message and "reader" in message, (name, args, message)
    assert AuditEvent.objects.count() == events
    assert Question.objects.count() == 1 and Question.objects.get().status == Question.Status.FAILED
    assert EvaluationRun.objects.get().status == "failed"
    # The same user's other token gets past the scope: to the run's own state.
    args = {"kind": "evaluation", "job_id": run.pk}
    assert "nothing to cancel" in refused(call(world.alice_token, "cancel_job", args))


def test_staff_are_members_like_anyone_unless_the_setting_is_on(world: World, settings):
    staff = UserFactory(is_staff=True, is_superuser=True)
    _, raw = api_token_create(user=staff, name="admin")
    args = {"matter_id": world.matter.pk}
    assert call(raw, "list_matters").structured_content["items"] == []
    assert "No such matter" in refused(call(raw, "list_documents", args))
    assert "No such document" in refused(
        call(raw, "get_provisions", {"document_id": world.base.pk, "node_ids": ["s13.2"]})
    )
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.STAFF_ACCESS).exists()

    settings.LEGALNAV_STAFF_SEE_ALL_MATTERS = True
    listed = call(raw, "list_documents", args)
    assert not listed.is_error and listed.structured_content["count"] == 2
    assert not call(raw, "search", {**args, "query": "governing law"}).is_error
    event = AuditEvent.objects.get(action=AuditEvent.Action.STAFF_ACCESS)
    assert event.user == staff and event.matter_id == world.matter.pk
