"""``manage.py evaluate``: a gold set through chosen modes, stored as a run (database and JSON).

    manage.py evaluate cuad --modes navembed:bm25 navembed:dense navembed navindex inject naive:bm25
    manage.py evaluate contractnli --limit 300 --modes navembed navembed:bm25
    manage.py evaluate cuad-facts --modes navembed navindex          # offline answers, key facts
    manage.py evaluate qa --modes inject navembed --judge inject:navembed   # Claude judge
    manage.py evaluate --run 12                                     # resume run 12

Interrupted (Ctrl-C, a killed process), a run keeps every result it finished; ``--run ID``
completes it without redoing them.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.evaluation import gold
from legalnav.evaluation.actions import evaluation_retry, evaluation_start
from legalnav.evaluation.models import EvaluationRun
from legalnav.evaluation.runner import DEFAULT_MODES
from legalnav.evaluation.services import EvaluationError, evaluation_run_execute


def _pair(raw: str) -> tuple[str, str]:
    a, sep, b = raw.partition(",") if "," in raw else raw.rpartition(":")
    # "inject:navembed" is a pair; "navembed:bm25,inject" (a strategy with a colon) uses a comma.
    if not sep or not a or not b:
        raise CommandError(f"--judge takes A,B (or A:B): {raw!r}")
    return a, b


class Command(BaseCommand):
    help = "Run a gold set through retrieval modes (and answers, and the judge); resumable."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("gold_set", nargs="?", choices=gold.GOLD_SETS)
        parser.add_argument("--modes", nargs="+", default=None, help="Modes to run.")
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument(
            "--contracts", type=int, default=40, help="CUAD: contracts in the sample."
        )
        parser.add_argument("--limit", type=int, default=None, help="At most this many questions.")
        parser.add_argument("--path", default="", help="qa: a JSONL file other than the default.")
        parser.add_argument("--name", default="")
        parser.add_argument(
            "--user",
            default="",
            help="Username recorded as the run's creator (and, resuming, in the audit trail).",
        )
        parser.add_argument(
            "--answer", action="store_true", default=None, help="Answer and score answers."
        )
        parser.add_argument("--answerer", choices=["auto", "offline", "claude"], default="auto")
        parser.add_argument(
            "--judge",
            action="append",
            default=[],
            metavar="A,B",
            help="Judge mode A's answers against mode B's (Claude, both orders).",
        )
        parser.add_argument("--run", type=int, default=None, help="Resume this run.")
        parser.add_argument(
            "--out", default="", help="JSON file (default var/evaluation/run-N.json)."
        )
        parser.add_argument("--json", action="store_true", help="Print the summary as JSON.")

    def handle(self, *args: object, **opts: object) -> None:
        user = None
        if opts["user"]:
            user = get_user_model().objects.filter(username=opts["user"]).first()
            if user is None:
                raise CommandError(f"No user {opts['user']!r}.")
        if opts["run"] is not None:
            run = EvaluationRun.objects.filter(pk=int(str(opts["run"]))).first()
            if run is None:
                raise CommandError(f"There is no run {opts['run']}.")
            if not evaluation_retry(run=run, user=user, via="command", here=True):
                raise CommandError(f"run {run.pk} is running: another process is running it")
            self.stderr.write(f"resuming run {run.pk} ({run.name}), {run.status}")
        else:
            if not opts["gold_set"]:
                raise CommandError(
                    "Name a gold set (cuad, cuad-facts, contractnli, qa, aila) or --run."
                )
            try:
                run = evaluation_start(
                    user=user,
                    via="command",
                    name=str(opts["name"]),
                    gold_set=str(opts["gold_set"]),
                    modes=list(opts["modes"] or DEFAULT_MODES),  # type: ignore[call-overload]
                    k=int(opts["k"]),  # type: ignore[call-overload]
                    contracts=opts["contracts"],  # type: ignore[arg-type]
                    limit=opts["limit"],  # type: ignore[arg-type]
                    path=str(Path(str(opts["path"])).resolve()) if opts["path"] else "",
                    answer=opts["answer"],  # type: ignore[arg-type]
                    answerer=str(opts["answerer"]),
                    judge=[_pair(str(p)) for p in opts["judge"]],  # type: ignore[attr-defined]
                )
            except (EvaluationError, gold.GoldError) as exc:
                raise CommandError(str(exc)) from exc
            self.stderr.write(f"run {run.pk}: {run.gold_set}, modes {', '.join(run.modes)}")
        if opts["out"]:
            run.output_path = str(Path(str(opts["out"])).resolve())
            run.save(update_fields=["output_path"])
        # A terminated process (kill, a container stopping) stops like Ctrl-C: the run is marked
        # interrupted, new embeddings are flushed to the cache, and the JSON is written.
        previous = signal.signal(signal.SIGTERM, _interrupt)
        try:
            progress = evaluation_run_execute(run=run, report=self.stderr.write)
        except KeyboardInterrupt:
            raise CommandError(
                f"Interrupted. Everything finished is stored; resume with: manage.py evaluate --run {run.pk}"
            ) from None
        except (EvaluationError, gold.GoldError) as exc:
            raise CommandError(str(exc)) from exc
        finally:
            signal.signal(signal.SIGTERM, previous)
        run.refresh_from_db()
        self.stderr.write(
            f"run {run.pk} {run.status}: {progress.done} computed, {progress.skipped} kept from "
            f"before, {progress.errors} errors, {progress.judged} pairs judged -> {run.output_path}"
        )
        if opts["json"]:
            self.stdout.write(json.dumps(run.summary, indent=2))
        else:
            self.stdout.write(format_summary(run.summary))
        sys.stdout.flush()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _cell(rate: object) -> str:
    if not isinstance(rate, dict) or not rate.get("n"):
        return "–"
    return f"{rate['rate']:.3f} [{rate['low']:.2f},{rate['high']:.2f}]"


def format_summary(summary: dict) -> str:
    """The run's summary as plain-text tables: retrieval per mode, then answers, then judge."""
    lines = []
    modes = summary.get("modes", {})
    for level in ("span", "node", "document"):
        rows = [(m, s[level]) for m, s in modes.items() if level in s]
        if not rows:
            continue
        ks = ["hit@1", "hit@5", "hit@10"] if level != "document" else ["hit@1", "hit@10", "hit@100"]
        mrr = "mrr@10" if level != "document" else "mrr@100"
        lines.append(
            f"\n{level} level ({summary.get('questions', 0)} questions; hit@k = R@k, 95% Clopper–Pearson)"
        )
        header = (
            f"{'mode':<22}{'n':>6}"
            + "".join(f"{k:>22}" for k in ks)
            + f"{mrr:>8}{'nDCG@10':>9}{'R@10':>7}{'P@10':>7}{'cover':>7}{'share':>7}{'tokens':>9}{'$/q':>10}{'p50 ms':>8}"
        )
        lines.append(header)
        for mode, m in rows:
            s = modes[mode]
            ndcg = m.get("ndcg@10", m.get("ndcg@100"))
            lines.append(
                f"{mode:<22}{m['n']:>6}"
                + "".join(f"{_cell(m.get(k)):>22}" for k in ks)
                + f"{m.get(mrr, 0):>8.3f}{(ndcg or 0):>9.3f}{m.get('recall@10', 0):>7.3f}"
                f"{m.get('precision@10', 0):>7.3f}"
                + (f"{m['coverage']:>7.3f}" if "coverage" in m else f"{'–':>7}")
                + f"{s.get('footprint_share') or 0:>7.3f}{s.get('payload_tokens') or 0:>9.0f}"
                f"{s.get('dollars_per_query_estimate') or 0:>10.5f}{s['latency_ms']['p50'] or 0:>8.0f}"
            )
    answered = [(m, s["answers"]) for m, s in modes.items() if "answers" in s]
    if answered:
        lines.append("\nanswers (judge-free; controls reported apart)")
        lines.append(
            f"{'mode':<22}{'key facts':>10}{'all facts':>22}{'false decline':>22}{'controls declined':>22}{'citations ok':>22}"
        )
        for mode, a in answered:
            lines.append(
                f"{mode:<22}{(a['in_scope']['key_fact_score'] or 0):>10.3f}"
                f"{_cell(a['in_scope']['all_key_facts']):>22}{_cell(a['in_scope']['false_declination']):>22}"
                f"{_cell(a['controls']['declined_correctly']):>22}{_cell(a['citations_valid']):>22}"
            )
    for pair, j in (summary.get("judged") or {}).items():
        s = j["in_scope"]
        lines.append(
            f"\njudged {pair}: A {s['a_wins']}, B {s['b_wins']}, ties {s['ties']} of {s['n']} "
            f"(tie rate {_cell(s['tie_rate'])}, binomial p = {s['binomial_p']}); controls "
            f"{j['controls']['a_wins']}/{j['controls']['b_wins']}/{j['controls']['ties']}; "
            f"judge ${j['judge_dollars']}"
        )
    return "\n".join(lines)
