"""The job lifecycle (legalnav.core.jobs) on the real database: claims and leases, failures
that always carry a reason, the sweeper, retry and cancel through every door, and the files
whose charset used to leave a document "indexing" for good."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from legalnav.answers.models import Answer, Question
from legalnav.answers.services import query_answer, query_create
from legalnav.api.tokens import api_token_create
from legalnav.core import jobs
from legalnav.documents.models import Document, Node
from legalnav.documents.services import document_add, document_index
from legalnav.evaluation.models import EvaluationRun
from legalnav.matters.models import AuditEvent, Membership
from tests.conftest import MembershipFactory, index_bioamber_pair, index_demo

pytestmark = pytest.mark.django_db

DOC = jobs.spec_for("document")
QUESTION = jobs.spec_for("question")
CLAUSES = b"1. Term. This Agreement lasts one year.\n\n2. Fees. The Buyer pays $10,000.\n"


@pytest.fixture(autouse=True)
def _no_ask_limit(settings):
    settings.LEGALNAV_ASK_RATE_PER_MINUTE = 0
    cache.clear()


def html_declaring(charset: str) -> bytes:
    return (
        f'<html><head><meta charset="{charset}"><title>Supply Agreement</title></head><body>'
        "<p>1. Term. This Agreement lasts one year.</p>"
        "<p>2. Fees. The Buyer pays $10,000 within 30 days.</p></body></html>"
    ).encode("ascii")


# --- files that used to hang indexing ----------------------------------------------------------


@pytest.mark.parametrize("charset", ["rot13", "base64", "punycode", "hex", "no-such-charset"])
def test_html_with_a_charset_no_web_page_uses_is_read_not_left_indexing(matter, charset):
    doc, _ = document_add(
        matter=matter, filename="supply.html", data=html_declaring(charset), enqueue=False
    )
    outcome = document_index(document_id=doc.pk)
    doc.refresh_from_db()
    # Read as a browser reads it (the declared label is ignored), and indexed.
    assert outcome.status == "indexed", doc.error_message
    assert doc.status == Document.Status.INDEXED and doc.lease_owner == ""
    assert "Buyer pays $10,000" in doc.text


def test_undecodable_bytes_fail_cleanly_with_a_reason(matter, monkeypatch):
    from legalnav.documents.parsing import extract

    def broken(data: bytes, **_limits):  # a decoder that gives up, as codecs can on hostile bytes
        raise UnicodeDecodeError("utf-8", data, 0, 1, "invalid start byte")

    monkeypatch.setattr(extract, "_extract_html", broken)
    doc, _ = document_add(
        matter=matter, filename="odd.html", data=html_declaring("utf-8"), enqueue=False
    )
    assert document_index(document_id=doc.pk).status == "failed"
    doc.refresh_from_db()
    assert doc.status == Document.Status.FAILED and doc.error_code == "unreadable"
    assert "could not be decoded" in doc.error_message and doc.lease_owner == ""


def test_an_exception_anywhere_in_indexing_fails_the_document_with_a_reason(matter, monkeypatch):
    from legalnav.documents import services

    def boom(doc):  # mid-pipeline: after the clauses are stored, before the navindex files
        raise LookupError("no codec for this")

    monkeypatch.setattr(services, "_write_navindex_files", boom)
    doc, _ = document_add(matter=matter, filename="a.txt", data=CLAUSES, enqueue=False)
    assert document_index(document_id=doc.pk).status == "failed"
    doc.refresh_from_db()
    assert doc.status == Document.Status.FAILED and doc.error_code == "error"
    assert "LookupError" in doc.error_message and "Retry" in doc.error_message
    assert doc.lease_owner == "" and doc.lease_expires_at is None
    monkeypatch.undo()
    assert document_index(document_id=doc.pk).status == "indexed"  # and it can be retried


def test_a_time_limit_says_so():
    from celery.exceptions import SoftTimeLimitExceeded

    code, message = jobs.failure_reason(DOC, SoftTimeLimitExceeded())
    assert code == "timeout" and "time limit" in message


# --- claims, leases, attempts ------------------------------------------------------------------


def question(matter) -> Question:
    return query_create(
        matter=matter, user=None, question="What is the term?", mode="navembed", enqueue=False
    )


def test_a_claim_is_leased_renewed_and_ends_with_the_lease_cleared(matter, settings):
    settings.JOB_LEASE_SECONDS = 30
    q = question(matter)
    lease = jobs.job_claim(QUESTION, q.pk, owner="celery:task-1")
    assert isinstance(lease, jobs.Lease)
    q.refresh_from_db()
    assert q.status == "running" and q.lease_owner == "celery:task-1" and q.attempts == 1
    first = q.lease_expires_at
    assert timedelta(seconds=25) < first - timezone.now() <= timedelta(seconds=30)
    # Another worker cannot take it while the lease runs; the same task (a retry) can.
    assert jobs.job_claim(QUESTION, q.pk, owner="celery:task-2") == jobs.Refusal("busy", "running")
    again = jobs.job_claim(QUESTION, q.pk, owner="celery:task-1")
    assert isinstance(again, jobs.Lease) and again.attempts == 2
    Question.objects.filter(pk=q.pk).update(lease_expires_at=timezone.now() + timedelta(seconds=1))
    again.renew()
    q.refresh_from_db()
    assert q.lease_expires_at - timezone.now() > timedelta(seconds=25)
    assert again.finish(error_message="")
    q.refresh_from_db()
    assert q.status == "answered" and q.lease_owner == "" and q.lease_expires_at is None


def test_attempts_are_bounded_then_the_job_fails_with_the_last_reason(matter, settings):
    settings.JOB_MAX_ATTEMPTS = 2
    q = question(matter)
    for n in (1, 2):
        lease = jobs.job_claim(QUESTION, q.pk, owner=f"celery:{n}")
        assert isinstance(lease, jobs.Lease)
        Question.objects.filter(pk=q.pk).update(
            lease_expires_at=timezone.now() - timedelta(seconds=1),
            error_message="database is locked",
        )
    refused = jobs.job_claim(QUESTION, q.pk, owner="celery:3")
    assert refused == jobs.Refusal("exhausted", "failed")
    q.refresh_from_db()
    assert q.status == "failed" and q.error_code == "gave_up"
    assert "tried 2 times" in q.error_message and "database is locked" in q.error_message


def test_a_cancelled_job_writes_nothing_more(bioamber_matter_pair):
    matter = bioamber_matter_pair
    q = question(matter)
    lease = jobs.job_claim(QUESTION, q.pk, owner="celery:slow")
    assert isinstance(lease, jobs.Lease)
    assert jobs.job_cancel(QUESTION, q.pk, by="ann")
    with pytest.raises(jobs.JobLost):
        lease.check()
    assert not lease.finish() and not lease.fail("late")
    q.refresh_from_db()
    assert q.status == "cancelled" and "Cancelled by ann" in q.error_message
    assert not jobs.job_cancel(QUESTION, q.pk)  # already ended
    # The worker's own run of the job stops at its first checkpoint and saves no answer.
    assert jobs.run_job("question", q.pk, owner="celery:slow") == "final"
    assert (
        not hasattr(Question.objects.get(pk=q.pk), "answer")
        or not Question.objects.get(pk=q.pk).answer
    )


@pytest.fixture
def bioamber_matter_pair(matter):
    index_bioamber_pair(matter)
    return matter


def test_an_answer_cancelled_mid_run_is_rolled_back(bioamber_matter_pair, monkeypatch):
    from legalnav.answers import services

    q = question(bioamber_matter_pair)
    real = services._draft

    def cancelled_meanwhile(query, *args, **kwargs):
        out = real(query, *args, **kwargs)
        jobs.job_cancel(QUESTION, query.pk, by="ann")  # the user clicks Cancel meanwhile
        return out

    monkeypatch.setattr(services, "_draft", cancelled_meanwhile)
    assert query_answer(query_id=q.pk).status == "cancelled"
    assert not Answer.objects.filter(question_id=q.pk).exists()


# --- the sweeper ---------------------------------------------------------------------------------


def test_the_sweeper_requeues_an_expired_lease_and_the_job_finishes(matter):
    doc, _ = document_add(matter=matter, filename="a.txt", data=CLAUSES, enqueue=False)
    Document.objects.filter(pk=doc.pk).update(
        status="indexing",
        lease_owner="celery:killed",
        lease_expires_at=timezone.now() - timedelta(seconds=5),
        attempts=1,
        progress=30,
    )
    live, _ = document_add(matter=matter, filename="b.txt", data=CLAUSES + b"x", enqueue=False)
    Document.objects.filter(pk=live.pk).update(
        status="indexing",
        lease_owner="celery:alive",
        lease_expires_at=timezone.now() + timedelta(seconds=60),
    )
    report = jobs.jobs_sweep(kinds=("document",))  # inline runner: re-sent means run now
    assert report.requeued == 1 and report.failed == 0
    doc.refresh_from_db()
    assert doc.status == "indexed" and doc.node_count == 2 and doc.lease_owner == ""
    live.refresh_from_db()
    assert live.status == "indexing" and live.lease_owner == "celery:alive"  # left alone


def test_a_sweep_that_cannot_reach_the_queue_fails_the_job_with_that_reason(matter, monkeypatch):
    def down(spec, pk):
        raise jobs.QueueUnavailable("connection refused")

    monkeypatch.setattr("legalnav.core.jobs.dispatch._send", down)
    q = question(matter)
    Question.objects.filter(pk=q.pk).update(
        status="running",
        lease_owner="celery:dead",
        lease_expires_at=timezone.now() - timedelta(seconds=5),
        attempts=1,
    )
    jobs.jobs_sweep(kinds=("question",))
    q.refresh_from_db()
    assert q.status == "failed" and q.error_code == "queue_unavailable"
    assert jobs.can_retry(QUESTION, q)


def test_the_sweeper_fails_a_job_whose_attempts_are_spent(matter, settings):
    settings.JOB_MAX_ATTEMPTS = 2
    q = question(matter)
    Question.objects.filter(pk=q.pk).update(
        status="running",
        lease_owner="celery:dead",
        lease_expires_at=timezone.now() - timedelta(seconds=5),
        attempts=2,
    )
    assert jobs.jobs_sweep(kinds=("question",)).failed == 1
    q.refresh_from_db()
    assert q.status == "failed" and "stopped responding" in q.error_message


def test_a_transient_error_is_remembered_so_giving_up_later_says_what_went_wrong(
    matter, settings, monkeypatch
):
    from django.db import OperationalError

    from legalnav.answers import services

    settings.JOB_MAX_ATTEMPTS = 2
    q = question(matter)

    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr(services, "_answer_claimed", locked)
    with pytest.raises(OperationalError):  # attempts remain: the runner will retry it
        jobs.run_job("question", q.pk, owner="celery:1")
    q.refresh_from_db()
    assert q.status == "running" and "database is locked" in q.error_message
    # The worker dies before its retry; its lease runs out and the attempts are spent.
    Question.objects.filter(pk=q.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=5), attempts=2
    )
    assert jobs.jobs_sweep(kinds=("question",)).failed == 1
    q.refresh_from_db()
    assert q.status == "failed" and "database is locked" in q.error_message
    assert "stopped responding" not in q.error_message


def test_the_sweeper_resends_a_queued_job_whose_task_was_lost(matter, settings):
    settings.JOB_QUEUED_STALE_SECONDS = 60
    doc, _ = document_add(matter=matter, filename="a.txt", data=CLAUSES, enqueue=False)
    Document.objects.filter(pk=doc.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    assert jobs.jobs_sweep(kinds=("document",)).resent == 1
    doc.refresh_from_db()
    assert doc.status == "indexed"


def test_an_interrupted_evaluation_run_is_ended_for_a_person_to_resume():
    run = EvaluationRun.objects.create(
        name="r",
        gold_set="qa",
        modes=["navembed:bm25"],
        status="running",
        lease_owner="evaluate:host:1:x",
        lease_expires_at=timezone.now() - timedelta(seconds=1),
        attempts=1,
    )
    assert jobs.jobs_sweep(kinds=("evaluation",)).failed == 1
    run.refresh_from_db()
    assert run.status == "interrupted" and "Retry resumes" in run.error_message


# --- retry and cancel through the page, the API and MCP ---------------------------------------


def stalled_question(matter) -> Question:
    """A question whose worker died and whose attempts are spent: nobody will finish it."""
    q = question(matter)
    Question.objects.filter(pk=q.pk).update(
        status="running",
        lease_owner="celery:dead",
        lease_expires_at=timezone.now() - timedelta(minutes=1),
        attempts=99,
    )
    return q


def test_the_answer_page_never_polls_forever_and_offers_retry_and_cancel(
    client, bioamber_matter_pair, monkeypatch, django_capture_on_commit_callbacks
):
    matter = bioamber_matter_pair
    user = MembershipFactory(matter=matter, role=Membership.Role.VIEWER).user
    client.force_login(user)
    # The poll's sweep cannot help (as when another process is mid-way through sweeping it):
    # the page must still stop polling and say what is going on.
    monkeypatch.setattr("legalnav.core.jobs.sweep.job_sweep_one", lambda *a, **k: "")
    q = stalled_question(matter)
    url = reverse("answer-detail", args=[matter.pk, q.pk])
    poll = client.get(url, HTTP_HX_REQUEST="true")
    html = poll.content.decode()
    assert poll.status_code == 286, html  # polling stops
    assert "has stalled" in html and ">Retry</button>" in html and "Cancel" in html
    assert "hx-trigger" not in html

    # Retry from the page: queued again and (inline runner) answered.
    with django_capture_on_commit_callbacks(execute=True):
        retried = client.post(reverse("answer-retry", args=[matter.pk, q.pk]))
    assert retried.status_code == 303
    q.refresh_from_db()
    assert q.status == "answered" and q.attempts == 1
    assert AuditEvent.objects.filter(action="retried", detail__query_id=q.pk).exists()


def test_a_poll_of_an_abandoned_question_restarts_it(client, bioamber_matter_pair):
    matter = bioamber_matter_pair
    client.force_login(MembershipFactory(matter=matter).user)
    q = question(matter)
    Question.objects.filter(pk=q.pk).update(
        status="running",
        lease_owner="celery:dead",
        lease_expires_at=timezone.now() - timedelta(seconds=1),
        attempts=1,
    )
    poll = client.get(reverse("answer-detail", args=[matter.pk, q.pk]), HTTP_HX_REQUEST="true")
    assert poll.status_code == 286  # the sweep re-queued it and the inline runner answered it
    q.refresh_from_db()
    assert q.status == "answered"


def test_cancel_a_question_on_the_page(client, matter):
    user = MembershipFactory(matter=matter, role=Membership.Role.VIEWER).user
    client.force_login(user)
    # A viewer may not stop someone else's question, only their own.
    other = question(matter)
    assert client.post(reverse("answer-cancel", args=[matter.pk, other.pk])).status_code == 403
    other.refresh_from_db()
    assert other.status == "queued"
    q = query_create(
        matter=matter, user=user, question="What is the term?", mode="navembed", enqueue=False
    )
    response = client.post(reverse("answer-cancel", args=[matter.pk, q.pk]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "was cancelled" in response.content.decode()
    q.refresh_from_db()
    assert q.status == "cancelled"
    event = AuditEvent.objects.get(action="cancelled")
    assert event.user == user and event.detail == {"query_id": q.pk, "via": "page"}
    outsider = Client()
    outsider.force_login(MembershipFactory().user)  # a member of another matter
    assert outsider.post(reverse("answer-cancel", args=[matter.pk, q.pk])).status_code == 404


def test_documents_retry_and_cancel_on_the_page(
    client, matter, settings, django_capture_on_commit_callbacks
):
    user = MembershipFactory(matter=matter, role=Membership.Role.EDITOR).user
    client.force_login(user)
    doc, _ = document_add(matter=matter, filename="a.txt", data=CLAUSES, enqueue=False)
    settings.JOB_MAX_ATTEMPTS = 1
    Document.objects.filter(pk=doc.pk).update(
        status="indexing",
        lease_owner="celery:dead",
        lease_expires_at=timezone.now() - timedelta(minutes=1),
        attempts=1,
    )
    # The page's poll ends the job nobody holds (attempts spent): failed, with Retry, no polling.
    page = client.get(reverse("matter-detail", args=[matter.pk]), HTTP_HX_REQUEST="true")
    assert page.status_code == 286
    row = page.content.decode().split(f'id="doc-{doc.pk}"')[1].split("</tr>")[0]
    assert "Failed" in row and "stopped responding" in row and ">Retry<" in row
    settings.JOB_MAX_ATTEMPTS = 3
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("document-reindex", args=[doc.pk]))
    doc.refresh_from_db()
    assert doc.status == "indexed" and Node.objects.filter(document=doc).count() == 2

    # Cancelling a re-index keeps the clauses of the last completed run.
    Document.objects.filter(pk=doc.pk).update(status="queued")
    client.post(reverse("document-cancel", args=[doc.pk]))
    doc.refresh_from_db()
    assert doc.status == "indexed" and "clauses of the last completed run" in doc.error_message
    # Cancelling a first indexing leaves it cancelled, with Retry.
    fresh, _ = document_add(matter=matter, filename="b.txt", data=CLAUSES + b"y", enqueue=False)
    client.post(reverse("document-cancel", args=[fresh.pk]))
    fresh.refresh_from_db()
    assert fresh.status == "cancelled"
    row = client.get(reverse("matter-detail", args=[matter.pk])).content.decode()
    assert "Cancelled" in row.split(f'id="doc-{fresh.pk}"')[1].split("</tr>")[0]
    viewer = Client()
    viewer.force_login(MembershipFactory(matter=matter, role=Membership.Role.VIEWER).user)
    assert viewer.post(reverse("document-cancel", args=[fresh.pk])).status_code == 403


def test_retry_and_cancel_through_the_api(bioamber_matter_pair, django_capture_on_commit_callbacks):
    matter = bioamber_matter_pair
    user = MembershipFactory(matter=matter, role=Membership.Role.EDITOR).user
    _, token = api_token_create(user=user, name="t")
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    q = question(matter)
    base = f"/api/v1/matters/{matter.pk}/queries/{q.pk}"
    assert api.post(f"{base}/retry").status_code == 409  # queued: nothing to retry
    cancelled = api.post(f"{base}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert api.post(f"{base}/cancel").status_code == 409
    with django_capture_on_commit_callbacks(execute=True):
        retried = api.post(f"{base}/retry")
    assert retried.status_code == 202 and retried.json()["status"] == "queued"
    q.refresh_from_db()
    assert q.status == "answered"

    doc, _ = document_add(matter=matter, filename="c.txt", data=CLAUSES, enqueue=False)
    stopped = api.post(f"/api/v1/documents/{doc.pk}/cancel")
    assert stopped.status_code == 200 and stopped.json()["status"] == "cancelled"
    with django_capture_on_commit_callbacks(execute=True):
        again = api.post(
            f"/api/v1/documents/{doc.pk}/reindex",
            data=json.dumps({}),
            content_type="application/json",
        )
    assert again.status_code == 202 and again.json()["document"]["status"] == "queued"
    doc.refresh_from_db()
    assert doc.status == "indexed"
    stranger = api_token_create(user=MembershipFactory().user, name="t")[1]
    other = Client(HTTP_AUTHORIZATION=f"Bearer {stranger}")
    assert other.post(f"{base}/cancel").status_code == 404
    assert other.post(f"/api/v1/documents/{doc.pk}/cancel").status_code == 404


def test_evaluation_runs_are_cancelled_and_resumed_from_the_page(client, settings, admin_user):
    settings.JOB_QUEUED_STALE_SECONDS = 3600
    run = EvaluationRun.objects.create(
        name="r", gold_set="qa", modes=["navembed:bm25"], status="queued", created_by=admin_user
    )
    client.force_login(admin_user)
    page = client.get(reverse("evaluation-run", args=[run.pk])).content.decode()
    assert "Cancel run" in page
    client.post(reverse("evaluation-cancel", args=[run.pk]))
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert "Resume" in client.get(reverse("evaluation-run", args=[run.pk])).content.decode()
    assert jobs.can_retry(jobs.spec_for("evaluation"), run)


def test_demo_text_indexes_under_the_lifecycle(matter):
    doc = index_demo(matter, "bioamber-development-agreement.txt")
    assert doc.attempts == 1 and doc.lease_owner == "" and doc.progress == 100


@pytest.mark.django_db(transaction=True)  # autocommit, as in production: sent at once
def test_the_ask_page_says_when_the_queue_is_down_and_keeps_the_question(
    client, matter, monkeypatch
):
    """The page's side of a broker outage (the real outage, Redis stopped, is in
    test_worker_faults): 503 with Retry-After, the question kept as failed with Retry."""

    def down(spec, pk):
        raise jobs.QueueUnavailable("connection refused")

    monkeypatch.setattr("legalnav.core.jobs.dispatch._send", down)
    user = MembershipFactory(matter=matter, role=Membership.Role.VIEWER).user
    client.force_login(user)
    response = client.post(
        reverse("matter-ask", args=[matter.pk]),
        {"question": "What is the term?", "mode": "navembed"},
    )
    assert response.status_code == 503 and response["Retry-After"] == "30"
    html = response.content.decode()
    assert "task queue is unavailable" in html and ">Retry</button>" in html
    q = Question.objects.get(matter=matter)
    assert q.status == "failed" and q.error_code == "queue_unavailable"
    assert list(AuditEvent.objects.order_by("id").values_list("action", flat=True)) == [
        "asked",
        "queue_down",
    ]


@pytest.mark.django_db(transaction=True)  # the runner's threads use connections of their own
def test_the_embedded_runner_ends_a_job_past_its_time_limit_and_moves_on(
    matter, settings, monkeypatch
):
    """A pathological file must not hold the embedded default's indexing queue: past the soft
    limit the job is failed with the reason and a fresh thread indexes the next document."""
    import threading

    from legalnav.documents import services

    settings.TASK_RUNNER = "thread"
    settings.TASK_SOFT_TIME_LIMIT_INDEX = 1
    settings.JOB_SWEEP_SECONDS = 0.2
    release = threading.Event()
    real = services.extract_text

    def hangs_on_slow(data, filename, **kw):
        if filename == "slow.txt":
            release.wait(20)  # a parser stuck on a hostile file
        return real(data, filename, **kw)

    monkeypatch.setattr(services, "extract_text", hangs_on_slow)
    from legalnav.core import runner as runner_module

    runner = runner_module.LocalRunner()
    monkeypatch.setattr(runner_module, "_RUNNER", runner)
    try:
        slow, _ = document_add(matter=matter, filename="slow.txt", data=CLAUSES, enqueue=False)
        fast, _ = document_add(
            matter=matter, filename="fast.txt", data=CLAUSES + b"3. End.\n", enqueue=False
        )
        jobs.enqueue("document", slow.pk)
        jobs.enqueue("document", fast.pk)
        deadline = timezone.now() + timedelta(seconds=15)
        while timezone.now() < deadline:
            slow.refresh_from_db()
            fast.refresh_from_db()
            if slow.status == "failed" and fast.status == "indexed":
                break
            threading.Event().wait(0.1)
        assert slow.status == "failed" and slow.error_code == "timeout", slow.error_message
        assert "time limit" in slow.error_message
        assert fast.status == "indexed"  # indexed while the stuck thread was still stuck
        release.set()  # the stuck thread finishes its file: its writes are refused
        threading.Event().wait(1.0)
        slow.refresh_from_db()
        assert slow.status == "failed" and not Node.objects.filter(document=slow).exists()
    finally:
        release.set()
        runner._stop.set()


def test_queued_evaluation_runs_and_fresh_rows_are_not_started_behind_anyones_back(
    matter, settings, monkeypatch
):
    """An evaluation run (hours of work) is never re-sent by the sweeper; the embedded runner
    leaves a row queued seconds ago to whoever queued it (a command about to run it)."""
    from legalnav.core import runner as runner_module

    settings.JOB_QUEUED_STALE_SECONDS = 60
    run = EvaluationRun.objects.create(
        name="r", gold_set="qa", modes=["navembed:bm25"], status="queued"
    )
    EvaluationRun.objects.filter(pk=run.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    report = jobs.jobs_sweep(kinds=("evaluation",))
    run.refresh_from_db()
    assert report.resent == 0 and run.status == "queued"
    assert jobs.is_stale(jobs.spec_for("evaluation"), run)  # the page says so and offers Retry

    fresh, _ = document_add(matter=matter, filename="a.txt", data=CLAUSES, enqueue=False)
    old, _ = document_add(matter=matter, filename="b.txt", data=CLAUSES + b"z", enqueue=False)
    Document.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    put: list[tuple[str, int]] = []
    local = runner_module.LocalRunner()
    monkeypatch.setattr(local, "put", lambda kind, pk, **kw: put.append((kind, pk)))
    local.sweep_startup_queue()
    assert put == [("document", old.pk)]


def test_the_database_filter_picks_every_job_is_stale_finds(matter, settings, monkeypatch):
    """``may_be_stale`` lets a page read only the open jobs that may have nobody working on them
    (the matter page of a data room has thousands open): it must pick every row ``is_stale``
    calls stale, and a job waiting in this process's queue stays not stale."""
    from legalnav.core import runner as runner_module

    settings.JOB_QUEUED_STALE_SECONDS = 60
    now = timezone.now()
    states = {
        "lapsed": {"status": "indexing", "lease_expires_at": now - timedelta(seconds=5)},
        "no lease": {"status": "indexing", "lease_expires_at": None},
        "held": {"status": "indexing", "lease_expires_at": now + timedelta(seconds=60)},
        "queued long ago": {"status": "queued", "updated_at": now - timedelta(minutes=5)},
        "queued now": {"status": "queued", "updated_at": now},
        "indexed": {"status": "indexed", "updated_at": now - timedelta(days=1)},
    }
    ids = {}
    for n, (name, fields) in enumerate(states.items()):
        doc, _ = document_add(
            matter=matter, filename=f"{n}.txt", data=CLAUSES + bytes(n), enqueue=False
        )
        Document.objects.filter(pk=doc.pk).update(**fields)
        ids[doc.pk] = name
    picked = {ids[d.pk] for d in Document.objects.filter(jobs.may_be_stale(DOC))}
    stale = {ids[d.pk] for d in Document.objects.all() if jobs.is_stale(DOC, d)}
    assert picked == stale == {"lapsed", "no lease", "queued long ago"}

    local = runner_module.LocalRunner()
    waiting = next(pk for pk, name in ids.items() if name == "queued long ago")
    local._pending["document"].add(waiting)
    monkeypatch.setattr(runner_module, "_RUNNER", local)
    assert runner_module.waiting_here("document", waiting)
    assert not jobs.is_stale(DOC, Document.objects.get(pk=waiting))  # its turn will come


