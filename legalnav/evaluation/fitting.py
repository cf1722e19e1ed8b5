"""Fitting fill.py's constants on gold spans, with cross-validation by document.

Called by ``scripts/eval_extract.py --fit`` on the CUAD dev contracts. Each candidate unit's
features are computed once (fill.candidates); then, per fold, the unit model is fitted on the
other folds' units, the cell model on the other folds' cells, and the "not found" threshold on
the other folds' cell accuracy, and the held-out fold's cells are scored. The figures printed are
the held-out ones; the constants printed are those fitted on every document, which fill.py keeps.

Logistic regression is a few lines of Newton's method here rather than a scikit-learn
dependency the product does not otherwise need.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from legalnav.review import fill
from legalnav.review.columns import CUAD_COLUMNS, Column, column_from_request
from legalnav.review.scoring import Judged, aupr, cell_figures, overlaps, precision_at_recall


def logistic(
    x: np.ndarray,
    y: np.ndarray,
    *,
    l2: float = 1.0,
    iterations: int = 50,
    raw_from: int | None = None,
) -> np.ndarray:
    """Weights w (first column of x is the bias, not penalised) maximising the L2-penalised
    log-likelihood of y under sigmoid(x @ w). Features are standardised inside and the weights
    folded back, so the penalty treats them alike; columns from ``raw_from`` on (the 0/1 cue
    patterns) are penalised on their own scale instead: standardising a pattern that fires in a
    handful of sentences would let its weight grow without bound (a cue seen in two contracts
    weighed +10)."""
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    mean[0], std[0] = 0.0, 1.0
    std[std == 0] = 1.0
    if raw_from is not None:
        mean[raw_from:], std[raw_from:] = 0.0, 1.0
    z = (x - mean) / std
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -40, 40)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    folded = w / std
    folded[0] = w[0] - float((w[1:] * mean[1:] / std[1:]).sum())
    return folded


@dataclass(slots=True)
class CellData:
    doc: str
    key: str
    x: np.ndarray  # candidate features, one row per candidate: FEATURES, then every cue
    # pattern of every preset column (see cue_offsets), this column's set where they match
    y: np.ndarray  # candidate overlaps gold
    spans: list[tuple[int, int]]
    has_gold: bool


def collect(names, data: Path, spans, unlocated, columns, *, cache: str | None) -> list[CellData]:  # type: ignore[no-untyped-def]
    """Every (contract, column) cell's candidates with features and labels."""
    from django.conf import settings

    from legalnav.retrieval.adhoc import AdHocCorpora

    adhoc = AdHocCorpora(Path(cache or settings.LEGALNAV_RETRIEVE_CACHE))
    cols: list[Column] = [column_from_request(c["key"], c["question"], c["type"]) for c in columns]
    offsets = cue_offsets()
    width = len(fill.FEATURES) + sum(len(c.cues) for c in CUAD_COLUMNS)
    out = []
    for n, name in enumerate(names):
        path = str(data / "cuad" / "contracts" / name)
        retriever = adhoc.retriever([path])
        view = fill.DocumentView(adhoc.text(path), retriever)
        vectors = view.question_vectors([c.search_text for c in cols])
        for column, qvec in zip(cols, vectors, strict=True):
            if (name, column.key) in unlocated:
                continue
            gold = spans.get((name, column.key), [])
            # Every candidate with its own vector, as the fill rescores its best few with.
            own = set(fill.pick_units(view, column, qvec).picked)
            found = fill.candidates(view, column, qvec, own=own)
            x = np.zeros((len(found), width))
            for i, c in enumerate(found):
                x[i, : len(fill.FEATURES)] = c.features
                if column.key in offsets and c.cue_hits.size:
                    at = offsets[column.key]
                    x[i, at : at + c.cue_hits.size] = c.cue_hits
            y = np.array([overlaps([(c.start, c.end)], gold) for c in found], dtype=np.float64)
            out.append(
                CellData(name, column.key, x, y, [(c.start, c.end) for c in found], bool(gold))
            )
        adhoc.flush()
        print(f"features: {n + 1}/{len(names)} {name[:60]}", flush=True)
    return out


def cue_offsets() -> dict[str, int]:
    """Where each preset column's cue patterns start in a feature row."""
    out, at = {}, len(fill.FEATURES)
    for column in CUAD_COLUMNS:
        out[column.key] = at
        at += len(column.cues)
    return out


def priors(cells: Sequence[CellData]) -> dict[str, float]:
    """Per column, the log-odds that a contract has gold for it (+1/+2 smoothing)."""
    seen: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for c in cells:
        seen[c.key][0] += c.has_gold
        seen[c.key][1] += 1
    return {k: math.log((g + 1) / (n - g + 1)) for k, (g, n) in seen.items()}


