#!/usr/bin/env python
"""Per CUAD yes/no category, a passage classifier over the passages' MiniLM vectors (the vectors
navembed already keeps for every passage), fitted on the 368 CUAD contracts outside the dev
sample; the document's best passage probability then joins the document model's input
(fit_yes_docs.py).

    .venv/bin/python scripts/fit_yes_topics.py     # first: passages and out-of-fold topic scores
    .venv/bin/python scripts/fit_yes_embed.py [--write]

1. every passage of the 408 contracts (fit_yes_topics.py's cache) embedded as the product embeds
   it (``Corpus.ensure_vectors``: the indexed text; page furniture a zero vector), cached in
   var/evaluation;
2. per category, a passage labelled positive when it overlaps one of CUAD's spans; per fold of the
   368 (5 folds by contract), an L2 logistic regression on the other folds' passages, scoring the
   held-out contracts: each contract's best passage probability out of fold;
3. the model fitted on all 368 scores the dev contracts, which it never saw.

The out-of-fold and dev scores are written to var/evaluation/yes-embed-{oof,dev}.json for
fit_yes_docs.py; ``--write`` stores the all-368 classifiers in
legalnav/review/passage_models.json with the contracts they were fitted on.
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
from fit_yes_topics import CACHE, cuad_yes_no  # noqa: E402

VECTORS = REPO / "var" / "evaluation" / "cuad-passage-vectors.npz"
EMB_OOF = REPO / "var" / "evaluation" / "yes-embed-oof.json"
EMB_DEV = REPO / "var" / "evaluation" / "yes-embed-dev.json"
OUT = REPO / "legalnav" / "review" / "passage_models.json"
MIN_POSITIVE = 8  # fewest positive passages among the training folds for a category's model


def embed_all(docs: dict[str, list[tuple[int, int, str]]]) -> dict[str, np.ndarray]:
    from legalnav.retrieval.embeddings import get_embedder
    from legalnav.retrieval.passages import skip_embedding

    if VECTORS.exists():
        data = np.load(VECTORS)
        got = {k: data[k] for k in data.files}
        if set(got) >= {Path(p).name for p in docs}:
            return got
    embedder = get_embedder()
    out: dict[str, np.ndarray] = {}
    t0 = time.time()
    for i, (path, passages) in enumerate(sorted(docs.items())):
        m = np.zeros((len(passages), embedder.dimension), dtype=np.float32)
        todo = [j for j, (_, _, t) in enumerate(passages) if not skip_embedding(t)]
        if todo:
            m[todo] = embedder.encode([passages[j][2] for j in todo])
        out[Path(path).name] = m
        if i % 20 == 0:
            print(f"{i}/{len(docs)} embedded, {time.time() - t0:.0f} s", file=sys.stderr)
    VECTORS.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(VECTORS, **out)
    return out


def _labels(passages, spans) -> np.ndarray:  # type: ignore[no-untyped-def]
    return np.array(
        [any(s < e2 and s2 < e for s2, e2 in spans) for s, e, _ in passages], dtype=np.int8
    )


def fit(x: np.ndarray, y: np.ndarray, c: float):  # type: ignore[no-untyped-def]
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced")
    model.fit(x, y)
    return model.coef_[0].astype(np.float64), float(model.intercept_[0])


def best(m: np.ndarray, coef: np.ndarray, intercept: float) -> float:
    if not len(m):
        return 0.0
    z = m.astype(np.float64) @ coef + intercept
    z[~m.any(axis=1)] = -30.0  # a zero vector (page furniture) is no clause
    return float(1.0 / (1.0 + np.exp(-z.max())))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--c", type=float, default=0.1)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    train_topics._setup()
    rows, names, dev, train, answers, cats, path = cuad_yes_no()
    docs = {k: [tuple(p) for p in v] for k, v in json.loads(CACHE.read_text()).items()}
    vec = embed_all(docs)
    spans = {
        (r["doc"], r["category"]): [
            (s["start"], s["end"]) for s in r["spans"] if s.get("start") is not None
        ]
        for r in rows
    }
    fold = {n: i % args.folds for i, n in enumerate(train)}
    oof: dict[str, dict[str, float]] = {}
    dev_scores: dict[str, dict[str, float]] = {}
    shipped: dict[str, tuple[np.ndarray, float]] = {}
    for k in cats:
        t0 = time.time()
        lab = {n: _labels(docs[path[n]], spans.get((n, k), [])) for n in names}
        if sum(int(lab[n].sum()) for n in train) < MIN_POSITIVE:
            continue
        oof[k] = {}
        for f in range(args.folds):
            fit_on = [n for n in train if fold[n] != f]
            x = np.vstack([vec[n] for n in fit_on])
            y = np.concatenate([lab[n] for n in fit_on])
            keep = x.any(axis=1)
            if y[keep].sum() < 2:
                continue
            coef, b = fit(x[keep], y[keep], args.c)
            for n in train:
                if fold[n] == f:
                    oof[k][n] = best(vec[n], coef, b)
        x = np.vstack([vec[n] for n in train])
        y = np.concatenate([lab[n] for n in train])
        keep = x.any(axis=1)
        shipped[k] = fit(x[keep], y[keep], args.c)
        dev_scores[k] = {n: best(vec[n], *shipped[k]) for n in dev}
        print(f"{k}: {time.time() - t0:.0f} s", file=sys.stderr)
    EMB_OOF.write_text(json.dumps({"c": args.c, "scores": oof}))
    EMB_DEV.write_text(json.dumps(dev_scores))
    if args.write:
        from legalnav.review.docvote import VECTOR_EMBEDDER

        OUT.write_text(
            json.dumps(
                {
                    "embedder": VECTOR_EMBEDDER,
                    "fitted_on": f"{len(train)} CUAD contracts outside the 40-contract dev sample",
                    "fitted_ids": train,
                    "penalty_c": args.c,
                    "models": {
                        k: {
                            "coef": [round(float(v), 5) for v in shipped[k][0]],
                            "intercept": round(shipped[k][1], 5),
                        }
                        for k in sorted(shipped)
                    },
                }
            )
            + "\n"
        )
        print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
