#!/usr/bin/env python
"""Fit, per CUAD yes/no category, the document-level "Yes" threshold on the clause-topic model's
best passage probability, on the 368 CUAD contracts outside the dev sample, and score it on the
40 dev contracts, which nothing here is fitted on (blind).

    .venv/bin/python scripts/fit_yes_topics.py [--folds 5] [--write]

1. every contract's passages, as the product indexes them (cached in var/evaluation);
2. per fold of the 368 training contracts, topic models trained on the other folds
   (scripts/train_topics.py's own fitting), and each held-out contract's best passage
   probability per category: out-of-fold scores, as a model that never saw the contract gives;
3. per category, the threshold on that score with the best F1 of "Yes" over the 368 (CUAD's
   normalised answer is the label), kept when the category has at least ``MIN_YES`` "Yes";
4. the dev contracts scored with the shipped model (trained on all 368) at those thresholds.

``--write`` writes the thresholds into legalnav/review/topic_thresholds.json, with the contracts
they were fitted on, for the filler (fill.py) to read.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import train_topics  # noqa: E402

CACHE = REPO / "var" / "evaluation" / "cuad-passages.json"
OOF = REPO / "var" / "evaluation" / "yes-topics-oof.json"  # out-of-fold scores, for reruns
DEV = REPO / "var" / "evaluation" / "yes-topics-dev.json"  # the shipped model's dev scores
OUT = REPO / "legalnav" / "review" / "topic_thresholds.json"
MIN_YES = 8


def _f1(pairs: list[tuple[bool, bool]]) -> float:
    tp = sum(g and p for g, p in pairs)
    fp = sum(p and not g for g, p in pairs)
    fn = sum(g and not p for g, p in pairs)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def cuad_yes_no():  # type: ignore[no-untyped-def]
    """CUAD's rows, contract names, dev and train contracts, normalised answers by (contract,
    category), the yes/no categories answered for every contract, and each contract's path."""
    from legalnav.evaluation import gold, splits
    from legalnav.review.columns import YES_NO_KEYS

    base = gold.data_dir() / "cuad"
    rows = [json.loads(x) for x in (base / "spans.jsonl").open() if x.strip()]
    names = sorted({r["doc"] for r in rows})
    dev, train = splits.cuad_dev(names), splits.cuad_train(names)
    answers = {(r["doc"], r["category"]): r["answer"] for r in rows}
    cats = sorted(
        k for k in YES_NO_KEYS if all(answers.get((n, k)) in ("Yes", "No") for n in names)
    )
    path = {n: str(base / "contracts" / n) for n in names}
    return rows, names, dev, train, answers, cats, path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--min-positive",
        type=int,
        default=15,
        help="fewest positive passages for a fold's model of a category, as the shipped model "
        "needs (8 brings in most favoured nation, price restrictions, unlimited licence and "
        "no-solicit of customers, at F1 0, 0, 0 and 0.46 on dev: no better than without)",
    )
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    train_topics._setup()

    from legalnav.retrieval import topics

    rows, names, dev, train, answers, cats, path = cuad_yes_no()
    if CACHE.exists():
        docs = {k: [tuple(p) for p in v] for k, v in json.loads(CACHE.read_text()).items()}
    else:
        t0 = time.time()
        docs = train_topics._index_all([path[n] for n in names], 2)
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        CACHE.write_text(json.dumps(docs))
        print(f"indexed {len(docs)} contracts in {time.time() - t0:.0f} s", file=sys.stderr)
    feats = {p: [topics.features(t) for _, _, t in docs[p]] for p in docs}
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for r in rows:
        spans[(path[r["doc"]], r["category"])] = [
            (s["start"], s["end"]) for s in r["spans"] if s.get("start") is not None
        ]
    shipped = {t.key: t for t in topics.load(topics.MODEL_DIR / "cuad.json")}
    fold = {n: i % args.folds for i, n in enumerate(train)}
    oof: dict[str, dict[str, float]] = defaultdict(dict)
    key = {"folds": args.folds, "min_positive": args.min_positive}
    if OOF.exists() and json.loads(OOF.read_text()).get("key") == key:
        oof.update(json.loads(OOF.read_text())["scores"])
    for f in range(args.folds if not oof else 0):
        t0 = time.time()
        fit_docs = {path[n]: docs[path[n]] for n in train if fold[n] != f}
        models = train_topics._train(
            [(k, shipped[k].question if k in shipped else k) for k in cats],
            fit_docs,
            spans,
            c=0.5,
            keep=400,
            min_positive=args.min_positive,
        )
        for m in models:
            topic = topics.Topic(str(m["key"]), "", float(m["intercept"]), dict(m["weights"]))
            for n in train:
                if fold[n] == f:
                    p = topic.probabilities_of(feats[path[n]])
                    oof[topic.key][n] = float(p.max()) if len(p) else 0.0
        print(f"fold {f}: {time.time() - t0:.0f} s", file=sys.stderr)
    OOF.write_text(json.dumps({"key": key, "scores": oof}))
    thresholds: dict[str, float] = {}
    for k in cats:
        # A category some fold's model skipped (too few positive passages) has no score for
        # that fold's contracts: it is left to the filler's own threshold.
        if (
            len(oof.get(k, {})) < len(train)
            or sum(answers[(n, k)] == "Yes" for n in train) < MIN_YES
        ):
            continue
        grid = sorted({round(v, 3) for v in oof[k].values()})
        best_t, best = 1.01, -1.0
        for t in grid:
            score = _f1([(answers[(n, k)] == "Yes", oof[k][n] >= t) for n in train])
            if score > best:
                best_t, best = t, score
        thresholds[k] = best_t
    per: dict[str, float] = {}
    dev_scores: dict[str, dict[str, float]] = defaultdict(dict)
    for k in cats:
        if k in shipped:
            for n in dev:
                p = shipped[k].probabilities_of(feats[path[n]])
                dev_scores[k][n] = float(p.max()) if len(p) else 0.0
    DEV.write_text(json.dumps(dev_scores))
    for k, t in thresholds.items():
        if k not in shipped:
            continue
        pairs = [(answers[(n, k)] == "Yes", dev_scores[k][n] >= t) for n in dev]
        if any(g or p for g, p in pairs):
            per[k] = _f1(pairs)
    print(json.dumps({k: round(v, 3) for k, v in sorted(per.items())}, indent=1))
    print(f"dev (blind) yes-F1 mean over {len(per)} categories: {sum(per.values()) / len(per):.3f}")
    if args.write:
        kept = json.loads(OUT.read_text()) if OUT.exists() else {}  # the document models
        kept.update(
            {
                "fitted_on": f"{len(train)} CUAD contracts outside the 40-contract dev sample",
                "fitted_ids": train,
                "folds": args.folds,
                "min_positive": args.min_positive,
                "thresholds": {k: thresholds[k] for k in sorted(thresholds)},
            }
        )
        OUT.write_text(json.dumps(kept, indent=1) + "\n")
        print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
