"""AUPR and precision at recall over judged cells, on cases worked by hand."""

from __future__ import annotations

import math

from legalnav.review.scoring import (
    Judged,
    aupr,
    cell_figures,
    overlaps,
    precision_at_recall,
)


def J(confidence: float, found: bool, hit: bool, gold: bool) -> Judged:  # noqa: N802
    return Judged(confidence, found, hit, gold)


def test_perfect_ranking_and_a_miss_at_the_top():
    cells = [J(0.9, True, True, True), J(0.8, True, True, True), J(0.1, False, False, False)]
    assert aupr(cells) == 1.0 and precision_at_recall(cells) == 1.0
    # A wrong quotation ranked first: precision 1/2 at the first gold, 2/3 at the second.
    worse = [J(0.95, True, False, False), *cells]
    assert math.isclose(aupr(worse), 0.5 * 0.5 + 0.5 * (2 / 3))
    assert math.isclose(precision_at_recall(worse, 0.8), 2 / 3)


def test_not_found_on_gold_caps_recall_and_ties_earn_nothing():
    cells = [J(0.9, True, True, True), J(0.2, False, False, True)]
    assert aupr(cells) == 0.5 and precision_at_recall(cells, 0.8) == 0.0
    tied = [J(0.5, True, True, True), J(0.5, True, False, False)]
    assert aupr(tied) == 0.5  # a constant confidence ranks the miss first
    figures = cell_figures([*cells, J(0.1, False, False, False)])
    assert figures["precision"] == 1.0 and figures["recall"] == 0.5
    assert math.isclose(figures["accuracy"], 2 / 3)


def test_overlap_is_strict_intersection():
    assert overlaps([(10, 20)], [(19, 30)]) and not overlaps([(10, 20)], [(20, 30)])
    assert math.isnan(aupr([J(0.3, True, False, False)]))
