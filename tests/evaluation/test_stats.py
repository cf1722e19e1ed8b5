"""Exact statistics against published and independently computed values."""

from __future__ import annotations

import math

import pytest

from legalnav.evaluation.stats import (
    PairedOutcome,
    binom_test,
    clopper_pearson,
    decisive_needed,
    questions_needed,
    sign_test_power,
)


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (7, 10, 0.3475, 0.9333),  # the textbook value
        (2, 15, 0.0166, 0.4046),  # the study's judge audit: 2/15 likely wrong, [2%, 40%]
        (10, 15, 0.3838, 0.8818),  # the study's forced-decision probe: [0.38, 0.88]
        (18, 18, 0.8147, 1.0),  # a clean sweep bounds the rate only to >= 0.81
        (0, 20, 0.0, 0.1684),
    ],
)
def test_clopper_pearson_known_values(k, n, low, high):
    interval = clopper_pearson(k, n)
    assert interval.low == pytest.approx(low, abs=5e-5)
    assert interval.high == pytest.approx(high, abs=5e-5)
    assert interval.rate == k / n


def test_clopper_pearson_matches_beta_quantiles():
    beta = pytest.importorskip("scipy.stats").beta
    for k, n in [(1, 3), (5, 40), (33, 41), (120, 560), (299, 300)]:
        interval = clopper_pearson(k, n, confidence=0.9)
        assert interval.low == pytest.approx(beta.ppf(0.05, k, n - k + 1), abs=1e-7)
        assert interval.high == pytest.approx(beta.ppf(0.95, k + 1, n - k), abs=1e-7)


def test_clopper_pearson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        clopper_pearson(3, 2)
    assert (clopper_pearson(0, 0).low, clopper_pearson(0, 0).high) == (0.0, 1.0)


def test_binomial_test_known_values():
    # 10 wins to 5: the study's p = 0.30; by hand 2 * sum_{i<=5} C(15,i) / 2^15.
    by_hand = 2 * sum(math.comb(15, i) for i in range(6)) / 2**15
    assert binom_test(10, 15) == pytest.approx(by_hand, abs=1e-12)
    assert round(binom_test(10, 15), 2) == 0.30
    assert binom_test(0, 2) == pytest.approx(0.5)
    assert binom_test(5, 10) == pytest.approx(1.0)
    assert binom_test(0, 0) == 1.0


def test_binomial_test_matches_scipy_including_asymmetric_nulls():
    binomtest = pytest.importorskip("scipy.stats").binomtest
    for k, n, p in [(7, 20, 0.3), (1, 12, 0.5), (30, 41, 0.6), (0, 9, 0.2), (17, 17, 0.9)]:
        assert binom_test(k, n, p) == pytest.approx(binomtest(k, n, p).pvalue, rel=1e-9)


def test_sign_test_power_by_enumeration():
    # 20 decisive pairs, true share 0.8: power = P(reject) summed over the rejection region.
    n, share = 20, 0.8
    region = [x for x in range(n + 1) if binom_test(x, n) <= 0.05]
    expected = sum(math.comb(n, x) * share**x * (1 - share) ** (n - x) for x in region)
    assert sign_test_power(n, share) == pytest.approx(expected, abs=1e-12)
    assert sign_test_power(5, 0.99) == 0.0  # five pairs can never reach p <= 0.05 two-sided


def test_questions_needed_for_a_difference():
    # A true 80/20 split of decisive pairs needs 20 decisive pairs; the first n with 80% power.
    assert decisive_needed(0.8) == 20
    assert sign_test_power(19, 0.8) < 0.8 <= sign_test_power(20, 0.8)
    # With ties in between, more questions: 30% wins, 10% losses, 60% ties.
    n = questions_needed(0.3, 0.1)
    assert n is not None and n > decisive_needed(0.75)  # type: ignore[operator]
    assert questions_needed(0.2, 0.2) is None  # equal rates are never detected
    with pytest.raises(ValueError):
        questions_needed(0.7, 0.5)


def test_paired_outcome_summary():
    summary = PairedOutcome(wins=0, losses=2, ties=16).as_dict()
    assert summary["n"] == 18 and summary["ties"] == 16
    assert summary["binomial_p"] == 0.5
    assert summary["tie_rate"]["low"] == pytest.approx(clopper_pearson(16, 18).low, abs=1e-4)
