#!/usr/bin/env python
"""Train the clause-topic models that navembed adds to its fusion (legalnav/retrieval/topics.py).

    .venv/bin/python scripts/train_topics.py cuad [--write]        # 368 CUAD contracts
    .venv/bin/python scripts/train_topics.py contractnli [--write] [--folds 5]

A topic is a kind of provision a question can ask about (a CUAD clause category, a ContractNLI
hypothesis). Its model is a logistic regression over the words and word pairs of a passage (the
product's own passages, with their heading path), trained on passages labelled by whether they
overlap the gold spans of that topic, and kept as its strongest weights.

CUAD: trained on the contracts outside the 40-contract dev sample, so the dev figures stay held
out. ContractNLI has only its dev NDAs here: ``--folds`` trains one model per fold without that
fold's NDAs (the cross-validation harness scores each NDA with the model that never saw it) and
``--write`` also writes the model trained on all of them, which the product ships.

Needs scikit-learn (a dependency of sentence-transformers) at training time only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FOLD_DIR = REPO / "var" / "evaluation" / "topic-folds"


def _setup() -> None:
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
    import django

    django.setup()


def _passages(path: str) -> tuple[str, list[tuple[int, int, str]]]:
    """(path, [(start, end, features text)]) of one document, as the product indexes it."""
    _setup()
    from legalnav.retrieval.index import build_doc_index

    text = Path(path).read_bytes().decode("utf-8")
    index = build_doc_index(text, hashlib.sha256(text.encode("utf-8")).hexdigest())
    return path, [(p.start, p.end, p.indexed_text) for p in index.passages]


def _index_all(paths: list[str], workers: int) -> dict[str, list[tuple[int, int, str]]]:
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return dict(pool.map(_passages, paths, chunksize=4))


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(start < e and s < end for s, e in spans)


def design(feature_sets: list[set[str]], vocab: dict[str, int] | None = None, min_df: int = 3):  # type: ignore[no-untyped-def]
    """(0/1 sparse matrix, vocabulary) of the rows' features; the vocabulary (the features at
    least ``min_df`` rows use, in sorted order) is built from these rows unless given."""
    import numpy as np
    from scipy.sparse import csr_matrix

    if vocab is None:
        df: dict[str, int] = {}
        for fs in feature_sets:
            for f in fs:
                df[f] = df.get(f, 0) + 1
        vocab = {f: i for i, f in enumerate(sorted(f for f, n in df.items() if n >= min_df))}
    indptr, indices = [0], []
    for fs in feature_sets:
        indices.extend(sorted(vocab[f] for f in fs if f in vocab))
        indptr.append(len(indices))
    x = csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(feature_sets), len(vocab)))
    return x, vocab


def fit_kept(
    x, vocab: dict[str, int], labels, c: float, keep: int
) -> tuple[float, dict[str, float]]:  # type: ignore[no-untyped-def]
    """(intercept, the ``keep`` strongest weights by feature) of an L2 logistic regression with
    balanced classes over ``design``'s matrix."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced")
    model.fit(x, np.asarray(labels))
    names = {i: f for f, i in vocab.items()}
    order = np.argsort(-np.abs(model.coef_[0]))[:keep]
    return float(model.intercept_[0]), {
        names[int(i)]: round(float(model.coef_[0][i]), 4) for i in order if model.coef_[0][i]
    }


def _fit(rows: list[str], labels: list[int], c: float, keep: int) -> tuple[float, dict[str, float]]:
    from legalnav.retrieval.topics import features

    x, vocab = design([features(r) for r in rows])
    return fit_kept(x, vocab, labels, c, keep)


def _train(
    topics: list[tuple[str, str]],
    docs: dict[str, list[tuple[int, int, str]]],
    gold: dict[tuple[str, str], list[tuple[int, int]]],
    *,
    c: float,
    keep: int,
    min_positive: int,
) -> list[dict[str, object]]:
    out = []
    for key, question in topics:
        rows, labels = [], []
        for path, passages in docs.items():
            spans = gold.get((path, key))
            for start, end, text in passages:
                rows.append(text)
                labels.append(int(bool(spans) and _overlaps(start, end, spans or [])))
        positives = sum(labels)
        if positives < min_positive:
            print(f"  {key}: {positives} positive passages, skipped", file=sys.stderr)
            continue
        intercept, weights = _fit(rows, labels, c, keep)
        out.append(
            {
                "key": key,
                "question": question,
                "positives": positives,
                "intercept": round(intercept, 4),
                "weights": weights,
            }
        )
        print(f"  {key}: {positives} positives of {len(rows)}", file=sys.stderr)
    return out


