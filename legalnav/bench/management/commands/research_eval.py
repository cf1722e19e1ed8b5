"""Measure precedent research: manage.py research_eval aila|stance|routing|latency [--json].

- aila: prior-case retrieval on the AILA 2019 dev queries (MAP, P@10, Recall@100, MRR) for
  BM25-only, dense-only and hybrid, over the index cache (vectors are never embedded here:
  the cache must already hold them for the dense modes);
- stance: the offline classifier on LegalBench's overruling sentences and on the silver UK
  treatment sentences, plus the hand-checked sample of those (how noisy the silver labels are);
- routing: the offline router (and, with --claude, Claude) on the gold routing files;
- latency: a simple and a deep question, offline, on a research matter (cold, then warm);
- citations: every AILA dev query answered offline on a research matter (--matter): the
  citations produced, their verdicts, and how many the validator had to remove (target 0).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.bench import research_eval as evaluate
from legalnav.research.router import route_offline
from legalnav.research.stance import overrules, sentence_polarity

DATA = Path(settings.DATA_DIR)
GOLD = evaluate.GOLD_DIR
SIMPLE_QUESTION = "Which cases mention a dying declaration?"
DEEP_QUESTION = (
    "My client, the accused, was convicted of murder on the strength of a dying declaration. "
    "Find precedents supporting an argument that the conviction cannot rest on the dying "
    "declaration alone, and the authorities against us."
)


class Command(BaseCommand):
    help = "Measure precedent research (retrieval, stance, routing, latency)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "what",
            choices=[
                "aila",
                "stance",
                "routing",
                "reading",
                "aila-stance",
                "stance-sets",
                "latency",
                "citations",
            ],
        )
        parser.add_argument(
            "--set",
            default="tune",
            choices=["old", "tune", "spent", "all-tune", "blind"],
            help="stance-sets: which hand-labelled set (tune, spent, all-tune: tuned on; blind: the fourth set, 2026-12-05c, scored once and spent since).",
        )
        parser.add_argument(
            "--words",
            action="store_true",
            help="stance-sets: match holdings by shared words instead of embeddings.",
        )
        parser.add_argument(
            "--split",
            default="score",
            choices=["tune", "score", "all"],
            help="reading: which half of the gold research questions.",
        )
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--data", default=str(DATA), help="The shared data folder.")
        parser.add_argument(
            "--modes", default="bm25,dense,hybrid", help="aila: comma-separated modes."
        )
        parser.add_argument(
            "--cache",
            default=str(Path(settings.VAR_DIR) / "retrieve-cache"),
            help="aila: the index cache holding the case documents' passages and vectors.",
        )
        parser.add_argument(
            "--engine", action="store_true", help="aila: also the engine's document ranking."
        )
        parser.add_argument("--matter", default="", help="latency: the research matter.")
        parser.add_argument("--repeat", type=int, default=3, help="latency: warm repetitions.")
        parser.add_argument(
            "--routes", default="simple,deep", help="latency: which questions (simple, deep)."
        )

    def handle(self, *args: object, **opts: object) -> None:
        what = str(opts["what"])
        data = Path(str(opts["data"]))
        result = getattr(self, f"_{what.replace('-', '_')}")(data, opts)
        if opts["json"]:
            self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False, default=str))
        else:
            self.stdout.write(_plain(result))

    def _aila(self, data: Path, opts: dict[str, object]) -> dict[str, object]:
        dev = evaluate.aila_dev(data / "judgments" / "aila2019")
        modes = [m.strip() for m in str(opts["modes"]).split(",") if m.strip()]
        try:
            return evaluate.aila_rankings(
                dev, modes=modes, cache_folder=Path(str(opts["cache"])), engine=bool(opts["engine"])
            )
        except RuntimeError as exc:
            raise CommandError(str(exc)) from exc

    def _stance(self, data: Path, opts: dict[str, object]) -> dict[str, object]:
        rows = evaluate.overruling_rows(data / "overruling" / "train.tsv")
        gold = [label for label, _ in rows]
        predicted = ["Yes" if overrules(text) else "No" for _, text in rows]
        overruling = evaluate.label_scores(gold, predicted, ["Yes", "No"]).as_dict()
        silver_path = data / "judgments" / "uk-ewca-civ-2020" / "silver_treatment_sentences.jsonl"
        silver = evaluate.silver_rows(silver_path)
        labels = ["supporting", "adverse", "mixed"]
        silver_gold = [str(r["silver_polarity"]) for r in silver]
        silver_pred = [sentence_polarity(str(r["sentence"])) for r in silver]
        against_silver = evaluate.label_scores(silver_gold, silver_pred, labels + ["neutral"])
        two = [
            (g, p)
            for g, p in zip(silver_gold, silver_pred, strict=True)
            if g in ("supporting", "adverse")
        ]
        two_class = evaluate.label_scores(
            [g for g, _ in two], [p for _, p in two], ["supporting", "adverse", "neutral"]
        )
        checked = [
            json.loads(line)
            for line in (GOLD / "silver_handcheck.jsonl").read_text(encoding="utf-8").splitlines()
            if line
        ]
        hand = [c["hand"] for c in checked]
        silver_on_sample = [c["silver"] for c in checked]
        mine_on_sample = [sentence_polarity(str(silver[c["line"]]["sentence"])) for c in checked]
        return {
            "overruling_train_tsv": overruling,
            "silver_uk_vs_silver_labels": against_silver.as_dict(),
            "silver_uk_supporting_or_adverse_only": two_class.as_dict(),
            "hand_checked_sample": {
                "n": len(checked),
                "silver_agrees_with_hand": evaluate.label_scores(
                    hand, silver_on_sample, ["supporting", "adverse", "neutral", "mixed"]
                ).accuracy,
                "classifier_vs_hand": evaluate.label_scores(
                    hand, mine_on_sample, ["supporting", "adverse", "neutral"]
                ).as_dict(),
            },
        }

    def _reading(self, data: Path, opts: dict[str, object]) -> dict[str, object]:
        return evaluate.reading_scores(str(opts["split"]))

    def _aila_stance(self, data: Path, opts: dict[str, object]) -> dict[str, object]:
        return evaluate.aila_stance_scores(data / "judgments" / "aila2019")

    def _stance_sets(self, data: Path, opts: dict[str, object]) -> dict[str, object]:
        embedder = None
        if not opts["words"]:
            from legalnav.retrieval.embeddings import get_embedder

            embedder = get_embedder()
        return evaluate.stance_set_scores(str(opts["set"]), data / "judgments", embedder=embedder)

    def _routing(self, data: Path, opts: dict[str, object]) -> dict[str, object]:
        out: dict[str, object] = {}
        for name in ("routing.jsonl", "routing_heldout.jsonl"):
            gold = evaluate.routing_gold(GOLD / name)
            wrong = []
            for g in gold:
                got = route_offline(g["question"])
                if got.route != g["route"]:
                    wrong.append({"id": g["id"], "gold": g["route"], "got": got.route})
            out[name] = {
                "n": len(gold),
                "accuracy": round(1 - len(wrong) / len(gold), 4),
                "by_route": {
                    r: sum(1 for g in gold if g["route"] == r)
                    for r in ("simple", "clarify", "deep")
                },
                "wrong": wrong,
            }
        return out

    def _research_matter(self, opts: dict[str, object]):  # type: ignore[no-untyped-def]
        from legalnav.matters.models import Matter

        ref = str(opts["matter"])
        matter = (
            Matter.objects.filter(pk=int(ref)).first()
            if ref.isdigit()
            else Matter.objects.filter(name=ref).first()
        )
        if matter is None or matter.kind != Matter.Kind.RESEARCH:
            raise CommandError("--matter must name a research matter.")
        return matter

    def _citations(self, data: Path, opts: dict[str, object]) -> dict[str, object]:
        from legalnav.answers.models import Citation
        from legalnav.answers.services import query_answer, query_create

        matter = self._research_matter(opts)
        lines = (data / "judgments" / "aila2019" / "queries_dev.txt").read_text("utf-8")
        queries = [ln.split("||", 1) for ln in lines.splitlines() if "||" in ln]
        levels: dict[str, int] = {}
        answered = removed = uncited = 0
        for _qid, text in queries:
            query = query_create(
                matter=matter, user=None, question=text.strip()[:20_000], enqueue=False
            )
            done = query_answer(query_id=query.pk)
            if done is None or done.status != "answered":
                continue
            answered += 1
            for c in Citation.objects.filter(answer__question=done):
                if c.problem.startswith("removed:"):
                    removed += 1
                else:
                    levels[c.verdict] = levels.get(c.verdict, 0) + 1
            validation = done.answer.validation
            uncited += len(validation.get("uncited", [])) + len(validation.get("unbound", []))
        produced = sum(levels.values()) + removed
        failing = levels.get("quote_not_found", 0) + levels.get("no_such_provision", 0)
        return {
            "matter": matter.name,
            "queries": len(queries),
            "answered": answered,
            "citations_produced": produced,
            "levels": levels,
            "failing_after_validation": failing,
            "removed_by_validator": removed,
            "uncited_statements": uncited,
        }

    def _latency(self, data: Path, opts: dict[str, object]) -> dict[str, object]:
        from legalnav.answers.models import Question
        from legalnav.answers.services import query_answer, query_create

        matter = self._research_matter(opts)
        if settings.ANTHROPIC_API_KEY:
            raise CommandError("latency is measured offline: unset ANTHROPIC_API_KEY.")
        out: dict[str, object] = {"matter": matter.name, "judgments": matter.documents.count()}
        wanted = {r.strip() for r in str(opts["routes"]).split(",")}
        for label, question in (("simple", SIMPLE_QUESTION), ("deep", DEEP_QUESTION)):
            if label not in wanted:
                continue
            times = []
            steps: dict[str, int] = {}
            route = ""
            for _ in range(1 + int(opts["repeat"])):  # type: ignore[call-overload]
                query = query_create(matter=matter, user=None, question=question, enqueue=False)
                started = time.perf_counter()
                answered = query_answer(query_id=query.pk)
                times.append(round((time.perf_counter() - started) * 1000))
                if answered is None or answered.status != Question.Status.ANSWERED:
                    raise CommandError(
                        f"{label} question failed: {getattr(answered, 'error_message', '')}"
                    )
                steps = {s.name: s.ms for s in answered.research.steps.all()}
                route = answered.research.route
            warm = sorted(times[1:]) or times
            out[label] = {
                "route": route,
                "cold_ms": times[0],
                "warm_ms_median": warm[len(warm) // 2],
                "warm_ms": times[1:],
                "last_run_steps_ms": steps,
            }
        return out


def _plain(result: dict[str, object], indent: str = "") -> str:
    lines = []
    for key, value in result.items():
        if isinstance(value, dict):
            lines.append(f"{indent}{key}:")
            lines.append(_plain(value, indent + "  "))
        else:
            lines.append(f"{indent}{key}: {value}")
    return "\n".join(lines)
