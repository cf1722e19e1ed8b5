"""Faults with the real parts: Celery workers on a private Redis, the web server as deployed
(runserver on the test's database), and the Claude path through the local replay server.

- a worker's pool process SIGKILLed mid-index: the task is delivered again and finishes the job;
- a whole worker SIGKILLed mid-answer: beat's sweeper finds the expired lease and a new worker
  finishes the job;
- Redis stopped: an upload and a question get a clear 503 with Retry-After, the rows are failed
  with the reason and audited, and Retry works once Redis is back.
"""

from __future__ import annotations

import os
import signal

import httpx
import pytest

from legalnav.answers.models import Question
from legalnav.answers.services import query_create
from legalnav.api.tokens import api_token_create
from legalnav.documents.models import Document, Node
from legalnav.documents.services import document_add
from legalnav.matters.models import AuditEvent, Membership
from tests.conftest import MembershipFactory, demo_bytes, index_bioamber_pair
from tests.llm.replay import ReplayServer, Reply, message
from tests.procs import child_env, start_redis, start_web, start_worker, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def redis_url(tmp_path):
    proc, url = start_redis(tmp_path)
    yield url
    proc.stop()


@pytest.fixture
def replay():
    server = ReplayServer().start()
    yield server
    server.stop()


def slow(reply: Reply) -> Reply:
    """A reply that arrives a minute late: the worker is killed while it waits."""
    reply.delay = 60
    return reply


def send(redis_url: str, task: str, pk: int) -> None:
    """What the web process does on commit: put the task on the broker."""
    from celery import Celery

    client = Celery(broker=redis_url)
    client.conf.task_default_queue = "legalnav"
    client.send_task(task, args=[pk], queue="legalnav")
    client.close()


def test_a_worker_killed_mid_index_loses_nothing(matter, tmp_path, redis_url, replay):
    # Enrichment by Claude is on: indexing stops in the middle, waiting for the replay server,
    # and that is where the pool process is killed.
    replay.queue(slow(message("[]", input_tokens=10, output_tokens=2)))
    env = child_env(
        REDIS_URL=redis_url,
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=replay.url,
        LLM_ENRICH_ON_INDEX="1",
        LLM_MAX_ATTEMPTS="1",
    )
    worker = start_worker(tmp_path, env)
    try:
        doc, _ = document_add(
            matter=matter,
            filename="bioamber-development-agreement-first-amendment.txt",
            data=demo_bytes("bioamber-development-agreement-first-amendment.txt"),
            enqueue=False,
        )
        send(redis_url, "legalnav.documents.tasks.index_document", doc.pk)
        wait_until(lambda: replay.requests, timeout=60, what="the enrichment call", logs=[worker])
        doc.refresh_from_db()
        assert doc.status == "indexing" and doc.lease_owner.startswith("celery:")
        first_owner = doc.lease_owner
        (child,) = worker.children()
        os.kill(child, signal.SIGKILL)

        def finished() -> bool:
            doc.refresh_from_db()
            return doc.status not in ("queued", "indexing")

        wait_until(finished, timeout=90, what="the redelivered task", logs=[worker])
        assert doc.status == "indexed", doc.error_message
        # The same task came back (same owner), took over its own claim and finished.
        assert doc.attempts == 2 and doc.lease_owner == ""
        assert first_owner.startswith("celery:")
        assert Node.objects.filter(document=doc).count() == doc.node_count > 5
        assert len(replay.requests) >= 2  # the second attempt called Claude again
    finally:
        worker.stop()