def test_apps_register_their_jobs_and_core_names_none_of_them():
    """The lowest layer lists no app's jobs: each app registers its own in ready(), and a second,
    different spec under a registered kind is refused."""
    import dataclasses
    import re
    from pathlib import Path

    sources = sorted(Path(jobs.__file__).parent.glob("*.py"))
    assert {p.name for p in sources} >= {"__init__.py", "spec.py", "lease.py", "dispatch.py"}
    for path in sources:
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"legalnav\.(documents|answers|review|evaluation|api|mcp)\.", source)
    assert set(jobs.SPECS) == {"document", "question", "grid", "grid_chunk", "evaluation"}
    assert jobs.spec_for("grid").model == "review.Grid"
    jobs.register_job(jobs.spec_for("grid"))  # the same spec again: nothing changes
    with pytest.raises(ValueError, match="already registered"):
        jobs.register_job(dataclasses.replace(jobs.spec_for("grid"), noun="Something else"))
    with pytest.raises(ValueError, match="unknown job kind"):
        jobs.spec_for("nothing")


def test_the_job_modules_import_no_private_name_from_each_other():
    """core/jobs/ is split into spec, lease, dispatch and sweep; a helper one of them needs from
    another is public, so that no module leans on a sibling's internals."""
    import ast
    from pathlib import Path

    for path in Path(jobs.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "legalnav.core.jobs"
            ):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from {node.module}"
