"""Evaluation runs: create one, run it (resumably), judge its pairs, summarise and export it.

A run is resumable because every (question, mode) result is its own row, written as soon as it
is computed, in autocommit: an interrupted run keeps everything it finished, and running it
again skips what is there (results that ended in an error are tried again). Judge verdicts work
the same way. LLM calls and embedding happen outside any transaction (STYLE.md rule 3).
"""

from __future__ import annotations

import json
import logging
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError
from django.utils import timezone

from legalnav.core import jobs
from legalnav.evaluation import gold, splits
from legalnav.evaluation.jobs import EVALUATION as EVALUATION_JOB
from legalnav.evaluation.models import EvaluationItem, EvaluationRun, EvaluationVerdict
from legalnav.evaluation.stats import PairedOutcome, clopper_pearson

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

FLUSH_EVERY = 25  # write new embeddings to the index cache this often (an interruption keeps them)


class EvaluationError(ValueError):
    """A run that cannot start: the message says why (unknown mode, no judge, bad gold set)."""


def _output_dir() -> Path:
    return Path(settings.VAR_DIR) / "evaluation"


def evaluation_run_create(
    *,
    name: str,
    gold_set: str,
    modes: list[str],
    k: int = 10,
    user: User | None = None,
    contracts: int | None = 40,
    limit: int | None = None,
    path: str = "",
    answer: bool | None = None,
    answerer: str = "auto",
    judge: list[tuple[str, str]] | None = None,
) -> EvaluationRun:
    """A new run, checked before anything slow happens: the gold set must exist, every mode
    must be one the engine (or the naive floor) knows, and judging needs answers."""
    from legalnav.evaluation.runner import check_mode

    if gold_set not in gold.GOLD_SETS:
        raise EvaluationError(
            f"unknown gold set '{gold_set}'; use one of {', '.join(gold.GOLD_SETS)}"
        )
    if not modes:
        raise EvaluationError("choose at least one mode")
    try:
        modes = [check_mode(m) for m in dict.fromkeys(modes)]
    except ValueError as exc:
        raise EvaluationError(str(exc)) from exc
    if k < 1:
        raise EvaluationError("k must be at least 1")
    if answer is None:
        answer = gold_set in ("qa", "cuad-facts")
    if answerer not in ("auto", "offline", "claude"):
        raise EvaluationError("the answerer is auto, offline or claude")
    pairs = [(a, b) for a, b in (judge or [])]
    for a, b in pairs:
        if a not in modes or b not in modes or a == b:
            raise EvaluationError(f"judge pair {a} vs {b}: both must be distinct modes of the run")
    if pairs and not answer:
        raise EvaluationError("judging compares answers: this gold set has no reference answers")
    from legalnav.llm.prices import PriceCard

    return EvaluationRun.objects.create(
        status=EvaluationRun.Status.QUEUED,
        name=name[:200] or f"{gold_set} {timezone.now():%Y-%m-%d %H:%M}",
        gold_set=gold_set,
        modes=modes,
        k=k,
        created_by=user if getattr(user, "is_authenticated", False) else None,  # type: ignore[misc]
        config={
            "contracts": contracts,
            "limit": limit,
            "path": path,
            "answer": answer,
            "answerer": answerer,
            "judge": [list(p) for p in pairs],
            "price_card": PriceCard.from_settings().as_dict(),
        },
    )


def run_items(run: EvaluationRun) -> list[gold.GoldItem]:
    """The gold questions of a run, loaded again from its stored settings."""
    config = run.config
    return gold.load(
        run.gold_set,
        contracts=config.get("contracts"),
        limit=config.get("limit"),
        path=Path(config["path"]) if config.get("path") else None,
    )


def _answer_provider(run: EvaluationRun):  # type: ignore[no-untyped-def]
    from legalnav.llm.providers import get_provider

    answerer = run.config.get("answerer", "auto")
    if answerer == "offline" or not run.config.get("answer"):
        return None
    provider = get_provider()
    if answerer == "claude" and provider is None:
        raise EvaluationError("answering with Claude needs ANTHROPIC_API_KEY")
    return provider


