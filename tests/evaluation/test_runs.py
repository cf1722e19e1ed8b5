"""Evaluation runs: stored results, resumable after an interruption, offline answers and the
judge through the replay server, the command's output."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from legalnav.evaluation import runner
from legalnav.evaluation.models import EvaluationItem, EvaluationRun, EvaluationVerdict
from legalnav.evaluation.runner import Workbench
from legalnav.evaluation.services import (
    EvaluationError,
    evaluation_run_create,
    evaluation_run_execute,
)
from tests.llm.replay import message

pytestmark = pytest.mark.django_db

MODES = ["navembed:bm25", "naive:bm25", "inject"]


@pytest.fixture(autouse=True)
def _var(settings, tmp_path: Path) -> None:
    settings.VAR_DIR = tmp_path  # run files, ContractNLI texts and the index cache stay here


def lexical_bench(tmp_path: Path) -> Workbench:
    return Workbench(cache_dir=tmp_path / "cache", use_embedder=False)


class Counting:
    """evaluate_item, counted, optionally raising KeyboardInterrupt on call number ``stop``."""

    def __init__(self, stop: int | None = None) -> None:
        self.calls: list[tuple[str, str]] = []
        self.stop = stop
        self.real = runner.evaluate_item

    def __call__(self, bench, item, mode, **kw):  # type: ignore[no-untyped-def]
        self.calls.append((item.id, mode))
        if self.stop is not None and len(self.calls) == self.stop:
            raise KeyboardInterrupt
        return self.real(bench, item, mode, **kw)


def test_an_interrupted_run_resumes_without_redoing_items(tmp_path, monkeypatch):
    run = evaluation_run_create(name="t", gold_set="cuad", modes=MODES, contracts=2)
    interrupted = Counting(stop=10)
    with pytest.raises(KeyboardInterrupt):
        evaluation_run_execute(run=run, bench=lexical_bench(tmp_path), evaluate=interrupted)
    run.refresh_from_db()
    assert run.status == EvaluationRun.Status.INTERRUPTED
    kept = {(i.item_id, i.mode): i.pk for i in EvaluationItem.objects.filter(run=run)}
    assert len(kept) == 9
    partial = json.loads(Path(run.output_path).read_text())
    assert len(partial["items"]) == 9 and partial["run"]["status"] == "interrupted"

    # Resume through the command, as an operator would; count what it computes.
    resumed = Counting()
    monkeypatch.setattr(runner, "evaluate_item", resumed)
    monkeypatch.setattr(
        runner, "Workbench", lambda **kw: Workbench(cache_dir=kw["cache_dir"], use_embedder=False)
    )
    out, err = StringIO(), StringIO()
    call_command("evaluate", run=run.pk, stdout=out, stderr=err)
    run.refresh_from_db()
    assert run.status == EvaluationRun.Status.DONE
    rows = {(i.item_id, i.mode): i.pk for i in EvaluationItem.objects.filter(run=run)}
    total = len(rows)
    questions = len({item for item, _ in rows})
    assert total == questions * len(MODES) > 9
    assert len(resumed.calls) == total - 9
    assert not set(resumed.calls) & set(kept)
    assert all(rows[key] == pk for key, pk in kept.items())  # the first nine were not redone
    assert "9 kept from before" in err.getvalue()
    assert "span level" in out.getvalue()


def test_the_summary_has_exact_intervals_and_the_inject_ceiling(tmp_path):
    run = evaluation_run_create(name="t", gold_set="cuad", modes=MODES, contracts=1)
    evaluation_run_execute(run=run, bench=lexical_bench(tmp_path))
    run.refresh_from_db()
    modes = run.summary["modes"]
    inject = modes["inject"]["span"]
    n = inject["n"]
    assert inject["hit@1"] == {
        "k": n, "n": n, "rate": 1.0, "low": inject["hit@1"]["low"], "high": 1.0, "confidence": 0.95
    }  # fmt: skip
    assert 0 < inject["hit@1"]["low"] < 1
    assert modes["inject"]["footprint_share"] == 1.0
    bm25 = modes["navembed:bm25"]
    assert (
        bm25["span"]["hit@10"]["low"]
        <= bm25["span"]["hit@10"]["rate"]
        <= bm25["span"]["hit@10"]["high"]
    )
    assert bm25["footprint_share"] < 0.5
    assert bm25["payload_tokens"] > 0 and bm25["dollars_per_query_estimate"] > 0
    assert "naive:bm25 vs navembed:bm25" in run.summary["paired"]
    exported = json.loads(Path(run.output_path).read_text())
    assert exported["summary"] == run.summary
    assert {i["mode"] for i in exported["items"]} == set(MODES)


def test_a_failing_question_is_recorded_and_retried_on_resume(tmp_path):
    run = evaluation_run_create(name="t", gold_set="cuad", modes=["navembed:rerank"], contracts=1)
    evaluation_run_execute(run=run, bench=lexical_bench(tmp_path))  # no cross-encoder configured
    rows = list(EvaluationItem.objects.filter(run=run))
    assert rows and all("RERANKER_MODEL" in r.error for r in rows)
    run.refresh_from_db()
    assert run.summary["modes"]["navembed:rerank"]["errors"] == len(rows)
    assert run.summary["modes"]["navembed:rerank"]["span"]["hit@10"]["k"] == 0
    again = Counting()
    evaluation_run_execute(run=run, bench=lexical_bench(tmp_path), evaluate=again)
    assert len(again.calls) == len(rows)  # errors are not "done"


def test_bad_runs_are_refused_before_any_work():
    with pytest.raises(EvaluationError, match="unknown mode"):
        evaluation_run_create(name="t", gold_set="cuad", modes=["navembed:magic"])
    with pytest.raises(EvaluationError, match="unknown gold set"):
        evaluation_run_create(name="t", gold_set="nope", modes=["inject"])
    with pytest.raises(EvaluationError, match="no reference answers"):
        evaluation_run_create(
            name="t",
            gold_set="contractnli",
            modes=["inject", "navindex"],
            judge=[("inject", "navindex")],
        )
    with pytest.raises(CommandError, match="unknown mode"):
        call_command("evaluate", "cuad", modes=["nope"], stdout=StringIO(), stderr=StringIO())
    assert not EvaluationRun.objects.exists()


def test_the_command_reports_an_interruption_with_the_resume_line(monkeypatch):
    monkeypatch.setattr(runner, "evaluate_item", Counting(stop=1))
    monkeypatch.setattr(
        runner, "Workbench", lambda **kw: Workbench(cache_dir=kw["cache_dir"], use_embedder=False)
    )
    with pytest.raises(CommandError, match=r"resume with: manage.py evaluate --run \d+"):
        call_command(
            "evaluate", "cuad", contracts=1, modes=["inject"], stdout=StringIO(), stderr=StringIO()
        )
    assert EvaluationRun.objects.get().status == EvaluationRun.Status.INTERRUPTED


def test_offline_answers_are_scored_and_pairs_judged_once(tmp_path, replay):
    run = evaluation_run_create(
        name="qa",
        gold_set="qa",
        modes=["navembed:bm25", "inject"],
        limit=3,
        answerer="offline",
        judge=[("navembed:bm25", "inject")],
    )
    questions = 3
    verdict = {"verdict": "tie", "strength": "clear", "rationale": "same key facts"}
    replay.queue(
        *[
            message(json.dumps(verdict), input_tokens=800, output_tokens=30)
            for _ in range(2 * questions)
        ]
    )
    progress = evaluation_run_execute(run=run, bench=lexical_bench(tmp_path))
    assert progress.judged == questions
    assert len(replay.requests) == 2 * questions  # both orders of every question
    rows = EvaluationItem.objects.filter(run=run)
    assert rows.count() == 2 * questions
    for row in rows:
        assert row.answer and row.answerer == "offline"
        assert "declined" in row.scores and "citations" not in row.scores
        if not row.out_of_scope:
            assert row.scores["key_facts"]["total"] >= 1
            assert "node" in row.metrics or row.mode == "inject"
    verdicts = EvaluationVerdict.objects.filter(run=run)
    assert verdicts.count() == questions
    assert all(v.outcome == "tie" and v.forward["rationale"] == "same key facts" for v in verdicts)
    run.refresh_from_db()
    judged = run.summary["judged"]["navembed:bm25 vs inject"]
    assert judged["in_scope"]["n"] + judged["controls"]["n"] == questions
    assert float(judged["judge_dollars"]) > 0
    # A second pass judges nothing again (the replay queue is empty: a call would fail).
    assert evaluation_run_execute(run=run, bench=lexical_bench(tmp_path)).judged == 0
    assert len(replay.requests) == 2 * questions
