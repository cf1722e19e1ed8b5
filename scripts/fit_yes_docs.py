#!/usr/bin/env python
"""Fit, per CUAD yes/no category, a document-level "Yes" model on the 368 CUAD contracts outside
the dev sample, and score it on the 40 dev contracts, which nothing here is fitted on (blind).

    .venv/bin/python scripts/fit_yes_topics.py            # first: passages and out-of-fold scores
    .venv/bin/python scripts/fit_yes_units.py --write    # then: the sentence-level clause models
    .venv/bin/python scripts/fit_yes_docs.py [--write]

``fit_yes_topics.py`` decides a column from one number: the best passage probability of the
column's own clause-topic model. A document says more than that: a licence agreement that grants
no licence is rare, an exclusivity clause comes with a territory, and a rare kind of clause the
topic models have too few examples of (most favoured nation, price restrictions, unlimited
licence) still has its wording. So each document gets, per category, a small feature vector:

- the logit of the best passage probability of **every** clause-topic model (out of fold for the
  368 training contracts, so a model never scores a contract it was trained on; the shipped model
  for the dev contracts, which it never saw);
- the logit of the document's best unit probability under the column's sentence-level clause
  model (``fit_yes_units.py``; out of fold for the 368 as well), where the column has one;
- ``log(1 + n)``, n the document's passages that match the column's wording cues or document
  cues (``columns.py``), and whether any does;
- for a column with operative cues (``columns.py``: wording of a provision that does what the
  column asks), whether any passage has them;

and a logistic regression over it, L2-penalised, standardised. Per category the penalty and the
"Yes" threshold are chosen by 5-fold cross-validation by contract **within the 368**; the model
replaces the single threshold only where its cross-validated F1 there beats the single threshold's,
cross-validated the same way (the threshold chosen on the other folds). The dev contracts are then
scored once with what was chosen; ``--dev-folds 5`` scores them cross-validated as well, each
fold by a rule chosen and fitted on the 368 and the other dev folds.

The 368 mean printed first scores out-of-fold probabilities with thresholds chosen on them, so it
runs high; ``--nested`` also prints it with outer folds by contract around the whole procedure
(penalty, threshold and rule chosen on four outer folds, applied to the fifth): the figure to
quote for contracts the rule never saw.

``--write`` adds the chosen models to legalnav/review/topic_thresholds.json (``doc_models``), with
what they were fitted on, for the filler (fill.py) to read.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import train_topics  # noqa: E402
from fit_yes_topics import CACHE, DEV, OOF, OUT, _f1, cuad_yes_no  # noqa: E402
from fit_yes_units import DEV as UNIT_DEV  # noqa: E402
from fit_yes_units import OOF as UNIT_OOF  # noqa: E402

PENALTIES = (0.03, 0.1, 0.3, 1.0)
MIN_YES = 5  # fewer "Yes" contracts than this among the 368: no model


def best_threshold(y: np.ndarray, score: np.ndarray) -> tuple[float, float]:
    best_t, best = 1.01, -1.0
    for t in sorted(set(np.round(score, 4))):
        f = _f1(list(zip(y.tolist(), (score >= t).tolist(), strict=True)))
        if f > best:
            best_t, best = float(t), f
    return best_t, best


# The grid is read, and scored, a data room at a time: a column's F1 of "Yes" over the contracts
# of one review, averaged over the columns with a "Yes" said or due there. In a review of 40
# contracts a rare column often has one "Yes" or none, so that mean runs under the F1 of the 368
# pooled per column. What it is expected to be, over reviews of REVIEW_SIZE contracts drawn from
# the 368 (out-of-fold scores), is printed beside the pooled figure.
REVIEW_SIZE = 40
REVIEWS = 3000


def review_mean(
    rules: list[tuple[np.ndarray, np.ndarray, float]], size: int = REVIEW_SIZE
) -> float:
    """The expected mean, over columns counted (a "Yes" said or due), of a review's F1 of "Yes",
    for per-column (gold, score, threshold) rules over the same contracts; reviews of ``size``
    contracts drawn without replacement (fixed seed)."""
    n = len(rules[0][0])
    rng = np.random.default_rng(20261205)
    samples = np.stack([rng.choice(n, size=min(size, n), replace=False) for _ in range(REVIEWS)])
    total = np.zeros(len(samples))
    count = np.zeros(len(samples))
    for y, score, t in rules:
        ys, p = y[samples].astype(bool), score[samples] >= t
        tp, fp, fn = (ys & p).sum(1), (~ys & p).sum(1), (ys & ~p).sum(1)
        counted = (tp + fp + fn) > 0
        total += np.where(counted, 2 * tp / np.maximum(1, 2 * tp + fp + fn), 0.0)
        count += counted
    return float((total / np.maximum(1, count)).mean())


def choose(x: np.ndarray, y: np.ndarray, fold: np.ndarray, folds: int):  # type: ignore[no-untyped-def]
    """The penalty and the "Yes" threshold with the best F1 over out-of-fold scores (folds by
    contract): (F1, penalty, threshold, the out-of-fold scores)."""
    best = (-1.0, 0.0, 1.01, np.zeros(len(y)))
    for c in PENALTIES:
        score = np.zeros(len(y))
        for f in range(folds):
            held = fold == f
            if y[~held].sum() == 0:
                continue
            score[held] = predict(x[held], *fit(x[~held], y[~held], c))
        t, f1 = best_threshold(y, score)
        if f1 > best[0]:
            best = (f1, c, t, score)
    return best


def threshold_cv_f1(y: np.ndarray, score: np.ndarray, fold: np.ndarray, folds: int) -> float:
    """The single-threshold rule's F1 cross-validated as a document model's is: the threshold
    chosen on the other folds, applied to the held one."""
    said = np.zeros(len(y), dtype=bool)
    for f in range(folds):
        held = fold == f
        said[held] = score[held] >= best_threshold(y[~held], score[~held])[0]
    return _f1(list(zip(y.tolist(), said.tolist(), strict=True)))


@dataclass(frozen=True)
class Rule:
    """A column's rule chosen on (x, y) by ``folds``-fold cross-validation by contract: the
    document model's penalty, threshold and cross-validated F1 (with its out-of-fold scores), the
    single threshold's cross-validated F1 (None for a column without a topic score), and whether
    the model is used (its F1 beats the single threshold's)."""

    cv_f1: float
    c: float
    t: float
    oof: np.ndarray
    single_cv_f1: float | None

    @property
    def use(self) -> bool:
        return self.single_cv_f1 is None or self.cv_f1 > self.single_cv_f1


def chosen_rule(x: np.ndarray, y: np.ndarray, topic: np.ndarray | None, folds: int) -> Rule:
    fold = np.arange(len(y)) % folds
    cv_f1, c, t, oof = choose(x, y, fold, folds)
    single = None if topic is None else threshold_cv_f1(y, topic, fold, folds)
    return Rule(cv_f1, c, t, oof, single)


def said_by_rule(
    x: np.ndarray,
    y: np.ndarray,
    topic: np.ndarray | None,
    xt: np.ndarray,
    topic_t: np.ndarray | None,
    folds: int,
) -> np.ndarray:
    """What the whole procedure, fitted on (x, y) alone, says for the rows xt: the rule chosen
    (``chosen_rule``; ``topic``: the column's own topic score, None where it has none), the
    document model refitted on all of (x, y) or the single threshold chosen on them."""
    rule = chosen_rule(x, y, None if topic_t is None else topic, folds)
    if rule.use or topic is None or topic_t is None:
        return predict(xt, *fit(x, y, rule.c)) >= rule.t
    return topic_t >= best_threshold(y, topic)[0]


def outer_folds(n: int, folds: int) -> np.ndarray:
    """The nested cross-validation's outer folds: not the inner folds' split."""
    return (np.arange(n) * 7919 + 3) % folds


def nested_said(x: np.ndarray, y: np.ndarray, topic: np.ndarray | None, folds: int) -> np.ndarray:
    """What the column says for each of the 368 with every choice made without it: outer folds
    by contract, the procedure (``said_by_rule``) run on the other outer folds."""
    outer = outer_folds(len(y), folds)
    said = np.zeros(len(y), dtype=bool)
    for g in range(folds):
        h = outer == g
        said[h] = said_by_rule(
            x[~h], y[~h], None if topic is None else topic[~h], x[h],
            None if topic is None else topic[h], folds,
        )  # fmt: skip
    return said


def review_f1_mean(
    rules: list[tuple[np.ndarray, np.ndarray]], rows: np.ndarray | None = None
) -> tuple[float, int]:
    """The mean over columns with a "Yes" said or due of each column's F1 of "Yes", for per-column
    (gold, said) over the same contracts (``rows``: which of them, with repeats, for a bootstrap
    draw); and how many columns were counted."""
    f1s = []
    for gold_, said in rules:
        g, p = (gold_, said) if rows is None else (gold_[rows], said[rows])
        tp, fp, fn = (g & p).sum(), (~g & p).sum(), (g & ~p).sum()
        if tp or fp or fn:
            f1s.append(2 * tp / (2 * tp + fp + fn))
    return (sum(f1s) / len(f1s) if f1s else 0.0), len(f1s)


def fit(x: np.ndarray, y: np.ndarray, c: float):  # type: ignore[no-untyped-def]
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(0), x.std(0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=2000).fit((x - mean) / scale, y)
    return mean, scale, model.coef_[0], float(model.intercept_[0])


def predict(x: np.ndarray, mean, scale, coef, b) -> np.ndarray:  # type: ignore[no-untyped-def]
    z = ((x - mean) / scale) @ coef + b
    return 1 / (1 + np.exp(-z))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--write", action="store_true")
    parser.add_argument(
        "--no-units", action="store_true", help="leave the sentence-level clause models out"
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="CATEGORY",
        help="fit and report these categories alone (repeatable; a quick look, never written)",
    )
    parser.add_argument(
        "--nested",
        action="store_true",
        help="also print the 368's yes-F1 mean cross-validated with nothing chosen on the "
        "contracts scored (outer folds by contract around the whole procedure)",
    )
    parser.add_argument(
        "--dev-folds",
        type=int,
        default=0,
        metavar="K",
        help="also score the dev contracts cross-validated by contract: each of K folds of them "
        "by a rule chosen and fitted on the 368 and the other dev folds",
    )
    args = parser.parse_args()
    if args.only and args.write:
        parser.error("--only fits some categories alone: it cannot --write")
    train_topics._setup()

    from legalnav.review import docvote
    from legalnav.review.columns import (
        compiled_document_cues,
        compiled_operative_cues,
        preset_column,
    )

    _rows, names, dev, train, answers, cats, path = cuad_yes_no()
    docs = json.loads(CACHE.read_text())
    oof = json.loads(OOF.read_text())["scores"]
    dev_scores = json.loads(DEV.read_text())
    voters = sorted(k for k in oof if len(oof[k]) == len(train) and k in dev_scores)
    current = json.loads(OUT.read_text())
    single = current["thresholds"]
    units_oof: dict[str, dict[str, float]] = {}
    units_dev: dict[str, dict[str, float]] = {}
    if not args.no_units:
        if not UNIT_OOF.exists():
            raise SystemExit("run scripts/fit_yes_units.py first, or pass --no-units")
        units_oof = json.loads(UNIT_OOF.read_text())["scores"]
        units_dev = json.loads(UNIT_DEV.read_text())

    def features(
        names_: list[str],
        scores: dict[str, dict[str, float]],
        k: str,
        unit_scores: dict[str, dict[str, float]],
    ) -> np.ndarray:
        column = preset_column(k)
        patterns = compiled_document_cues(column) if column else []
        operative = compiled_operative_cues(column) if column and column.operative_cues else None
        out = []
        for n in names_:
            texts = [t for _, _, t in docs[path[n]]]
            best_unit = unit_scores[k][n] if k in unit_scores else None
            row = docvote.features(
                lambda c: scores[c][n],  # noqa: B023
                voters,
                texts,
                patterns,
                best_unit,
                operative,
            )
            assert row is not None
            out.append(row)
        return np.asarray(out, dtype=np.float64)

    dev_fold = np.asarray([i % max(args.dev_folds, 1) for i in range(len(dev))])
    dev_cv: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    dev_held: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    chosen: dict[str, dict[str, object]] = {}
    report = []
    review_rules: list[tuple[np.ndarray, np.ndarray, float]] = []
    nested: list[float] = []
    nested_rules: list[tuple[np.ndarray, np.ndarray, float]] = []
    for k in cats:
        if args.only and k not in args.only:
            continue
        y = np.asarray([answers[(n, k)] == "Yes" for n in train])
        yd = [answers[(n, k)] == "Yes" for n in dev]
        if y.sum() < MIN_YES:
            continue
        x, xd = features(train, oof, k, units_oof), features(dev, dev_scores, k, units_dev)
        # the single-threshold rule on the column's own topic score, where it has one
        topic = np.asarray([oof[k][n] for n in train]) if k in single else None
        topic_dev = np.asarray([dev_scores[k][n] for n in dev]) if k in single else None
        old_dev = (
            None
            if topic_dev is None
            else _f1(list(zip(yd, (topic_dev >= single[k]).tolist(), strict=True)))
        )
        rule = chosen_rule(x, y, topic, args.folds)
        old_train, cv_f1, c, t, doc_oof, use = (
            rule.single_cv_f1, rule.cv_f1, rule.c, rule.t, rule.oof, rule.use
        )  # fmt: skip
        mean, scale, coef, b = fit(x, y, c)
        new_dev = _f1(list(zip(yd, (predict(xd, mean, scale, coef, b) >= t).tolist(), strict=True)))
        dev_held[k] = (
            np.asarray(yd),
            predict(xd, mean, scale, coef, b) >= t if use else topic_dev >= single[k],
        )
        if args.dev_folds:
            # dev cross-validated by contract: each fold of the 40 scored by a rule chosen (as
            # above, both rules cross-validated alike) and fitted on the 368 and the other folds
            said = np.zeros(len(dev), dtype=bool)
            for g in range(args.dev_folds):
                held = dev_fold == g
                xx = np.concatenate([x, xd[~held]])
                yy = np.concatenate([y, np.asarray(yd)[~held]])
                both = topic is not None and topic_dev is not None
                said[held] = said_by_rule(
                    xx, yy,
                    np.concatenate([topic, topic_dev[~held]]) if both else None,  # type: ignore[list-item,index]
                    xd[held], topic_dev[held] if both else None,  # type: ignore[index]
                    args.folds,
                )  # fmt: skip
            dev_cv[k] = (np.asarray(yd), said)
        if args.nested:
            said_nested = nested_said(x, y, topic, args.folds)
            nested.append(_f1(list(zip(y.tolist(), said_nested.tolist(), strict=True))))
            nested_rules.append((y, said_nested.astype(float), 0.5))
        if use:
            review_rules.append((y, doc_oof, t))
        elif k in single:
            review_rules.append((y, np.asarray([oof[k][n] for n in train]), single[k]))
        report.append((k, int(y.sum()), sum(yd), old_train, cv_f1, old_dev, new_dev, use))
        if use:
            chosen[k] = {
                "topics": voters,
                "units": k in units_oof,
                "cues": True,
                "operative": bool(getattr(preset_column(k), "operative_cues", ())),
                "mean": [round(v, 6) for v in mean.tolist()],
                "scale": [round(v, 6) for v in scale.tolist()],
                "coef": [round(v, 6) for v in coef.tolist()],
                "intercept": round(b, 6),
                "threshold": round(t, 4),
                "penalty_c": c,
                "cv_f1_on_368": round(cv_f1, 3),
            }
    print(f"{'category':34} {'yes':>4} {'dev':>4}  368: old(cv) new(cv)  dev: old  new  used")
    dev_final = []
    for k, n, nd, ot, nt, od, nw, use in report:
        fmt = lambda v: f"{v:.3f}" if v is not None else "  -  "  # noqa: E731
        print(
            f"{k[:34]:34} {n:4d} {nd:4d}      {fmt(ot)} {fmt(nt)}      {fmt(od)} {fmt(nw)}  {use}"
        )
        if nd or use or (od is not None):
            dev_final.append(nw if use else (od or 0.0))
    cvs = [r[4] if r[7] else (r[3] if r[3] is not None else r[4]) for r in report]
    print(f"368 cross-validated yes-F1 of the chosen rule, mean: {sum(cvs) / len(cvs):.3f}")
    if nested:
        print(
            f"368 nested cross-validated yes-F1 mean (penalty, threshold and rule chosen inside "
            f"each outer fold, never on the contracts scored): {sum(nested) / len(nested):.3f}; "
            f"expected over reviews of {REVIEW_SIZE} drawn from them: "
            f"{review_mean(nested_rules):.3f}"
        )
    print(
        f"the same expected over reviews of {REVIEW_SIZE} contracts drawn from the 368 "
        f"(out-of-fold scores, thresholds chosen on them): {review_mean(review_rules):.3f}"
    )
    print(
        f"dev (blind) yes-F1 of the chosen rule, mean over {len(dev_final)} categories with a "
        f"rule: {sum(dev_final) / max(len(dev_final), 1):.3f}"
    )
    if args.dev_folds:
        for label, rules in (
            ("held-out (fitted on the 368)", dev_held),
            (f"cross-validated ({args.dev_folds} folds by contract, fitted on the 368 and the "
             "other folds)", dev_cv),
        ):  # fmt: skip
            mean_, n_cols = review_f1_mean(list(rules.values()))
            rng = np.random.default_rng(20261206)
            boot = sorted(
                review_f1_mean(list(rules.values()), rng.integers(0, len(dev), len(dev)))[0]
                for _ in range(2000)
            )
            print(
                f"dev {label}: yes-F1 mean over {n_cols} columns with a Yes said or due: "
                f"{mean_:.3f} (the 40 contracts resampled, 95% of 2,000 draws within "
                f"{boot[50]:.3f}-{boot[1949]:.3f})"
            )
    if args.write:
        current["fitted_ids"] = train
        current["doc_models"] = {k: chosen[k] for k in sorted(chosen)}
        current["doc_models_fitted_on"] = (
            f"{len(train)} CUAD contracts outside the 40-contract dev sample ({args.folds}-fold "
            "cross-validation by contract within them for the penalty and threshold)"
        )
        OUT.write_text(json.dumps(current, indent=1) + "\n")
        print(f"wrote {len(chosen)} document models to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
