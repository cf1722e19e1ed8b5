"""Exact small-sample statistics for evaluation counts, in pure Python (no SciPy at run time).

The study reports every rate with a two-sided exact Clopper–Pearson interval, because its counts
are small (n = 15–20) and several rates sit at 0 or 1, where the normal approximation collapses
(the Wald interval of 18/18 has zero width). A win/loss split is tested with the exact binomial
(sign) test, ties set aside. And before a run, ``questions_needed`` says how many paired
questions a difference of a given size needs to be detected at all.

Binomial probabilities are computed in log space with ``math.lgamma`` and summed with
``math.fsum``, which is exact enough for the counts an evaluation produces (tens of thousands).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

# SciPy's relative tolerance when it compares probabilities in the two-sided test: outcomes as
# likely as the observed one, up to rounding, count as "at least as extreme".
_RELATIVE_TOLERANCE = 1 + 1e-7


def _check(k: int, n: int) -> None:
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")


def _log_pmf(i: int, n: int, p: float) -> float:
    if p <= 0.0:
        return 0.0 if i == 0 else -math.inf
    if p >= 1.0:
        return 0.0 if i == n else -math.inf
    return (
        math.lgamma(n + 1)
        - math.lgamma(i + 1)
        - math.lgamma(n - i + 1)
        + i * math.log(p)
        + (n - i) * math.log1p(-p)
    )


def binom_pmf(i: int, n: int, p: float) -> float:
    """P(X = i) for X ~ Binomial(n, p)."""
    if i < 0 or i > n:
        return 0.0
    return math.exp(_log_pmf(i, n, p))


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return min(1.0, math.fsum(binom_pmf(i, n, p) for i in range(k + 1)))


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X > k)."""
    if k < 0:
        return 1.0
    if k >= n:
        return 0.0
    return min(1.0, math.fsum(binom_pmf(i, n, p) for i in range(k + 1, n + 1)))