def killed_mid_answer_then_swept(tmp_path, redis_url: str, replay, query: Question):  # type: ignore[no-untyped-def]
    """Send ``query`` to a worker, kill the whole worker while its first Claude call waits (the
    machine is gone, the unacknowledged message too), then start a new worker with beat, whose
    sweeper sees the lease expire and sends the job again; return the query once it has ended,
    and the new worker's log."""
    env = child_env(
        REDIS_URL=redis_url,
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=replay.url,
        LLM_MAX_ATTEMPTS="1",
        JOB_LEASE_SECONDS="6",
        JOB_SWEEP_SECONDS="1",
    )
    first = start_worker(tmp_path, env, name="first")
    second = None
    try:
        send(redis_url, "legalnav.answers.tasks.answer_query", query.pk)
        wait_until(lambda: replay.requests, timeout=90, what="the first call", logs=[first])
        query.refresh_from_db()
        assert query.status == "running"
        first.kill_group()
        second = start_worker(tmp_path, env, name="second", beat=True)

        def finished() -> bool:
            query.refresh_from_db()
            return query.status not in ("queued", "running")

        wait_until(finished, timeout=120, what="the sweeper and the new worker", logs=[second])
        return query, second.log_path.read_text(errors="replace")
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_a_worker_killed_mid_answer_is_finished_by_another_after_the_sweep(
    matter, tmp_path, redis_url, replay
):
    index_bioamber_pair(matter)
    replay.queue(slow(message("never read", input_tokens=10, output_tokens=2)))
    base = Document.objects.filter(matter=matter).order_by("pk").first()
    replay.queue(
        message(f"Minnesota law governs [{base.key}:s13.2].", input_tokens=100, output_tokens=9)
    )
    query = query_create(
        matter=matter,
        user=None,
        question="Which law governs the agreement?",
        mode="navembed",
        enqueue=False,
    )
    query, log = killed_mid_answer_then_swept(tmp_path, redis_url, replay, query)
    assert query.status == "answered", query.error_message
    assert query.attempts == 2 and query.answer.text.startswith("Minnesota")
    assert "lease expired, queued again" in log


def test_a_research_brief_whose_worker_is_killed_is_finished_by_another_for_the_same_side(
    tmp_path, redis_url, replay
):
    """A deep brief in a research matter (real AILA judgments) through the real worker: the
    worker dies while Claude reads the question; the sweeper hands the job to a new worker, whose
    Claude calls fail or make no sense, and the brief is finished offline, for the side read."""
    from legalnav.answers.models import ResearchEvidence, ResearchRun
    from legalnav.matters.models import Matter
    from tests.conftest import MatterFactory
    from tests.research.conftest import add_judgments

    research = MatterFactory(kind=Matter.Kind.RESEARCH, name="Dying declarations")
    add_judgments(research, ["C1252", "C1193", "C1932", "C1010", "C51"])
    failed = Reply(
        status=500, body={"type": "error", "error": {"type": "api_error", "message": "x"}}
    )
    replay.queue(
        slow(message("never read", input_tokens=10, output_tokens=2)),
        message("Probably deep.", input_tokens=100, output_tokens=5),  # unreadable route
        failed,  # the plan
        failed,  # the stances
        message("Answer\nThe accused's appeal was allowed.", input_tokens=100, output_tokens=9),
    )
    query = query_create(
        matter=research,
        user=None,
        question=(
            "Prepare a research brief for the appellant: can a conviction for murder rest on "
            "a dying declaration alone, without corroboration? Give authorities for and "
            "against."
        ),
        enqueue=False,
    )
    query, _log = killed_mid_answer_then_swept(tmp_path, redis_url, replay, query)
    assert query.status == "answered", query.error_message
    assert query.attempts == 2 and query.mode_used == "research:deep:brief"
    run = ResearchRun.objects.get(question=query)  # one run: the dead attempt's was replaced
    assert run.side == "an accused appellant"
    assert run.proposition.startswith("a conviction for murder cannot rest")
    buckets = set(ResearchEvidence.objects.filter(run=run).values_list("bucket", flat=True))
    assert {"supporting", "adverse"} <= buckets
    assert len(replay.requests) == 5  # the dead attempt's call and the four of the second


