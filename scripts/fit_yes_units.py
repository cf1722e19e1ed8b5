#!/usr/bin/env python
"""Fit, per CUAD yes/no category, a sentence-level clause model on the 368 CUAD contracts outside
the dev sample: one more input of the document models (``fit_yes_docs.py``).

    .venv/bin/python scripts/fit_yes_topics.py            # first: passages and out-of-fold scores
    .venv/bin/python scripts/fit_yes_units.py [--write]
    .venv/bin/python scripts/fit_yes_docs.py [--write]

The clause-topic models read whole passages: a passage labelled positive because one of its
sentences is a CUAD span teaches them every word of its other sentences too. A unit model reads
the grid's own units (``evidence.split_units``: sentence-sized pieces of a passage, under the
passage's heading path), labelled by whether they overlap the category's gold spans, with the same
features (words and word pairs) and the same kind of model (L2 logistic regression, classes
balanced, the strongest ``--keep`` weights kept). A document's input is its best unit's
probability.

Out of fold for the 368 (5 folds by contract, the folds ``fit_yes_topics.py`` uses), so the
document models are fitted on scores of models that never saw the contract; the dev contracts
are scored with the model fitted on all 368, which never saw them. ``--write`` writes the models
fitted on all 368 to legalnav/review/unit_models.json, with the contracts they were fitted on.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import train_topics  # noqa: E402
from fit_yes_topics import CACHE, MIN_YES, cuad_yes_no  # noqa: E402

OOF = REPO / "var" / "evaluation" / "yes-units-oof.json"
DEV = REPO / "var" / "evaluation" / "yes-units-dev.json"
OUT = REPO / "legalnav" / "review" / "unit_models.json"
MIN_DF = 3  # a feature fewer units use is not learnt


def _units(text: str, passages: list[list[object]]) -> list[tuple[int, int, str]]:
    from legalnav.retrieval.evidence import split_units
    from legalnav.review.unitclauses import unit_model_text

    out = []
    for start, end, indexed in passages:
        context = str(indexed).split("\n", 1)[0]
        for a, b in split_units(text, int(start), int(end)):  # type: ignore[call-overload]
            out.append((a, b, unit_model_text(context, text[a:b])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--keep", type=int, default=1000)
    parser.add_argument("--c", type=float, default=0.5)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    train_topics._setup()

    from legalnav.retrieval import topics

    rows, names, dev, train, answers, cats, path = cuad_yes_no()
    if not CACHE.exists():
        raise SystemExit(
            "run scripts/fit_yes_topics.py first (it caches every contract's passages)"
        )
    docs = json.loads(CACHE.read_text())
    spans = {
        (r["doc"], r["category"]): [
            (s["start"], s["end"]) for s in r["spans"] if s.get("start") is not None
        ]
        for r in rows
    }
    t0 = time.time()
    units = {n: _units(Path(path[n]).read_text(encoding="utf-8"), docs[path[n]]) for n in names}
    feats = {n: [topics.features(t) for _, _, t in units[n]] for n in names}
    print(
        f"{sum(len(v) for v in units.values())} units in {time.time() - t0:.0f} s", file=sys.stderr
    )

    def design(ns: list[str], vocab: dict[str, int] | None = None):  # type: ignore[no-untyped-def]
        return train_topics.design([fs for n in ns for fs in feats[n]], vocab, MIN_DF)

    def labels(ns: list[str], k: str) -> np.ndarray:
        return np.asarray(
            [
                int(any(a < e and s < b for s, e in spans.get((n, k), [])))
                for n in ns
                for a, b, _ in units[n]
            ]
        )

    def fit(x, y: np.ndarray, vocab: dict[str, int]) -> topics.Topic:  # type: ignore[no-untyped-def]
        intercept, weights = train_topics.fit_kept(x, vocab, y, args.c, args.keep)
        return topics.Topic("", "", round(intercept, 4), weights)

    def best(topic: topics.Topic, n: str) -> float:
        p = topic.probabilities_of(feats[n])
        return float(p.max()) if len(p) else 0.0

    fold = {n: i % args.folds for i, n in enumerate(train)}
    parts = []
    for f in range(args.folds):
        fit_on = [n for n in train if fold[n] != f]
        x, vocab = design(fit_on)
        parts.append((f, fit_on, x, vocab))
    x_all, vocab_all = design(train)
    oof: dict[str, dict[str, float]] = {}
    dev_scores: dict[str, dict[str, float]] = {}
    models: dict[str, dict[str, object]] = {}
    for k in cats:
        if sum(answers[(n, k)] == "Yes" for n in train) < MIN_YES:
            continue
        scores: dict[str, float] = {}
        for f, fit_on, x, vocab in parts:
            y = labels(fit_on, k)
            topic = fit(x, y, vocab) if y.sum() >= 2 else None
            for n in train:
                if fold[n] == f:
                    scores[n] = best(topic, n) if topic else 0.0
        topic = fit(x_all, labels(train, k), vocab_all)
        oof[k], dev_scores[k] = scores, {n: best(topic, n) for n in dev}
        models[k] = {"intercept": topic.intercept, "weights": topic.weights}
        print(f"  {k}: {time.time() - t0:.0f} s", file=sys.stderr)
    OOF.parent.mkdir(parents=True, exist_ok=True)
    key = {"folds": args.folds, "keep": args.keep, "c": args.c}
    OOF.write_text(json.dumps({"key": key, "scores": oof}))
    DEV.write_text(json.dumps(dev_scores))
    if args.write:
        OUT.write_text(
            json.dumps(
                {
                    "fitted_on": f"{len(train)} CUAD contracts outside the 40-contract dev sample",
                    "fitted_ids": train,
                    "keep": args.keep,
                    "c": args.c,
                    "models": {k: models[k] for k in sorted(models)},
                },
                indent=None,
                separators=(",", ":"),
            )
            + "\n"
        )
        print(f"wrote {len(models)} unit models to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