def _store(run: EvaluationRun, item: gold.GoldItem, mode: str, result: Any) -> EvaluationItem:
    values = {
        "question": item.question,
        "reference": item.reference,
        "out_of_scope": item.out_of_scope,
        "strategy": result.strategy,
        "hits": result.hits,
        "metrics": result.metrics,
        "answer": result.answer,
        "answerer": result.answerer,
        "citations": result.citations,
        "scores": result.scores,
        "payload_chars": result.payload_chars,
        "payload_tokens": result.payload_tokens,
        "footprint_tokens": result.footprint_tokens,
        "dollars": result.dollars,
        "dollars_estimate": result.dollars_estimate,
        "latency_ms": round(result.latency_ms, 2),
        "error": result.error,
    }
    row, _ = EvaluationItem.objects.update_or_create(
        run=run, item_id=item.id, mode=mode, defaults=values
    )
    return row


@dataclass(slots=True)
class Progress:
    done: int = 0
    skipped: int = 0
    errors: int = 0
    judged: int = 0


def _judge_provider(run: EvaluationRun, given: Any) -> Any:  # noqa: ANN401
    if not run.config.get("judge") or given is not None:
        return given
    from legalnav.llm.providers import get_provider

    provider = get_provider()
    if provider is None:
        raise EvaluationError(
            "the judge is Claude: set ANTHROPIC_API_KEY (the judge-free scores need none)"
        )
    return provider


def _claim(run: EvaluationRun, owner: str | None) -> jobs.Lease:
    """Claim the run (a lease renewed at every question): a second process resuming the same
    run at once is refused, and a killed process's run is ended by the sweeper. A finished run
    may be run again (it redoes only the questions that errored)."""
    EvaluationRun.objects.filter(pk=run.pk, status=EvaluationRun.Status.DONE).update(
        status=EvaluationRun.Status.FAILED
    )
    jobs.job_reset(EVALUATION, run.pk, finished_at=None)
    lease = jobs.job_claim(EVALUATION, run.pk, owner=owner or jobs.new_owner("evaluate"))
    if isinstance(lease, jobs.Refusal):
        raise EvaluationError(
            f"run {run.pk} is {lease.status or lease.reason}"
            + (": another process is running it" if lease.reason == "busy" else "")
        )
    return lease


def _run_questions(
    *,
    run: EvaluationRun,
    lease: jobs.Lease,
    bench: Any,  # noqa: ANN401
    items: list[gold.GoldItem],
    evaluate: Callable[..., Any],
    progress: Progress,
    say: Callable[[str], None],
    provider: Any,  # noqa: ANN401
) -> None:
    """Every (question, mode) not yet done, stored as it finishes."""
    from legalnav.llm.prices import PriceCard

    card = PriceCard.from_dict(run.config["price_card"]) if run.config.get("price_card") else None
    done = set(EvaluationItem.objects.filter(run=run, error="").values_list("item_id", "mode"))
    total = len(items) * len(run.modes)
    for item in items:
        for mode in run.modes:
            if (item.id, mode) in done:
                progress.skipped += 1
                continue
            lease.check()  # stops here once the run is cancelled
            result = evaluate(
                bench,
                item,
                mode,
                k=run.k,
                answer=bool(run.config.get("answer")),
                provider=provider,
                card=card,
            )
            _store(run, item, mode, result)
            progress.done += 1
            progress.errors += bool(result.error)
            if progress.done % FLUSH_EVERY == 0:
                bench.flush()
                say(
                    f"{progress.done + progress.skipped}/{total} done"
                    f" ({progress.skipped} from before, {progress.errors} errors)"
                )
    bench.flush()