def best_logits(cells: Sequence[CellData], w: np.ndarray) -> list[tuple[float, int, int]]:
    """Per cell, (the best candidate's logit, its index, the index of the second quotation fill
    would add or -1); (-inf, -1, -1) when there is no candidate."""
    out = []
    for c in cells:
        if not len(c.x):
            out.append((-math.inf, -1, -1))
            continue
        logits = c.x @ w
        order = sorted(range(len(logits)), key=lambda i: (-logits[i], c.spans[i][0]))
        j, second = order[0], -1
        if len(order) > 1:
            k = order[1]
            (a, b), (a2, b2) = c.spans[j], c.spans[k]
            far = b2 <= a or a2 >= b
            if far and _sig(logits[k]) >= fill.SECOND_SPAN_RATIO * _sig(logits[j]):
                second = k
        out.append((float(logits[j]), j, second))
    return out


def _sig(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, float(x)))))


def fit(cells: Sequence[CellData]) -> tuple[np.ndarray, np.ndarray, float, dict[str, float]]:
    """(unit weights, cell weights, threshold, priors) fitted on these cells."""
    x = np.vstack([c.x for c in cells if len(c.x)])
    y = np.concatenate([c.y for c in cells if len(c.x)])
    w_unit = logistic(x, y, l2=UNIT_L2, raw_from=len(fill.FEATURES))
    prior = priors(cells)
    best = best_logits(cells, w_unit)
    rows, labels = [], []
    for c, (logit, j, _) in zip(cells, best, strict=True):
        if j < 0:
            continue
        rows.append(fill.cell_features(logit, prior[c.key]))
        labels.append(float(c.y[j]))
    w_cell = logistic(np.vstack(rows), np.array(labels))
    conf = confidences(cells, w_unit, w_cell, prior)
    # The threshold trades the grid's "not found" against the ranking: the highest accuracy among
    # the thresholds that cost at most AUPR_SLACK of the mean per-column AUPR (a threshold that
    # maximised accuracy alone blanks every cell of a rare column, whose AUPR falls to 0).
    keys = [c.key for c in cells]
    base = figures(judge(cells, conf, 0.0, w_unit), keys)["aupr_mean"]
    best_t, best_acc = 0.0, -1.0
    for t in (x / 100 for x in range(0, 60, 1)):
        fig = figures(judge(cells, conf, t, w_unit), keys)
        if fig["aupr_mean"] >= base - AUPR_SLACK and fig["accuracy"] > best_acc:
            best_t, best_acc = t, fig["accuracy"]
    return w_unit, w_cell, best_t, prior


def confidences(cells, w_unit, w_cell, prior) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for c, (logit, j, _) in zip(cells, best_logits(cells, w_unit), strict=True):
        if j < 0:
            out.append(0.0)
            continue
        z = float(fill.cell_features(logit, prior.get(c.key, fill.DEFAULT_PRIOR)) @ w_cell)
        out.append(1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z)))))
    return out


def judge(cells, conf, threshold: float, w_unit) -> list[Judged]:  # type: ignore[no-untyped-def]
    out = []
    for c, p, (_, j, second) in zip(cells, conf, best_logits(cells, w_unit), strict=True):
        found = j >= 0 and p >= threshold
        hit = found and (bool(c.y[j]) or (second >= 0 and bool(c.y[second])))
        out.append(Judged(p, found, hit, c.has_gold))
    return out


AUPR_SLACK = 0.01
# The unit model's L2 penalty on standardised features.
UNIT_L2 = 3.0


def figures(judged: Sequence[Judged], keys: Sequence[str]) -> dict[str, float]:
    by: dict[str, list[Judged]] = defaultdict(list)
    for key, j in zip(keys, judged, strict=True):
        by[key].append(j)
    per = [aupr(v) for v in by.values()]
    per = [a for a in per if not math.isnan(a)]
    p80 = [precision_at_recall(v) for v in by.values() if any(j.has_gold for j in v)]
    return {
        "aupr_mean": sum(per) / len(per),
        "p@80r_mean": sum(p80) / len(p80),
        "aupr_pooled": aupr(judged),
        **cell_figures(judged),
    }


