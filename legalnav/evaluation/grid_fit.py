"""Fitting the review grid's filler on the CUAD dev contracts, judged on the values a reviewer
reads, with cross-validation by contract.

``scripts/eval_extract.py --fit`` calls ``main``. Per fold (contracts dealt round robin):

1. the unit and cell models are fitted on the other folds' contracts (fitting.py);
2. every contract is filled with those constants by the real filler (fill.fill_document), every
   cell kept whatever its confidence;
3. per preset column, from the other folds' cells only: for a typed column (dates, parties,
   periods, governing law) the confidence below which it should say "not found", the one that
   makes most values right; for a yes/no category the confidence below which it should say
   "No", the one with the best F1 of "Yes" (a column with fewer than ``MIN_POSITIVES`` "Yes"
   among those contracts takes the threshold pooled over all yes/no columns);
4. the held-out fold's cells are cut at those thresholds and scored: value figures
   (evaluation/values.py) and the AUPR of the spans.

The figures printed are the held-out ones; then everything is fitted on all the contracts, the
same figures are printed labelled in-sample, and those constants are what calibration.py keeps.
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from legalnav.evaluation import fitting
from legalnav.evaluation.values import (
    NOT_FOUND,
    ValueJudged,
    cuad_answers,
    judge_value,
    value_figures,
)
from legalnav.review import fill
from legalnav.review.columns import CUAD_COLUMNS, TYPED_KEYS, YES_NO_KEYS, column_from_request
from legalnav.review.scoring import Judged, aupr, overlaps

MIN_POSITIVES = 5


@dataclass(slots=True)
class Filled:
    doc: str
    key: str
    confidence: float
    value: str
    spans: list[tuple[int, int]]
    typed: bool = True  # the cell read a value of its column's type
    unread: bool = False  # the cell says it read none ("no date read"; fill.Cell.unread)


def constants_from(
    w_unit: np.ndarray, w_cell: np.ndarray, threshold: float, prior
) -> fill.Constants:  # type: ignore[no-untyped-def]
    offsets = fitting.cue_offsets()
    cues = {
        c.key: tuple(float(x) for x in w_unit[offsets[c.key] : offsets[c.key] + len(c.cues)])
        for c in CUAD_COLUMNS
        if c.cues
    }
    return fill.Constants(
        unit_weights=tuple(float(x) for x in w_unit[: len(fill.FEATURES)]),
        cue_weights=cues,
        cell_weights=tuple(float(x) for x in w_cell),
        threshold=threshold,
        priors=dict(prior),
        thresholds={},
        yes_thresholds={},
    )


def fill_all(names, data: Path, columns, constants: fill.Constants, adhoc) -> list[Filled]:  # type: ignore[no-untyped-def]
    """Every cell of every contract, none cut by a threshold (thresholds are chosen after)."""
    cols = [column_from_request(c["key"], c["question"], c["type"]) for c in columns]
    open_constants = dataclasses.replace(constants, threshold=0.0, thresholds={}, yes_thresholds={})
    out = []
    for name in names:
        path = str(data / "cuad" / "contracts" / name)
        cells = fill.fill_document(
            text=adhoc.text(path),
            retriever=adhoc.retriever([path]),
            columns=cols,
            constants=open_constants,
        )
        out += [
            Filled(name, c.key, c.confidence, c.value, list(c.spans), c.typed is not None, c.unread)
            for c in cells
        ]
    return out


def _value_at(f: Filled, t: float) -> tuple[str, bool]:
    return (f.value, True) if f.spans and f.confidence >= t else (NOT_FOUND, False)


def _f1(pairs: Sequence[tuple[bool, bool]]) -> float:
    tp = sum(g and p for g, p in pairs)
    fp = sum(p and not g for g, p in pairs)
    fn = sum(g and not p for g, p in pairs)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def _grid(cells: Sequence[Filled]) -> list[float]:
    """The thresholds worth trying: none, each cell's confidence, and above them all (a column
    whose cells of a kind are never right is better "not found" every time)."""
    return sorted({0.0, *(round(c.confidence, 4) for c in cells), 1.01})


def fit_thresholds(cells: Sequence[Filled], answers) -> tuple[dict[str, float], dict[str, float]]:  # type: ignore[no-untyped-def]
    """(not-found thresholds of typed columns, Yes thresholds of yes/no columns) from these
    cells (see the module docstring)."""
    by_key: dict[str, list[Filled]] = defaultdict(list)
    for c in cells:
        by_key[c.key].append(c)
    typed: dict[str, float] = {}
    for key in TYPED_KEYS:
        # Cells that read a typed value and cells that did not get thresholds of their own. A
        # cell that says it read nothing ("no date read", "no period read") holds no value a
        # reviewer can sign off: among thresholds that make as many values right, its group
        # takes the highest, so it stands only where it is right more often than "not found".
        for read, name in ((True, key), (False, f"{key} (no value)")):
            group = [c for c in by_key.get(key, []) if c.typed is read]
            unread = bool(group) and all(c.unread for c in group)
            tie = -1e-9 if unread else 1e-9
            best_t, best = 0.0, -1.0
            for t in _grid(group):
                marks = []
                for c in group:
                    value, found = _value_at(c, t)
                    r = judge_value(key, answers.get((c.doc, key), ""), value, found)
                    if r is not None:
                        marks.append(r)
                score = sum(marks) / len(marks) if marks else 0.0
                if score > best + tie:
                    best_t, best = t, max(best, score)
            typed[name] = best_t

    def yes_pairs(group: Sequence[Filled], t: float) -> list[tuple[bool, bool]]:
        return [
            (
                answers.get((c.doc, c.key), "") == "Yes",
                bool(c.spans) and c.confidence >= t and c.value.startswith("Yes"),
            )
            for c in group
        ]

    # Columns the clause-topic model decides (fill.topic_yes_thresholds, fitted on the other
    # 368 contracts) get no threshold from these cells.
    voted = fill.voted_columns()
    yes_cells = [c for c in cells if c.key in YES_NO_KEYS and c.key not in voted]
    pooled_t, pooled = 0.0, -1.0
    for t in [x / 100 for x in range(0, 96)]:
        score = _f1(yes_pairs(yes_cells, t))
        if score > pooled + 1e-9:
            pooled_t, pooled = t, score
    yes: dict[str, float] = {}
    for key in sorted(YES_NO_KEYS - set(voted)):
        group = by_key.get(key, [])
        positives = sum(answers.get((c.doc, key), "") == "Yes" for c in group)
        if positives < MIN_POSITIVES:
            yes[key] = pooled_t
            continue
        best_t, best = pooled_t, _f1(yes_pairs(group, pooled_t))
        for t in _grid(group):
            score = _f1(yes_pairs(group, t))
            if score > best + 1e-9:
                best_t, best = t, score
        yes[key] = best_t
    return typed, yes


def cut(
    cells: Sequence[Filled], typed: dict[str, float], yes: dict[str, float], base: float
) -> list[Filled]:
    """The cells as the filler with these thresholds shows them."""
    out = []
    voted = fill.voted_columns()
    for c in cells:
        if c.key in voted and c.value.startswith("Yes"):
            out.append(c)  # the topic model's Yes stands whatever the unit's confidence
        elif c.confidence < base:
            out.append(Filled(c.doc, c.key, c.confidence, NOT_FOUND, [], c.typed))
        elif c.key in typed:
            value, found = _value_at(c, typed[c.key if c.typed else f"{c.key} (no value)"])
            out.append(Filled(c.doc, c.key, c.confidence, value, c.spans if found else [], c.typed))
        elif c.key in yes and c.spans and c.confidence < yes[c.key]:
            out.append(Filled(c.doc, c.key, c.confidence, "No", c.spans, c.typed))
        else:
            out.append(c)
    return out


def figures(cells: Sequence[Filled], answers, spans, unlocated) -> dict[str, object]:  # type: ignore[no-untyped-def]
    judged_values = [
        ValueJudged(
            c.doc,
            c.key,
            answers.get((c.doc, c.key), ""),
            c.value if c.spans else NOT_FOUND,
            judge_value(c.key, answers.get((c.doc, c.key), ""), c.value, bool(c.spans)),
        )
        for c in cells
        if (c.doc, c.key) in answers
    ]
    out = value_figures(judged_values)
    by: dict[str, list[Judged]] = defaultdict(list)
    for c in cells:
        if (c.doc, c.key) in unlocated:
            continue
        gold = spans.get((c.doc, c.key), [])
        by[c.key].append(Judged(c.confidence, bool(c.spans), overlaps(c.spans, gold), bool(gold)))
    per = [aupr(v) for v in by.values()]
    per = [a for a in per if not math.isnan(a)]
    out["aupr_mean"] = sum(per) / len(per) if per else float("nan")
    out["aupr_pooled"] = aupr([j for v in by.values() for j in v])
    return out


def summary_line(label: str, f: dict[str, object]) -> str:
    keys = ("typed_right", "dates_right", "parties_right", "durations_right",
            "jurisdiction_right", "yes_no_accuracy", "yes_f1_pooled", "yes_f1_mean",
            "aupr_mean", "aupr_pooled")  # fmt: skip
    return f"{label}: " + ", ".join(f"{k} {float(f[k]):.3f}" for k in keys if k in f)  # type: ignore[arg-type]


def main(
    names, data: Path, spans, unlocated, columns, *, folds: int, cache, write: bool
) -> dict[str, object]:  # type: ignore[no-untyped-def]
    from django.conf import settings

    from legalnav.retrieval.adhoc import AdHocCorpora

    rows = [
        json.loads(x) for x in (data / "cuad" / "spans.jsonl").open(encoding="utf-8") if x.strip()
    ]
    answers = cuad_answers(rows, set(names))
    adhoc = AdHocCorpora(Path(cache or settings.LEGALNAV_RETRIEVE_CACHE))
    features = fitting.collect(names, data, spans, unlocated, columns, cache=cache)
    fold = {name: n % folds for n, name in enumerate(names)}
    held: list[Filled] = []
    for f in range(folds):
        train_docs = [n for n in names if fold[n] != f]
        w_unit, w_cell, threshold, prior = fitting.fit([c for c in features if fold[c.doc] != f])
        constants = constants_from(w_unit, w_cell, threshold, prior)
        filled = fill_all(names, data, columns, constants, adhoc)
        train = [c for c in filled if c.doc in set(train_docs)]
        typed, yes = fit_thresholds(train, answers)
        held += cut([c for c in filled if fold[c.doc] == f], typed, yes, threshold)
        print(f"fold {f}: fitted on {len(train_docs)} contracts", flush=True)
    cv = figures(held, answers, spans, unlocated)
    dump = Path(settings.BASE_DIR) / "var" / "evaluation" / "grid-fit-held.json"
    dump.parent.mkdir(parents=True, exist_ok=True)
    dump.write_text(
        json.dumps(
            [
                {
                    "doc": c.doc,
                    "key": c.key,
                    "confidence": c.confidence,
                    "value": c.value,
                    "spans": c.spans,
                    "typed": c.typed,
                }
                for c in held
            ]
        ),
        encoding="utf-8",
    )
    print(f"held-out cells written to {dump}")
    w_unit, w_cell, threshold, prior = fitting.fit(features)
    constants = constants_from(w_unit, w_cell, threshold, prior)
    filled = fill_all(names, data, columns, constants, adhoc)
    typed, yes = fit_thresholds(filled, answers)
    insample = figures(cut(filled, typed, yes, threshold), answers, spans, unlocated)
    lines = [
        summary_line(f"cross-validated ({folds} folds by contract)", cv),
        summary_line("in-sample (fitted and scored on the same contracts)", insample),
    ]
    for line in lines:
        print(line)
    print("cross-validated per column:", cv["per_key"], cv["yes_f1_per_key"])
    source = fitting.calibration_source(w_unit, w_cell, threshold, prior, names, folds, lines)
    source += "\n".join(
        [
            '# Per typed preset column, the confidence below which its cell says "not found": the one',
            "# that makes most values right on the fitting contracts (evaluation/grid_fit.py).",
            "COLUMN_THRESHOLDS: dict[str, float] = {",
            *(f"    {k!r}: {v:.4f}," for k, v in sorted(typed.items())),
            "}",
            '# Per yes/no preset column, the confidence below which its cell says "No" (its',
            '# quotation still shown): the best F1 of "Yes" on the fitting contracts.',
            "YES_THRESHOLDS: dict[str, float] = {",
            *(f"    {k!r}: {v:.4f}," for k, v in sorted(yes.items())),
            "}",
            "# The contracts these constants saw: an evaluation that scores any of them is in-sample.",
            "FITTED_ON: tuple[str, ...] = (",
            *(f"    {n!r}," for n in names),
            ")",
            "",
        ]
    )
    if write:
        fitting.CALIBRATION.write_text(source, encoding="utf-8")
        # Laid out as the rest of the code, so a refit's diff shows only the numbers that moved.
        ruff = Path(sys.executable).with_name("ruff")
        if ruff.exists():
            subprocess.run([str(ruff), "format", "-q", str(fitting.CALIBRATION)], check=False)
        print(f"wrote {fitting.CALIBRATION}")
    return {"cross_validated": cv, "in_sample": insample}