def _cuad(args: argparse.Namespace) -> dict[str, object]:
    from legalnav.evaluation import gold

    base = gold.data_dir() / "cuad"
    rows = [json.loads(line) for line in (base / "spans.jsonl").open() if line.strip()]
    names = sorted({r["doc"] for r in rows})
    from legalnav.evaluation.splits import cuad_train

    train = cuad_train(names)[: args.contracts]
    desc = gold.cuad_descriptions()
    categories = sorted({r["category"] for r in rows})
    topics = []
    for cat in categories:
        d = desc.get(gold._CUAD_ALIASES.get(cat.lower(), cat.lower()))
        if d:
            topics.append((cat, f"{cat}: {d}"))
    t0 = time.time()
    docs = _index_all([str(base / "contracts" / n) for n in train], args.workers)
    print(f"indexed {len(docs)} contracts in {time.time() - t0:.0f} s", file=sys.stderr)
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for r in rows:
        if r["doc"] in train:
            spans[(str(base / "contracts" / r["doc"]), r["category"])] = [
                (s["start"], s["end"]) for s in r["spans"] if s.get("start") is not None
            ]
    models = _train(topics, docs, spans, c=args.c, keep=args.keep, min_positive=args.min_positive)
    from legalnav.review.columns import preset_column

    for model in models:
        # The review grid's own wording of the same question, so that a lawyer's phrasing
        # ("Which jurisdiction's law governs this agreement?") finds the topic too.
        column = preset_column(str(model["key"]))
        if column is not None:
            model["aliases"] = [column.question]
    return {
        "name": "cuad",
        "trained_on": f"{len(train)} CUAD contracts outside the 40-contract dev sample",
        "trained_ids": sorted(train),
        "topics": models,
    }


def _contractnli(args: argparse.Namespace, fold: int | None) -> dict[str, object]:
    from legalnav.evaluation import crossval, gold

    dev = json.loads((gold.data_dir() / "contractnli" / "dev.json").read_text(encoding="utf-8"))
    items = gold.contractnli_items(limit=None)
    names = {h: v["short_description"] for h, v in dev["labels"].items()}
    paths = sorted({i.documents[0] for i in items})
    if fold is not None:
        fold_of = crossval.assign_folds(paths, args.folds)
        paths = [p for p in paths if fold_of[p] != fold]
    docs = _index_all(paths, args.workers)
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    topics: dict[str, str] = {}
    for item in items:
        key = names[item.meta["hypothesis_id"]]
        topics[key] = item.question
        if item.documents[0] in docs:
            spans[(item.documents[0], key)] = [(s, e) for _, s, e in item.spans]
    models = _train(
        sorted(topics.items()),
        docs,
        spans,
        c=args.c,
        keep=args.keep,
        min_positive=args.min_positive,
    )
    held = f", without fold {fold} of {args.folds}" if fold is not None else ""
    return {
        "name": "contractnli" if fold is None else f"contractnli-fold{fold}",
        "trained_on": f"{len(docs)} ContractNLI dev NDAs{held}",
        "trained_ids": sorted(Path(p).name for p in docs),
        "topics": models,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", choices=["cuad", "contractnli"])
    parser.add_argument(
        "--folds", type=int, default=0, help="contractnli: also one model per fold without it"
    )
    parser.add_argument("--contracts", type=int, default=None)
    parser.add_argument("--c", type=float, default=0.5)
    parser.add_argument("--keep", type=int, default=400)
    parser.add_argument("--min-positive", type=int, default=15)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    _setup()
    from legalnav.retrieval import topics

    if args.gold == "cuad":
        models = [_cuad(args)]
    else:
        models = [_contractnli(args, None)]
        models += [_contractnli(args, f) for f in range(args.folds)]
    for model in models:
        # Fold models are for cross-validation only: they go beside the evaluation results.
        folder = topics.MODEL_DIR if "fold" not in str(model["name"]) else FOLD_DIR
        folder.mkdir(parents=True, exist_ok=True)
        out = folder / f"{model['name']}.json"
        text = json.dumps(model, indent=0, sort_keys=False)
        if args.write:
            out.write_text(text + "\n", encoding="utf-8")
            print(f"wrote {out} ({len(text) // 1024} KiB)", file=sys.stderr)
        else:
            print(text[:2000])


if __name__ == "__main__":
    main()