def evaluation_run_execute(
    *,
    run: EvaluationRun,
    bench: Any = None,
    items: list[gold.GoldItem] | None = None,
    evaluate: Callable[..., Any] | None = None,
    judge_provider: Any = None,
    report: Callable[[str], None] | None = None,
    owner: str | None = None,
) -> Progress:
    """Run (or resume) a run: every (question, mode) not yet done, then the judged pairs, then
    the summary and the JSON file. An interruption (Ctrl-C, a killed worker) leaves the run
    "interrupted" with everything finished so far stored; run it again to complete it."""
    from legalnav.evaluation.runner import Workbench, evaluate_item

    items = items if items is not None else run_items(run)
    progress = Progress()
    say = report or (lambda _msg: None)
    provider = _answer_provider(run)
    judge_provider = _judge_provider(run, judge_provider)
    lease = _claim(run, owner)
    lease.start_heartbeat()
    try:
        if bench is None:
            cache_dir = Path(
                run.config.get("cache_dir") or Path(settings.VAR_DIR) / "retrieve-cache"
            )
            bench = Workbench(cache_dir=cache_dir)
        _run_questions(
            run=run,
            lease=lease,
            bench=bench,
            items=items,
            evaluate=evaluate or evaluate_item,
            progress=progress,
            say=say,
            provider=provider,
        )
        for a, b in run.config.get("judge", []):
            progress.judged += _judge_pairs(run, a, b, judge_provider, say)
    except jobs.JobLost:
        if bench is not None:
            bench.flush()
        _finish(run, lease, None, "")  # cancelled: keep the status, summarise what was done
        return progress
    except KeyboardInterrupt:
        if bench is not None:
            bench.flush()
        _finish(run, lease, EvaluationRun.Status.INTERRUPTED, "interrupted; run it again to resume")
        raise
    except Exception as exc:
        _finish(run, lease, EvaluationRun.Status.FAILED, f"{exc.__class__.__name__}: {exc}")
        raise
    finally:
        lease.stop_heartbeat()
    _finish(run, lease, EvaluationRun.Status.DONE, "")
    return progress


EVALUATION = EVALUATION_JOB


def evaluation_run_job(
    run_id: int, owner: str, reraise: tuple[type[BaseException], ...] = ()
) -> str:
    """The job a worker runs when a run is started or resumed from a page, the API or MCP."""
    run = EvaluationRun.objects.filter(pk=run_id).first()
    if run is None:
        return "gone"
    if run.status not in (EvaluationRun.Status.QUEUED, EvaluationRun.Status.RUNNING):
        return "final"
    try:
        evaluation_run_execute(run=run, owner=owner)
    except (EvaluationError, gold.GoldError) as exc:
        # Refused before any work (busy elsewhere, or a gold set missing on this machine).
        EvaluationRun.objects.filter(pk=run_id, status=EvaluationRun.Status.QUEUED).update(
            status=EvaluationRun.Status.FAILED, error_message=str(exc), updated_at=timezone.now()
        )
    except reraise:
        raise
    except Exception:  # already marked failed by evaluation_run_execute, with the reason
        logger.exception("evaluation run %s failed", run_id)
    status = EvaluationRun.objects.filter(pk=run_id).values_list("status", flat=True).first()
    return status or "gone"


def evaluation_run_retry(*, run: EvaluationRun) -> bool:
    """Resume an interrupted, failed, cancelled or stalled run in the background."""
    return jobs.job_retry(EVALUATION, run.pk, finished_at=None)


def evaluation_run_cancel(*, run: EvaluationRun, by: str = "") -> bool:
    return jobs.job_cancel(EVALUATION, run.pk, by=by)


def _judge_pairs(run: EvaluationRun, a: str, b: str, provider: Any, say: Callable) -> int:
    from legalnav.evaluation.judge import judge_pair

    answers: dict[str, dict[str, EvaluationItem]] = defaultdict(dict)
    for row in EvaluationItem.objects.filter(run=run, mode__in=[a, b], error=""):
        answers[row.item_id][row.mode] = row
    judged = set(
        EvaluationVerdict.objects.filter(run=run, mode_a=a, mode_b=b).values_list(
            "item_id", flat=True
        )
    )
    count = 0
    for item_id, pair in answers.items():
        if item_id in judged or a not in pair or b not in pair:
            continue
        first = pair[a]
        verdict = judge_pair(
            provider=provider,
            question=first.question,
            reference=first.reference,
            answer_a=pair[a].answer,
            answer_b=pair[b].answer,
        )
        try:
            EvaluationVerdict.objects.create(
                run=run,
                item_id=item_id,
                mode_a=a,
                mode_b=b,
                outcome=verdict.outcome,
                reason=verdict.reason[:200],
                forward=verdict.as_dict()["forward"],
                reverse=verdict.as_dict()["reverse"],
                dollars=verdict.dollars,
            )
        except IntegrityError:
            continue  # another process judged it meanwhile
        count += 1
        say(f"judged {item_id}: {a} vs {b} -> {verdict.outcome}")
    return count