def _solve(f, target: float, lo: float = 0.0, hi: float = 1.0) -> float:  # type: ignore[no-untyped-def]
    """The p in [lo, hi] where the decreasing function f crosses ``target`` (bisection to 1e-12)."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2


@dataclass(frozen=True, slots=True)
class Interval:
    k: int
    n: int
    low: float
    high: float
    confidence: float = 0.95

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None

    def as_dict(self) -> dict[str, object]:
        return {
            "k": self.k,
            "n": self.n,
            "rate": None if self.rate is None else round(self.rate, 4),
            "low": round(self.low, 4),
            "high": round(self.high, 4),
            "confidence": self.confidence,
        }

    def __str__(self) -> str:
        if not self.n:
            return "0/0"
        return f"{self.k}/{self.n} = {self.rate:.3f} [{self.low:.3f}, {self.high:.3f}]"


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> Interval:
    """The exact two-sided interval for a binomial rate k/n.

    The lower end is the p at which seeing k or more successes has probability α/2, the upper
    end the p at which seeing k or fewer has probability α/2 (the Beta-quantile form,
    Beta(α/2; k, n−k+1) and Beta(1−α/2; k+1, n−k), gives the same numbers). With n = 0 the
    interval is the whole of [0, 1].
    """
    _check(k, n)
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    if n == 0:
        return Interval(0, 0, 0.0, 1.0, confidence)
    alpha = 1 - confidence
    # P(X >= k | p) increases with p: solve on its complement, which decreases.
    low = 0.0 if k == 0 else _solve(lambda p: binom_cdf(k - 1, n, p), 1 - alpha / 2)
    high = 1.0 if k == n else _solve(lambda p: binom_cdf(k, n, p), alpha / 2)
    return Interval(k, n, low, high, confidence)


def binom_test(k: int, n: int, p: float = 0.5) -> float:
    """The exact two-sided binomial test: the probability, under Binomial(n, p), of an outcome no
    more likely than the observed k (SciPy's ``binomtest(...).pvalue`` definition)."""
    _check(k, n)
    if not 0 <= p <= 1:
        raise ValueError("p must be between 0 and 1")
    if n == 0:
        return 1.0
    observed = binom_pmf(k, n, p)
    total = math.fsum(
        q for q in (binom_pmf(i, n, p) for i in range(n + 1)) if q <= observed * _RELATIVE_TOLERANCE
    )
    return min(1.0, total)


@lru_cache(maxsize=8192)
def _sign_critical(n: int, alpha: float) -> int:
    """The largest c with a two-sided exact sign test rejecting at x <= c (and x >= n - c);
    -1 when no outcome of n decisive pairs can reach significance.

    Under p = 0.5 the distribution is symmetric, so for x < n/2 the two-sided p-value is
    2·P(X <= x): accumulate the lower tail until it passes α/2."""
    c, tail = -1, 0.0
    for x in range((n + 1) // 2):
        tail += binom_pmf(x, n, 0.5)
        if 2 * tail <= alpha * _RELATIVE_TOLERANCE:
            c = x
        else:
            break
    return c


def sign_test_power(n: int, p: float, alpha: float = 0.05) -> float:
    """The chance that the exact two-sided sign test on n decisive pairs rejects p = 0.5 when
    one side truly wins each decisive pair with probability p."""
    c = _sign_critical(n, alpha)
    if c < 0:
        return 0.0
    return min(1.0, binom_cdf(c, n, p) + binom_sf(n - c - 1, n, p))


def questions_needed(
    win_rate: float,
    loss_rate: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    max_questions: int = 5000,
) -> int | None:
    """The fewest paired questions for which the exact sign test on the decisive ones (wins
    against losses, ties set aside) detects the difference with the given power.

    ``win_rate`` and ``loss_rate`` are the expected shares of *all* questions that A wins and
    loses (the rest are ties). Paired correctness works the same way (McNemar's exact test):
    win = A right and B wrong, loss = the reverse. The number of decisive pairs among n
    questions is itself Binomial(n, win + loss), and the power is averaged over it exactly.
    Exact power is not monotone in n (a saw-tooth); this returns the first n that reaches it,
    or None when even ``max_questions`` does not (equal rates never do).
    """
    if not (0 <= win_rate <= 1 and 0 <= loss_rate <= 1 and win_rate + loss_rate <= 1):
        raise ValueError("win and loss rates must be shares that add up to at most 1")
    decisive = win_rate + loss_rate
    if decisive == 0 or win_rate == loss_rate:
        return None
    share = win_rate / decisive
    powers = [0.0]  # powers[d]: the sign test's power with d decisive pairs
    for n in range(1, max_questions + 1):
        powers.append(sign_test_power(n, share, alpha))
        total = math.fsum(
            binom_pmf(d, n, decisive) * powers[d] for d in range(n + 1) if powers[d] > 0
        )
        if total >= power:
            return n
    return None


def decisive_needed(
    share: float, *, alpha: float = 0.05, power: float = 0.8, max_pairs: int = 5000
) -> int | None:
    """The fewest decisive pairs (wins plus losses) for the exact sign test to detect a true win
    share ``share`` (≠ 0.5) with the given power; None when ``max_pairs`` is not enough."""
    if not 0 <= share <= 1:
        raise ValueError("share must be between 0 and 1")
    if share == 0.5:
        return None
    for n in range(1, max_pairs + 1):
        if sign_test_power(n, share, alpha) >= power:
            return n
    return None


@dataclass(frozen=True, slots=True)
class PairedOutcome:
    """A judged (or paired-correctness) comparison of A against B over the same questions."""

    wins: int  # A preferred
    losses: int  # B preferred
    ties: int

    @property
    def n(self) -> int:
        return self.wins + self.losses + self.ties

    def as_dict(self, confidence: float = 0.95) -> dict[str, object]:
        n, decisive = self.n, self.wins + self.losses
        needed = None
        if n and self.wins != self.losses:
            # Capped: a difference needing thousands of questions is "not measurable here".
            needed = questions_needed(self.wins / n, self.losses / n, max_questions=2000)
        return {
            "a_wins": self.wins,
            "b_wins": self.losses,
            "ties": self.ties,
            "n": n,
            "tie_rate": clopper_pearson(self.ties, n, confidence).as_dict(),
            "a_win_rate": clopper_pearson(self.wins, n, confidence).as_dict(),
            "b_win_rate": clopper_pearson(self.losses, n, confidence).as_dict(),
            "a_share_of_decisive": clopper_pearson(self.wins, decisive, confidence).as_dict(),
            "binomial_p": round(binom_test(self.wins, decisive), 4) if decisive else 1.0,
            "questions_needed_at_observed_rates": needed,
        }
