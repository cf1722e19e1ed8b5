"""bench_dataroom's data room: CUAD and EDGAR texts repeated under new names reach N documents,
each a document of its own (not recorded as a copy), all indexed, with a member to drive it."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import CommandError, call_command

from legalnav.bench import dataroombench, loadbench
from legalnav.documents.models import Document, DocumentCopy

pytestmark = pytest.mark.django_db


def test_repeats_reach_n_documents_each_its_own_and_indexed(monkeypatch):
    monkeypatch.setenv(loadbench.BENCH_STACK_ENV, "1")  # as inside the benchmark's own stack
    world = dataroombench.prepare(documents=3, unique=2)
    docs = list(Document.objects.filter(matter_id=world["matter"]).order_by("id"))
    assert len(docs) == 3 and world["unique"] == 2
    assert {d.status for d in docs} == {Document.Status.INDEXED}
    first, _, repeat = docs
    assert repeat.original_filename.endswith("(set 2).txt")
    assert repeat.sha256 != first.sha256 and repeat.text.startswith(first.text.rstrip()[:200])
    assert not DocumentCopy.objects.filter(document__matter_id=world["matter"]).exists()
    assert authenticate(username=world["username"], password=dataroombench.PASSWORD)
    names = [p.name for p in dataroombench.sources(0)]
    assert len(names) == len(set(names)) >= 500  # CUAD's 408 and the EDGAR agreements


@pytest.mark.parametrize("command", ["bench_dataroom", "bench_load"])
def test_prepare_refuses_outside_a_benchmark_stack(monkeypatch, command):
    """--prepare makes accounts with a known password: never in a database a Stack did not make."""
    monkeypatch.delenv(loadbench.BENCH_STACK_ENV, raising=False)
    with pytest.raises(CommandError, match="known password"):
        call_command(command, "--prepare", "2")
    assert not get_user_model().objects.exists()


def test_the_stack_marks_its_processes_as_a_benchmark_stack(tmp_path):
    stack = loadbench.Stack("embedded", tmp_path, say=print)
    assert stack._base_env()[loadbench.BENCH_STACK_ENV] == "1"


def test_progress_rides_out_a_failed_poll_but_not_a_long_outage(monkeypatch):
    replies = iter([503, 200, "drop", 404])
    body = {"status": "running", "cells_done": 7, "cells_total": 41, "error": ""}

    def answer(request: httpx.Request) -> httpx.Response:
        code = next(replies)
        if code == "drop":
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(code, json=body if code == 200 else {"detail": "no"})

    api = httpx.Client(transport=httpx.MockTransport(answer), base_url="http://bench")
    last = {"status": "running", "cells_done": 3, "cells_total": 41, "error": ""}
    kept = dataroombench._progress(api, 1, 2, last)  # a 503: the last state, marked failing
    assert kept["cells_done"] == 3 and "_failing_since" in kept
    fresh = dataroombench._progress(api, 1, 2, kept)
    assert fresh == body  # read again: the failure mark is gone
    monkeypatch.setattr(dataroombench, "PROGRESS_GRACE_S", -1.0)
    with pytest.raises(RuntimeError, match="ConnectError"):
        dataroombench._progress(api, 1, 2, {**fresh, "_failing_since": 0.0})
    with pytest.raises(httpx.HTTPStatusError):  # a 4xx is not transient
        dataroombench._progress(api, 1, 2, fresh)


def test_load_bench_times_each_kind_of_request_and_names_the_slowest():
    from legalnav.bench.management.commands.bench_load import _line

    tally = loadbench.Tally(seconds=60)
    tally.timed("page", 120.0, 200, "matter page")
    tally.timed("page", 900.0, 200, "answer page")
    tally.timed("api", 40.0, 503, "ask")
    assert sorted(tally.by_request) == ["answer page", "ask", "matter page"]
    assert tally.page_ms == [120.0, 900.0] and tally.api_ms == [40.0]
    assert tally.errors == {"HTTP 503": 1} and tally.refused_503 == 1
    slowest = max(tally.timeline)
    assert slowest[0] == 900.0 and slowest[2] == "answer page"
    report = {
        "setup": "scaled", "users": 2, "requests": 3, "elapsed_s": 61.0,
        "page_ms": {"p50": 510, "p95": 861}, "api_ms": {"p50": 40, "p95": 40},
        "questions": {"asked": 1, "answered": 1, "failed": 0},
        "documents": {"uploaded": 0, "indexed": 0, "failed": 0},
        "stuck": 0, "lost": 0, "fault": "", "http_errors": {},
        "by_request": {"answer page": {"p50": 900, "p95": 900, "n": 1}},
        "slowest": [{"what": "answer page", "at_s": 1.5, "ms": 900}],
    }  # fmt: skip
    line = _line(report)
    assert "answer page: p50 900 ms p95 900 ms (1)" in line
    assert "slowest: answer page at 1.5 s 900 ms" in line


def test_a_reviewer_whose_sign_in_barrier_breaks_still_works_and_is_counted(monkeypatch):
    """One hung sign-in used to break the barrier and kill every reviewer thread with
    BrokenBarrierError; now each goes on working and the report counts it."""
    monkeypatch.setattr(loadbench, "SIGN_IN_WAIT_S", 0.05)
    tally = loadbench.Tally(seconds=0.3)
    tally.started -= 1000  # made long before: the wait for sign-ins outlasts the run's length
    barrier = threading.Barrier(2)  # the second party (the main thread) never comes
    reviewer = loadbench.Reviewer(0, "http://127.0.0.1:9", 1, {"token": "t"}, tally, barrier)
    turns: list[int] = []
    monkeypatch.setattr(reviewer, "_login", lambda page: None)
    monkeypatch.setattr(reviewer, "_turn", lambda page, api, turn: turns.append(turn))
    reviewer.run()
    assert turns and tally.errors == {"sign-ins not all done in time": 1}
    assert tally.clock_running and tally.started > time.monotonic() - 60  # from the break on