def _finish(run: EvaluationRun, lease: jobs.Lease, status: str | None, message: str) -> None:
    """Summarise and export the run; set ``status`` only while ``lease`` still holds it (a
    cancelled run keeps "cancelled" and gets the summary of what was done)."""
    run.refresh_from_db()
    summary = run_summarise(run=run)
    path = Path(run.output_path) if run.output_path else _output_dir() / f"run-{run.pk}.json"
    fields: dict[str, Any] = {"summary": summary, "output_path": str(path)}
    if status is not None:
        fields.update(
            status=status,
            error_message=message,
            finished_at=timezone.now() if status == EvaluationRun.Status.DONE else None,
            lease_owner="",
            lease_expires_at=None,
        )
        if not lease.update(**fields):
            status = None
    if status is None:
        EvaluationRun.objects.filter(pk=run.pk).update(
            summary=summary, output_path=str(path), updated_at=timezone.now()
        )
    run.refresh_from_db()
    try:
        run_export(run=run, path=path)
    except OSError:
        logger.exception("could not write %s", path)


# --- summary -----------------------------------------------------------------------------


def _rate(flags: Iterable[bool]) -> dict[str, object]:
    values = list(flags)
    return clopper_pearson(sum(values), len(values)).as_dict()


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.fmean(vals), 4) if vals else None


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def _level_keys(ks: tuple[int, ...], *extra: str) -> frozenset[str]:
    from legalnav.evaluation.metrics import ranking_metrics

    return frozenset(ranking_metrics([], 1, ks)) | frozenset(extra)


# The metrics every question has at each level (a failed question counts zero on each).
_LEVEL_KEYS = {
    "span": _level_keys((1, 5, 10), "coverage"),
    "node": _level_keys((1, 5, 10)),
    "document": _level_keys((1, 10, 100), "average_precision"),
}


def primary_level(gold_set: str) -> str:
    return "document" if gold_set == "aila" else "span"


def _level_summary(rows: list[EvaluationItem], level: str, count_errors: bool) -> dict[str, Any]:
    """Rates with intervals and means for one level, over the questions that have gold at
    this level. Out-of-scope controls have none and are left out; on the run's primary level a
    question that failed counts as a miss (zero on every metric)."""
    entries = []
    for r in rows:
        measured = r.metrics.get(level)
        if measured:
            entries.append(measured)
        elif r.error and count_errors and not r.out_of_scope:
            entries.append({})
    if not entries:
        return {}
    keys = sorted(
        {key for m in entries for key in m if isinstance(m.get(key), int | float)}
        | _LEVEL_KEYS[level]
    )
    out: dict[str, Any] = {"n": len(entries)}
    for key in keys:
        values = [float(m.get(key, 0.0)) for m in entries]
        if key.startswith("hit@"):
            out[key] = _rate(v >= 1.0 for v in values)
        else:
            out[key] = round(statistics.fmean(values), 4)
    return out