def main(
    names, data, spans, unlocated, columns, *, folds: int, cache: str | None, write: bool
) -> None:  # type: ignore[no-untyped-def]
    cells = collect(names, data, spans, unlocated, columns, cache=cache)
    # Folds by contract, round robin over the names in order (balanced, and reproducible).
    fold = {name: n % folds for n, name in enumerate(names)}
    held: list[Judged | None] = [None] * len(cells)
    held_open: list[Judged | None] = [None] * len(cells)  # no "not found" threshold
    for f in range(folds):
        train = [c for c in cells if fold[c.doc] != f]
        test_at = [i for i, c in enumerate(cells) if fold[c.doc] == f]
        w_unit, w_cell, threshold, prior = fit(train)
        test = [cells[i] for i in test_at]
        conf = confidences(test, w_unit, w_cell, prior)
        for i, j in zip(test_at, judge(test, conf, threshold, w_unit), strict=True):
            held[i] = j
        for i, j in zip(test_at, judge(test, conf, 0.0, w_unit), strict=True):
            held_open[i] = j
        print(f"fold {f}: {len({c.doc for c in test})} contracts, threshold {threshold:.2f}")
    keys = [c.key for c in cells]
    summary = []
    for label, judged in (("with the threshold", held), ("without it", held_open)):
        fig = figures([j for j in judged if j is not None], keys)
        summary.append(f"{label}: " + ", ".join(f"{k} {v:.3f}" for k, v in fig.items()))
        print(summary[-1])
    by: dict[str, list[Judged]] = defaultdict(list)
    for key, j in zip(keys, held_open, strict=True):
        if j is not None:
            by[key].append(j)
    for key, js in sorted(
        by.items(), key=lambda kv: -aupr(kv[1]) if any(j.has_gold for j in kv[1]) else 1
    ):
        cf = cell_figures(js)
        print(
            f"  {key:<36} gold {sum(j.has_gold for j in js):>3} aupr {aupr(js):.3f} "
            f"best-quotation recall {cf['recall']:.3f}"
        )
    w_unit, w_cell, threshold, prior = fit(cells)
    source = calibration_source(w_unit, w_cell, threshold, prior, names, folds, summary)
    if write:
        CALIBRATION.write_text(source, encoding="utf-8")
        print(f"\nwrote {CALIBRATION}")
    else:
        print("\n" + source)


# The module this fit writes stays with the filler that reads it, in review/.
CALIBRATION = Path(__file__).resolve().parents[1] / "review" / "calibration.py"


def calibration_source(w_unit, w_cell, threshold, prior, names, folds, summary) -> str:  # type: ignore[no-untyped-def]
    """calibration.py's text: the constants fitted on every contract, and how."""
    lines = [
        '"""Fitted constants of the offline cell filler (fill.py). Generated: do not edit by hand.',
        "",
        "Written by ``scripts/eval_extract.py --fit --write`` (legalnav/evaluation/fitting.py): logistic",
        f"models fitted on the {len(names)} CUAD dev contracts (every tenth contract in name order) x the",
        f"41 preset columns, with L2 penalty {UNIT_L2} on standardised features (cue patterns on their",
        "own scale). Held-out figures, by",
        f"{folds}-fold cross-validation by contract (fit on the other folds, score the held-out one):",
        *(f"    {line}" for line in summary),
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "# Unit model: one weight per fill.FEATURES name, in order.",
        "UNIT_WEIGHTS: tuple[float, ...] = (",
        *(f"    {w:.4f},  # {name}" for name, w in zip(fill.FEATURES, w_unit, strict=False)),
        ")",
        "# Per preset column, one weight per cue pattern, in the column's order.",
        "CUE_WEIGHTS: dict[str, tuple[float, ...]] = {",
    ]
    offsets = cue_offsets()
    for column in CUAD_COLUMNS:
        if column.cues:
            at = offsets[column.key]
            ws = ", ".join(f"{w:.4f}" for w in w_unit[at : at + len(column.cues)])
            lines.append(f"    {column.key!r}: ({ws},),")
    lines += [
        "}",
        "# Cell model over fill.cell_features: (bias, best unit's log-odds, column prior log-odds).",
        f"CELL_WEIGHTS: tuple[float, ...] = ({', '.join(f'{w:.4f}' for w in w_cell)})",
        '# Below this confidence a cell says "not found": the most accurate threshold costing at most',
        f"# {AUPR_SLACK} of mean per-column AUPR on the fitting contracts.",
        f"NOT_FOUND_BELOW = {threshold:.2f}",
        "# Log-odds that a contract has gold for the column (+1/+2 smoothing).",
        "COLUMN_PRIORS: dict[str, float] = {",
        *(f"    {key!r}: {value:.4f}," for key, value in sorted(prior.items())),
        "}",
        "",
    ]
    return "\n".join(lines)
