#!/usr/bin/env python
"""Judgment-level precedent ranking (issue 15): a larger check than AILA dev, the weights chosen
on it by cross-validation, and the figures through the measurement door.

    .venv/bin/python scripts/eval_precedent.py build   # writes the citation check's gold
    .venv/bin/python scripts/eval_precedent.py fit     # evidence in-process, 5-fold CV
    .venv/bin/python scripts/eval_precedent.py door    # final figures via manage.py retrieve

The citation check ("AILA citations") is built from the public AILA 2019 case documents only,
the way AILA built its own prior-case task: a case document that cites other case documents is a
query, its opening paragraphs (the facts, up to QUERY_CHARS characters) are the question, with
every sentence that cites a case or a law report removed, and the case documents it cites are
the relevant judgments. A citation is linked to a case document when the cited name matches the
document's case name (``names_match``, strict) and the report's year is within one year of the
decision; a citation matching several documents is dropped (judgments.citation_links, the same
linking the ranking's ``cited_by`` evidence uses). The gold (citing document -> cited documents)
is written to legalnav/evaluation/gold/aila_citations.jsonl; the questions are cut from the case
documents at run time. The check draws 300 citing documents (fixed seed) and ranks every other
case document for them: no question's own judgment is in its corpus, nor are its citations
counted in ``cited_by`` (as in AILA, whose query judgments are not among the case documents).

``fit`` gathers the evidence of research/ranking.py for each question once (cached under var/),
then chooses weights by coordinate ascent on MAP over the training folds and scores the held-out
fold (5 folds), printing each fold's figures; the weights fitted on all the check's questions
are the ones to put in ranking.WEIGHTS. AILA dev Q1-Q10 is scored with them but never used to
choose them. ``door`` runs whole-judgment BM25 (navembed:judgment-bm25), the best-passage
ranking of before (navembed:convex) and the new default (navembed) through one
``manage.py retrieve --json`` process over all 2,914 case documents (unit document, k 100).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from legalnav.bench.research_eval import aila_dev, retrieval_metrics  # noqa: E402
from legalnav.research.judgments import paragraphs, sentences  # noqa: E402

AILA = Path(settings.DATA_DIR) / "judgments" / "aila2019"
GOLD = REPO / "legalnav" / "evaluation" / "gold" / "aila_citations.jsonl"
EVIDENCE_CACHE = Path(settings.VAR_DIR) / "precedent-evidence"
EVIDENCE_VERSION = 5  # raise when judgments.gather changes what it computes
QUERY_CHARS = 2500  # about the median length of an AILA fact statement
CAPS = (0, 30, 60, 100)  # query-term caps tried for whole-judgment BM25
GRID = (0.0, 0.25, 0.5, 1.0, 2.0)
FOLDS = 5
SEED = 15
K = 100

# A sentence that cites a case or a report: it would name the answer.
_CITING = re.compile(
    r"\s(?:v|vs|versus)\.?\s+[A-Z(]|Indlaw|\bS\.?C\.?[CR]\b|\bAIR\b|\bSCALE\b|\bsupra\b|"
    r"\b(?:All ER|WLR|A\.C\.)|\[\d{4}\]|\(\d{4}\)\s*\d*\s*[A-Z]|\bcase of\b|\bin re\b",
    re.I,
)


def casedocs() -> list[Path]:
    return sorted((AILA / "casedocs").glob("C*.txt"), key=lambda p: int(p.stem[1:]))


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


# -- the citation check ----------------------------------------------------------------------


def build_gold() -> list[dict[str, object]]:
    """Link each case document's cited cases to the case documents they name, as the ranking's
    ``cited_by`` evidence does (judgments.read_card and citation_links), here on the files."""
    from legalnav.research.ranking import citation_links, read_card

    paths = casedocs()
    cards = [read_card(read(p)) for p in paths]
    rows = []
    for i, cited in enumerate(citation_links(cards)):
        if cited:
            rows.append({"query": paths[i].stem, "cited": [paths[j].stem for j in sorted(cited)]})
    return rows


def facts_question(text: str, limit: int = QUERY_CHARS) -> str:
    """The opening of a judgment's body (its numbered paragraphs) up to ``limit`` characters,
    without the sentences that cite cases or reports."""
    paras = [p for p in paragraphs(text) if p.numbered]
    start = paras[0].start if paras else 0
    kept: list[str] = []
    size = 0
    for a, b in sentences(text, start):
        sentence = " ".join(text[a:b].split())
        sentence = re.sub(r"^\d{1,3}\.\s+", "", sentence)
        if _CITING.search(sentence) or len(sentence) < 20:
            continue
        kept.append(sentence)
        size += len(sentence) + 1
        if size >= limit:
            break
    return " ".join(kept)


@dataclass(slots=True)
class Check:
    """Questions, relevant judgments and the case documents ranked for them."""

    questions: dict[str, str]
    qrels: dict[str, set[str]]
    corpus: list[Path]


def load_check(limit: int | None = None) -> Check:
    """The citation check: ``limit`` citing documents drawn at random (fixed seed) as questions,
    the corpus is every other case document (so no question's own judgment, nor its citations,
    is in the corpus, as in AILA), and the relevant judgments are its cited ones still there."""
    rows = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line]
    if limit and limit < len(rows):
        rows = sorted(random.Random(SEED).sample(rows, limit), key=lambda r: int(r["query"][1:]))
    asked = {r["query"] for r in rows}
    corpus = [p for p in casedocs() if p.stem not in asked]
    folder = AILA / "casedocs"
    questions, qrels = {}, {}
    for r in rows:
        cited = set(r["cited"]) - asked
        if cited:
            questions[r["query"]] = facts_question(read(folder / f"{r['query']}.txt"))
            qrels[r["query"]] = cited
    return Check(questions, qrels, corpus)


def load_dev() -> Check:
    dev = aila_dev(AILA)
    return Check(dev.queries, dev.qrels, casedocs())


def fold_of(query: str) -> int:
    return int(hashlib.sha1(f"{SEED}:{query}".encode()).hexdigest(), 16) % FOLDS


# -- evidence in-process and fitting ---------------------------------------------------------


def gather_all(
    check: Check, label: str, dense: bool, cached_only: bool = False
) -> dict[str, dict[str, object]]:
    """Evidence per question (cached under var/ by question, corpus, and EVIDENCE_VERSION)."""
    from legalnav.research import ranking as judgments
    from legalnav.retrieval.embeddings import get_embedder
    from legalnav.retrieval.engine import Corpus
    from legalnav.retrieval.index import IndexCache

    EVIDENCE_CACHE.mkdir(parents=True, exist_ok=True)
    corpus_key = hashlib.sha1(" ".join(p.stem for p in check.corpus).encode()).hexdigest()
    out: dict[str, dict[str, object]] = {}
    todo = []
    for q, text in check.questions.items():
        key = f"{text}|{CAPS}|{dense}|{corpus_key}|{EVIDENCE_VERSION}"
        path = EVIDENCE_CACHE / f"{hashlib.sha1(key.encode()).hexdigest()[:16]}.pkl"
        if path.exists():
            out[q] = pickle.loads(path.read_bytes())
        else:
            todo.append((q, text, path))
    if not todo or cached_only:
        return out
    cache = IndexCache(Path(settings.LEGALNAV_RETRIEVE_CACHE), keep=len(check.corpus) + 10)
    docs = [cache.get(read(p)) for p in check.corpus]
    names = [p.stem for p in check.corpus]
    corpus = Corpus(docs, embedder=get_embedder() if dense else None, cache=cache)
    started = time.perf_counter()
    for i, (q, text, path) in enumerate(todo, 1):
        ev = judgments.gather(corpus, text, caps=CAPS, dense=dense)
        item = {"names": [names[d] for d in ev.docs.tolist()], "features": ev.features}
        path.write_bytes(pickle.dumps(item))
        out[q] = item
        if i % 10 == 0 or i == len(todo):
            cache.flush()
            print(
                f"  {label}: {i}/{len(todo)} questions, "
                f"{(time.perf_counter() - started) / i:.1f} s each",
                file=sys.stderr,
                flush=True,
            )
    return out


def rankings_for(evidence: dict[str, dict[str, object]], weights) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    import numpy as np

    from legalnav.research.ranking import Evidence, fused_scores

    out = {}
    for q, item in evidence.items():
        names = item["names"]
        ev = Evidence(np.arange(len(names)), item["features"], np.zeros(0))  # type: ignore[arg-type]
        scores = fused_scores(ev, weights)
        order = sorted(range(len(names)), key=lambda j: (-scores[j], j))
        out[q] = [names[j] for j in order[:K]]  # type: ignore[index]
    return out


def fit(
    evidence: dict[str, dict[str, object]],
    qrels: dict[str, set[str]],
    queries: list[str],
    features: tuple[str, ...],
):  # type: ignore[no-untyped-def]
    """Coordinate ascent on MAP over ``queries``: each weight over GRID, the term cap over CAPS,
    three sweeps, from whole-judgment BM25 alone."""
    from legalnav.research.ranking import Weights

    sub = {q: evidence[q] for q in queries}
    rel = {q: qrels[q] for q in queries}

    def score(w):  # type: ignore[no-untyped-def]
        return retrieval_metrics(rankings_for(sub, w), rel)["MAP"]

    current = Weights(judgment_bm25=1.0, terms=0)
    best = score(current)
    for _ in range(3):
        improved = False
        for name in (*features, "terms"):
            values = CAPS if name == "terms" else GRID
            for v in values:
                trial = Weights(**{**current.as_dict(), name: v})
                if not any(trial.of(f) for f in features):
                    continue
                s = score(trial)
                if s > best + 1e-6:
                    best, current, improved = s, trial, True
        if not improved:
            break
    return current, best


def cmd_fit(args: argparse.Namespace) -> None:
    from legalnav.research.ranking import FEATURES, WEIGHTS, Weights

    check, dev = load_check(args.queries), load_dev()
    features = tuple(
        f for f in FEATURES if (args.dense or not f.startswith("dense")) and f not in args.without
    )
    started = time.perf_counter()
    dev_evidence = gather_all(dev, "AILA dev", args.dense)
    evidence = gather_all(check, "check", args.dense, args.cached_only)
    if args.cached_only:  # the questions whose evidence an earlier (interrupted) run gathered
        check.questions = {q: t for q, t in check.questions.items() if q in evidence}
        check.qrels = {q: check.qrels[q] for q in check.questions}
    print(
        f"check: {len(check.questions)} questions, {sum(map(len, check.qrels.values()))} "
        f"relevant, corpus {len(check.corpus)} judgments; evidence in "
        f"{time.perf_counter() - started:.0f} s"
    )
    bm25_only = Weights(judgment_bm25=1.0, terms=0)
    folds = []
    for f in range(FOLDS):
        train = [q for q in check.questions if fold_of(q) != f]
        test = [q for q in check.questions if fold_of(q) == f]
        weights, train_map = fit(evidence, check.qrels, train, features)
        held = {q: evidence[q] for q in test}
        rels = {q: check.qrels[q] for q in test}
        m = retrieval_metrics(rankings_for(held, weights), rels)
        base = retrieval_metrics(rankings_for(held, bm25_only), rels)
        folds.append((m, base))
        print(f"fold {f}: n={len(test)} train MAP {train_map:.4f} {_weights(weights)}")
        print(f"   held-out fused         {_row(m)}")
        print(f"   held-out judgment-bm25 {_row(base)}")
    for metric in ("MAP", "P@10", "Recall@100", "MRR"):
        vals = [m[metric] for m, _ in folds]
        base = [b[metric] for _, b in folds]
        print(
            f"{metric:<11} held-out fused {statistics.fmean(vals):.4f} "
            f"(folds {min(vals):.4f}-{max(vals):.4f}, sd {statistics.pstdev(vals):.4f})   "
            f"judgment-bm25 {statistics.fmean(base):.4f} "
            f"(folds {min(base):.4f}-{max(base):.4f})"
        )
    weights, train_map = fit(evidence, check.qrels, list(check.questions), features)
    print(
        f"fitted on all {len(check.questions)} questions (MAP {train_map:.4f}): {_weights(weights)}"
    )
    print(f"judgments.WEIGHTS now: {_weights(WEIGHTS)}")
    for label, w in (("judgment-bm25", bm25_only), ("fitted", weights), ("WEIGHTS", WEIGHTS)):
        m = retrieval_metrics(rankings_for(dev_evidence, w), dev.qrels)
        print(f"AILA dev {label:<14} {_row(m)}")


def _weights(w) -> str:  # type: ignore[no-untyped-def]
    return " ".join(f"{k}={v:g}" for k, v in w.as_dict().items() if v)


def _row(m: dict[str, float | int]) -> str:
    return (
        f"MAP {m['MAP']:.4f}  P@10 {m['P@10']:.4f}  R@100 {m['Recall@100']:.4f}  "
        f"MRR {m['MRR']:.4f}  (n={m['queries']})"
    )


# -- through the door ------------------------------------------------------------------------


def cmd_door(args: argparse.Namespace) -> None:
    from legalnav.evaluation.door import run_door

    modes = args.modes
    sets = {"check": load_check(args.queries)}
    if not args.no_dev:
        sets["dev"] = load_dev()
    requests = []
    for label, check in sets.items():
        paths = [str(p) for p in check.corpus]
        for n, (q, text) in enumerate(check.questions.items()):
            for mode in modes:
                if label == "check" and mode in args.slow_modes and n >= args.slow_queries:
                    continue  # embeds ~400 passages a question: measured on the first ones
                requests.append(
                    {
                        "id": f"{label}|{q}|{mode}",
                        "documents": paths,
                        "question": text,
                        "mode": mode,
                        "k": K,
                        "unit": "document",
                    }
                )
    started = time.perf_counter()
    responses = run_door(requests, repo=REPO, env={**os.environ})
    took = time.perf_counter() - started
    saved = Path(settings.VAR_DIR) / f"precedent-door-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    saved.write_text("".join(json.dumps(r) + "\n" for r in responses), encoding="utf-8")
    answered = {r["id"]: r for r in responses}
    wanted = {r["id"] for r in requests}
    print(f"door: {len(requests)} requests in {took:.0f} s (one process); responses in {saved}")
    slow = [q for n, q in enumerate(sets["check"].questions) if n < args.slow_queries]
    tables = [(label, check, list(check.questions)) for label, check in sets.items()]
    if any(m in args.slow_modes for m in modes):
        tables.insert(1, (f"check[:{len(slow)}]", sets["check"], slow))
    for label, check, questions in tables:
        key = label.split("[")[0]
        for mode in modes:
            asked = [q for q in questions if f"{key}|{q}|{mode}" in wanted]
            if not asked:
                continue
            rankings, errors, latency = {}, 0, []
            for q in asked:
                r = answered.get(f"{key}|{q}|{mode}", {"results": [], "error": "missing"})
                errors += bool(r.get("error"))
                latency.append(float(r.get("latency_ms", 0.0)))
                seen: list[str] = []
                for x in r.get("results", []):
                    name = Path(x["path"]).stem
                    if name not in seen:
                        seen.append(name)
                rankings[q] = seen[:K]
            m = retrieval_metrics(rankings, {q: check.qrels[q] for q in asked})
            print(
                f"{label:<11}{mode:<24}{_row(m)}  errors {errors}  "
                f"latency p50 {statistics.median(latency) / 1000:.1f} s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build", help="write the citation check's gold")
    p_fit = sub.add_parser("fit", help="gather evidence and cross-validate the weights")
    p_fit.add_argument("--queries", type=int, default=300, help="check questions (random)")
    p_fit.add_argument(
        "--lexical", dest="dense", action="store_false", help="no dense evidence (fast)"
    )
    p_fit.add_argument(
        "--without", nargs="*", default=[], help="features left out of the fit (ablation)"
    )
    p_fit.add_argument(
        "--cached-only", action="store_true", help="only questions with evidence gathered"
    )
    p_door = sub.add_parser("door", help="final figures through manage.py retrieve --json")
    p_door.add_argument("--queries", type=int, default=300)
    p_door.add_argument(
        "--modes", nargs="+", default=["navembed:judgment-bm25", "navembed:convex", "navembed"]
    )
    p_door.add_argument("--no-dev", action="store_true")
    p_door.add_argument(
        "--slow-modes",
        nargs="*",
        default=["navembed:convex"],
        help="modes run on the first --slow-queries check questions only",
    )
    p_door.add_argument("--slow-queries", type=int, default=40)
    args = parser.parse_args()
    if args.command == "build":
        rows = build_gold()
        GOLD.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"{len(rows)} citing judgments, {sum(len(r['cited']) for r in rows)} links -> {GOLD}")
    elif args.command == "fit":
        cmd_fit(args)
    else:
        cmd_door(args)


if __name__ == "__main__":
    main()