def _answer_summary(rows: list[EvaluationItem]) -> dict[str, Any]:
    scored = [r for r in rows if r.scores]
    if not scored:
        return {}
    inside = [r for r in scored if not r.out_of_scope]
    controls = [r for r in scored if r.out_of_scope]
    facts = [
        r.scores["key_facts"] for r in inside if (r.scores.get("key_facts") or {}).get("total")
    ]
    cited = [r for r in scored if r.scores.get("citations_ok") is not None]
    contains = [r for r in scored if r.scores.get("contains_all") is not None]
    claims = [r for r in scored if r.scores.get("claims_none") is not None]
    levels: dict[str, int] = {}
    for r in scored:
        for verdict, count in ((r.citations or {}).get("levels") or {}).items():
            levels[verdict] = levels.get(verdict, 0) + count
    return {
        "n": len(scored),
        # Every citation the answers made, by verdict; "failing" must be 0 for the offline
        # answerer (it quotes only what it was given).
        "citation_levels": levels,
        "citations_produced": sum(v for k, v in levels.items() if k != "uncited"),
        "citations_failing": levels.get("quote_not_found", 0) + levels.get("no_such_provision", 0),
        "in_scope": {
            "n": len(inside),
            "key_fact_score": _mean(f["score"] for f in facts),
            "questions_with_key_facts": len(facts),
            "all_key_facts": _rate(f["score"] == 1.0 for f in facts),
            "false_declination": _rate(r.scores.get("declined", False) for r in inside),
        },
        "controls": {
            "n": len(controls),
            "declined_correctly": _rate(r.scores.get("declined", False) for r in controls),
        },
        "must_contain_all": _rate(r.scores["contains_all"] for r in contains),
        "must_not_claim_violated": _rate(not r.scores["claims_none"] for r in claims),
        "citations_valid": _rate(r.scores["citations_ok"] for r in cited),
        "answers_citing": _rate(r.scores.get("citations_ok") is not None for r in inside),
    }


def run_summarise(*, run: EvaluationRun) -> dict[str, Any]:
    """Every mode's metrics with exact 95% intervals, judge-free answer scores (controls apart),
    cost and latency, paired comparisons against the first mode, and the judged pairs."""
    rows = list(EvaluationItem.objects.filter(run=run))
    by_mode: dict[str, list[EvaluationItem]] = defaultdict(list)
    for r in rows:
        by_mode[r.mode].append(r)
    primary = primary_level(run.gold_set)
    modes: dict[str, Any] = {}
    for mode in run.modes:
        items = by_mode.get(mode, [])
        if not items:
            continue
        latency = [r.latency_ms for r in items if not r.error]
        entry: dict[str, Any] = {
            "n": len(items),
            "errors": sum(1 for r in items if r.error),
            "strategy": next((r.strategy for r in items if r.strategy), ""),
            "footprint_share": _mean(r.metrics.get("footprint") for r in items),
            "payload_chars": _mean(r.payload_chars for r in items if not r.error),
            "payload_tokens": _mean(r.payload_tokens for r in items if not r.error),
            "footprint_tokens": _mean(r.footprint_tokens for r in items if not r.error),
            "dollars_per_query_estimate": _mean(
                float(r.dollars_estimate) for r in items if not r.error
            ),
            "dollars_billed": str(sum((r.dollars for r in items), Decimal(0))),
            "latency_ms": {"p50": _pct(latency, 0.5), "p95": _pct(latency, 0.95)},
        }
        for level in ("span", "node", "document"):
            found = _level_summary(items, level, count_errors=level == primary)
            if found:
                entry[level] = found
        answers = _answer_summary(items)
        if answers:
            entry["answers"] = answers
        modes[mode] = entry
    summary: dict[str, Any] = {
        "gold_set": run.gold_set,
        "questions": len({r.item_id for r in rows}),
        # The clause-topic models navembed ranks with that were trained on documents this run
        # scores: its figures are then in-sample (legalnav.evaluation.splits).
        "in_sample": splits.in_sample(
            splits.scored_documents(r.item_id for r in rows), among="retrieval/topic_models/"
        ),
        "modes": modes,
        "paired": _paired(run, by_mode, primary),
        "judged": _judged(run),
    }
    return summary


