"""scripts/fit_yes_docs.py's nested cross-validation: what it says for a contract never depends
on that contract's own label, so its figure is cross-validated with nothing chosen on it."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import fit_yes_docs  # noqa: E402


def _data(seed: int = 3):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(120, 4))
    y = (x[:, 0] + 0.8 * rng.normal(size=120)) > 0.9
    topic = 1 / (1 + np.exp(-(x[:, 1] + x[:, 0])))
    return x, y, topic


def test_nested_said_never_reads_the_label_of_the_contract_it_scores():
    x, y, topic = _data()
    folds = 5
    said = fit_yes_docs.nested_said(x, y, topic, folds)
    outer = fit_yes_docs.outer_folds(len(y), folds)
    for g in range(folds):
        flipped = y.copy()
        flipped[outer == g] = ~flipped[outer == g]  # the held fold's labels, reversed
        again = fit_yes_docs.nested_said(x, flipped, topic, folds)
        assert (again[outer == g] == said[outer == g]).all()
        assert (again[outer != g] != said[outer != g]).any()  # the other folds did read them


def test_the_procedure_says_yes_where_the_signal_is():
    x, y, topic = _data()
    said = fit_yes_docs.said_by_rule(x[:100], y[:100], topic[:100], x[100:], topic[100:], 5)
    tp = int((said & y[100:]).sum())
    assert said.dtype == bool and tp >= 1 and said.sum() < 20