def test_a_worker_killed_mid_grid_is_finished_by_another_and_keeps_the_cells(
    matter, tmp_path, redis_url, replay, settings
):
    """A review grid filled with Claude: the worker dies waiting on the second document's call;
    the sweeper sends the grid again and a new worker fills only the cells still missing."""
    import json

    from legalnav.review import services as grids
    from legalnav.review.models import Cell, Grid

    base, amendment = index_bioamber_pair(matter)
    law = Node.objects.get(document=base, text__contains="13.2 Governing Law")
    quote = "governed by and construed in accordance with the laws of the State of Minnesota"
    answer = {
        "cells": [
            {
                "key": "Governing Law",
                "found": True,
                "value": "Minnesota",
                "quote": quote,
                "node": law.node_id,
                "confidence": 0.9,
            }
        ]
    }
    none_found = {"cells": [{"key": "Governing Law", "found": False}]}
    replay.queue(
        message(json.dumps(answer), input_tokens=900, output_tokens=40),
        slow(message(json.dumps(none_found), input_tokens=10, output_tokens=2)),
        message(json.dumps(none_found), input_tokens=800, output_tokens=20),
    )
    settings.ANTHROPIC_API_KEY = "test-key"
    grid = grids.grid_create(
        matter=matter,
        user=None,
        title="Killed",
        columns=grids.columns_check(
            [grids.ColumnSpec("Governing Law", "Which law governs this agreement?", "text")]
        ),
        documents=[base, amendment],
        mode="claude",
    )
    env = child_env(
        REDIS_URL=redis_url,
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=replay.url,
        LLM_MAX_ATTEMPTS="1",
        JOB_LEASE_SECONDS="6",
        JOB_SWEEP_SECONDS="1",
    )
    first = start_worker(tmp_path, env, name="first")
    second = None
    try:
        send(redis_url, "legalnav.review.tasks.fill_grid", grid.pk)
        wait_until(
            lambda: len(replay.requests) >= 2, timeout=120, what="the second call", logs=[first]
        )
        grid.refresh_from_db()
        assert grid.status == "running" and grid.cells_done == 1  # the first document's cell
        first.kill_group()
        second = start_worker(tmp_path, env, name="second", beat=True)

        def finished() -> bool:
            grid.refresh_from_db()
            return grid.status not in ("queued", "running")

        wait_until(finished, timeout=120, what="the sweeper and the new worker", logs=[second])
        assert grid.status == Grid.Status.DONE, grid.error_message
        assert grid.attempts == 2 and grid.cells_done == 2
        kept = Cell.objects.get(grid=grid, document=base)
        assert kept.value == "Minnesota" and kept.verdict == "verified"
        assert not Cell.objects.get(grid=grid, document=amendment).found
        assert len(replay.requests) == 3  # the base document was not asked again
        assert grid.llm_calls >= 2
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_a_grid_in_chunks_whose_worker_dies_mid_chunk_loses_only_that_chunks_lease(
    matter, tmp_path, redis_url, replay, settings
):
    """A grid filled in chunks of one document on real workers: the worker dies waiting on the
    second chunk's Claude call; beat's sweeper sends that chunk (not the grid) again, a new
    worker fills it, and the last chunk settles the grid, with the first chunk's cell kept."""
    import json

    from legalnav.review import services as grids
    from legalnav.review.models import Cell, Grid, GridChunk

    base, amendment = index_bioamber_pair(matter)
    law = Node.objects.get(document=base, text__contains="13.2 Governing Law")
    quote = "governed by and construed in accordance with the laws of the State of Minnesota"
    answer = {"cells": [{"key": "Governing Law", "found": True, "value": "Minnesota",
                         "quote": quote, "node": law.node_id, "confidence": 0.9}]}  # fmt: skip
    none_found = {"cells": [{"key": "Governing Law", "found": False}]}
    replay.queue(
        message(json.dumps(answer), input_tokens=900, output_tokens=40),
        slow(message(json.dumps(none_found), input_tokens=10, output_tokens=2)),
        message(json.dumps(none_found), input_tokens=800, output_tokens=20),
    )
    settings.ANTHROPIC_API_KEY = "test-key"
    grid = grids.grid_create(
        matter=matter,
        user=None,
        title="Chunked",
        columns=grids.columns_check(
            [grids.ColumnSpec("Governing Law", "Which law governs this agreement?", "text")]
        ),
        documents=[base, amendment],
        mode="claude",
    )
    env = child_env(
        REDIS_URL=redis_url,
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=replay.url,
        LLM_MAX_ATTEMPTS="1",
        JOB_LEASE_SECONDS="6",
        JOB_SWEEP_SECONDS="1",
        GRID_CHUNK_DOCUMENTS="1",
    )
    first = start_worker(tmp_path, env, name="first")
    second = None
    try:
        send(redis_url, "legalnav.review.tasks.fill_grid", grid.pk)
        wait_until(
            lambda: len(replay.requests) >= 2, timeout=120, what="the second call", logs=[first]
        )
        grid.refresh_from_db()
        assert grid.status == "running" and grid.lease_owner == grids.FANOUT
        assert grid.cells_done == 1  # the first chunk's cell
        first.kill_group()
        second = start_worker(tmp_path, env, name="second", beat=True)

        def finished() -> bool:
            grid.refresh_from_db()
            return grid.status not in ("queued", "running")

        wait_until(finished, timeout=120, what="the sweeper and the new worker", logs=[second])
        assert grid.status == Grid.Status.DONE, grid.error_message
        assert grid.attempts == 1 and grid.cells_done == 2  # the grid itself never restarted
        chunks = list(GridChunk.objects.filter(grid=grid))
        assert [c.status for c in chunks] == ["done", "done"]
        assert [c.attempts for c in chunks] == [1, 2]  # only the dead worker's chunk again
        kept = Cell.objects.get(grid=grid, document=base)
        assert kept.value == "Minnesota" and kept.verdict == "verified"
        assert len(replay.requests) == 3  # the base document was not asked again
        assert grid.llm_calls >= 2
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_redis_down_gives_a_clear_503_and_nothing_is_lost(matter, tmp_path):
    from tests.procs import start_redis as redis_again

    index_bioamber_pair(matter)
    redis_proc, redis_url = start_redis(tmp_path)
    port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
    user = MembershipFactory(matter=matter, role=Membership.Role.EDITOR).user
    _, token = api_token_create(user=user, name="t")
    auth = {"Authorization": f"Bearer {token}"}
    env = child_env(REDIS_URL=redis_url, CELERY_BROKER_CONNECTION_TIMEOUT="1")
    web, url = start_web(tmp_path, env)
    worker = start_worker(tmp_path, env)
    try:
        redis_proc.stop()  # the broker goes away
        upload = httpx.post(
            f"{url}/api/v1/matters/{matter.pk}/documents",
            files={"file": ("side-letter.txt", b"1. Fees. The fee is $5,000.\n")},
            headers=auth,
            timeout=60,
        )
        asked = httpx.post(
            f"{url}/api/v1/matters/{matter.pk}/queries",
            json={"question": "What is the fee?", "mode": "navembed"},
            headers=auth,
            timeout=60,
        )
        for response in (upload, asked):
            assert response.status_code == 503, response.text
            assert response.headers["Retry-After"] == "30"
            assert response.json()["error"]["code"] == "queue_unavailable"
        doc = Document.objects.get(matter=matter, original_filename="side-letter.txt")
        query = Question.objects.get(matter=matter, question="What is the fee?")
        for row in (doc, query):
            assert row.status == "failed" and row.error_code == "queue_unavailable"
            assert "task queue is unavailable" in row.error_message
        assert AuditEvent.objects.filter(action="queue_down").count() == 2
        assert AuditEvent.objects.filter(action="uploaded", detail__document_id=doc.pk).exists()

        # Redis is back: Retry through the API, and the worker (reconnected) finishes both.
        restarted, _ = redis_again(tmp_path, port)
        try:
            retried_doc = httpx.post(
                f"{url}/api/v1/documents/{doc.pk}/reindex", json={}, headers=auth, timeout=60
            )
            retried_q = httpx.post(
                f"{url}/api/v1/matters/{matter.pk}/queries/{query.pk}/retry",
                headers=auth,
                timeout=60,
            )
            assert retried_doc.status_code == 202, retried_doc.text
            assert retried_q.status_code == 202, retried_q.text

            def finished() -> bool:
                doc.refresh_from_db()
                query.refresh_from_db()
                return doc.status == "indexed" and query.status == "answered"

            wait_until(finished, timeout=120, what="the retried jobs", logs=[worker, web])
        finally:
            restarted.stop()
    finally:
        worker.stop()
        web.stop()
        redis_proc.stop()