def _paired(
    run: EvaluationRun, by_mode: dict[str, list[EvaluationItem]], level: str
) -> dict[str, Any]:
    """Each mode against the run's first mode on the same questions: how often one finds the
    gold in the top 1 / top k and the other does not (the exact McNemar test on those)."""
    if len(run.modes) < 2 or run.modes[0] not in by_mode:
        return {}
    base = run.modes[0]

    def hits(mode: str, key: str) -> dict[str, bool]:
        return {
            r.item_id: float((r.metrics.get(level) or {}).get(key, 0.0)) >= 1.0
            for r in by_mode.get(mode, [])
        }

    out: dict[str, Any] = {}
    keys = ["hit@1", f"hit@{10 if level == 'span' else 100}"]
    for mode in run.modes[1:]:
        entry = {}
        for key in keys:
            a, b = hits(mode, key), hits(base, key)
            common = a.keys() & b.keys()
            wins = sum(1 for i in common if a[i] and not b[i])
            losses = sum(1 for i in common if b[i] and not a[i])
            entry[key] = PairedOutcome(wins, losses, len(common) - wins - losses).as_dict()
        out[f"{mode} vs {base}"] = entry
    return out


def _judged(run: EvaluationRun) -> dict[str, Any]:
    verdicts = list(EvaluationVerdict.objects.filter(run=run))
    if not verdicts:
        return {}
    controls = set(
        EvaluationItem.objects.filter(run=run, out_of_scope=True).values_list("item_id", flat=True)
    )
    groups: dict[tuple[str, str], list[EvaluationVerdict]] = defaultdict(list)
    for v in verdicts:
        groups[(v.mode_a, v.mode_b)].append(v)
    out: dict[str, Any] = {}
    for (a, b), found in groups.items():

        def outcome(vs: list[EvaluationVerdict]) -> dict[str, object]:
            return PairedOutcome(
                wins=sum(1 for v in vs if v.outcome == "a"),
                losses=sum(1 for v in vs if v.outcome == "b"),
                ties=sum(1 for v in vs if v.outcome == "tie"),
            ).as_dict()

        out[f"{a} vs {b}"] = {
            "mode_a": a,
            "mode_b": b,
            "in_scope": outcome([v for v in found if v.item_id not in controls]),
            "controls": outcome([v for v in found if v.item_id in controls]),
            "order_disagreements": sum(1 for v in found if "disagree" in v.reason),
            "hedged": sum(1 for v in found if "hedged" in v.reason),
            "judge_dollars": str(sum((v.dollars for v in found), Decimal(0))),
        }
    return out


# --- export --------------------------------------------------------------------------------


def run_export(*, run: EvaluationRun, path: Path) -> Path:
    """The whole run as one JSON file: settings, summary, every result and every verdict."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "run": {
            "id": run.pk,
            "name": run.name,
            "gold_set": run.gold_set,
            "modes": run.modes,
            "k": run.k,
            "config": run.config,
            "status": run.status,
            "created_at": run.created_at.isoformat() if run.created_at else None,
            "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        },
        "summary": run.summary,
        "items": [
            {
                "item_id": r.item_id,
                "mode": r.mode,
                "strategy": r.strategy,
                "question": r.question,
                "reference": r.reference,
                "out_of_scope": r.out_of_scope,
                "hits": r.hits,
                "metrics": r.metrics,
                "answer": r.answer,
                "answerer": r.answerer,
                "citations": r.citations,
                "scores": r.scores,
                "payload_chars": r.payload_chars,
                "payload_tokens": r.payload_tokens,
                "footprint_tokens": r.footprint_tokens,
                "dollars": str(r.dollars),
                "dollars_estimate": str(r.dollars_estimate),
                "latency_ms": r.latency_ms,
                "error": r.error,
            }
            for r in EvaluationItem.objects.filter(run=run).order_by("item_id", "mode")
        ],
        "verdicts": [
            {
                "item_id": v.item_id,
                "mode_a": v.mode_a,
                "mode_b": v.mode_b,
                "outcome": v.outcome,
                "reason": v.reason,
                "forward": v.forward,
                "reverse": v.reverse,
                "dollars": str(v.dollars),
            }
            for v in EvaluationVerdict.objects.filter(run=run).order_by("item_id")
        ],
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)
    return path
