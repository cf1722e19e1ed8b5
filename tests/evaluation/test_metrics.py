"""Retrieval metrics on small rankings worked out by hand."""

from __future__ import annotations

import math

import pytest

from legalnav.evaluation.metrics import (
    Range,
    authority_recall,
    average_precision,
    footprint,
    hit_at_k,
    ndcg_at_k,
    node_covers,
    precision_at_k,
    ranking_metrics,
    recall_at_k,
    reciprocal_rank,
    span_coverage,
    span_covers,
)

GOLD = [Range(0, 100, 200), Range(0, 500, 520), Range(1, 0, 50)]
RETURNED = [
    Range(0, 0, 90),  # touches nothing (ends before 100)
    Range(0, 150, 260),  # gold 0
    Range(1, 40, 60),  # gold 2
    Range(0, 180, 199),  # gold 0 again: no new gold
    Range(0, 520, 600),  # starts where gold 1 ends: no overlap (end exclusive)
]


def test_span_covers_uses_half_open_overlap_in_the_same_document():
    covers = span_covers(RETURNED, GOLD)
    assert covers == [frozenset(), {0}, {2}, {0}, frozenset()]
    assert span_covers([Range(1, 100, 200)], GOLD) == [frozenset()]  # other document


def test_rank_metrics_by_hand():
    covers = span_covers(RETURNED, GOLD)
    assert not hit_at_k(covers, 1) and hit_at_k(covers, 2)
    assert reciprocal_rank(covers, 10) == 0.5
    assert reciprocal_rank(covers, 1) == 0.0
    assert precision_at_k(covers, 5) == pytest.approx(3 / 5)
    assert precision_at_k(covers, 10) == pytest.approx(3 / 10)  # fewer items are not rewarded
    assert recall_at_k(covers, 3, 2) == pytest.approx(1 / 3)
    assert recall_at_k(covers, 3, 5) == pytest.approx(2 / 3)
    # gains at ranks 2 and 3 only (rank 4 finds nothing new); ideal: three gains at 1, 2, 3.
    dcg = 1 / math.log2(3) + 1 / math.log2(4)
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(covers, 3, 5) == pytest.approx(dcg / ideal)
    assert average_precision(covers, 3, 5) == pytest.approx((1 / 2 + 2 / 3) / 3)


def test_perfect_ranking_scores_one():
    covers = [frozenset({0}), frozenset({1})]
    metrics = ranking_metrics(covers, 2, ks=(1, 2))
    assert metrics["hit@1"] == 1.0 and metrics["recall@2"] == 1.0
    assert metrics["ndcg@2"] == pytest.approx(1.0) and metrics["mrr@2"] == 1.0
    assert metrics["precision@2"] == 1.0


def test_node_covers():
    covers = node_covers(["s2", "s9.10", "s1", "s9.10"], ["s9.10", "s4"])
    assert covers == [frozenset(), {0}, frozenset(), {0}]
    assert recall_at_k(covers, 2, 10) == 0.5


def test_span_coverage_counts_gold_characters_once():
    gold = [Range(0, 100, 200), Range(0, 150, 250)]  # union 100..250: 150 characters
    returned = [Range(0, 0, 120), Range(0, 110, 130), Range(0, 240, 400)]
    # covered: 100..130 (30) and 240..250 (10)
    assert span_coverage(returned, gold, 10) == pytest.approx(40 / 150)
    assert span_coverage(returned, gold, 1) == pytest.approx(20 / 150)
    with pytest.raises(ValueError):
        span_coverage(returned, [], 10)


def test_footprint_is_characters_sent_over_the_document_set():
    assert footprint(RETURNED, 10_000, 2) == pytest.approx((90 + 110) / 10_000)


def test_authority_recall_separates_adverse_from_supporting():
    found = authority_recall(
        ["[2002] EWCA Civ 1825", "Dunn v Durham"],
        adverse=["[2019] UKSC 5", "Dunn v Durham"],
        support=["[2002] EWCA Civ 1825"],
    )
    assert found == {"adverse_recall": 0.5, "support_recall": 1.0}
    assert authority_recall([], adverse=[], support=["x"])["adverse_recall"] is None
