"""The per-user rate limit on asking, ``LEGALNAV_ASK_RATE_PER_MINUTE`` questions (and retries) a
minute: the ``question`` limit of ``legalnav.core.limits``, which holds across processes."""

from __future__ import annotations

from legalnav.core.limits import QUESTION, RateDecision, limit_refund, limit_take

__all__ = ["RateDecision", "ask_rate_refund", "ask_rate_take"]


def ask_rate_take(*, user_id: object, now: float | None = None) -> RateDecision:
    """Count one question for the user if the limit allows it; a refused one is not counted."""
    return limit_take(QUESTION, subjects=[("user", f"u{user_id}")], now=now)


def ask_rate_refund(*, user_id: object, now: float | None = None) -> None:
    """Give back a question that was counted but then refused (an empty question, say)."""
    limit_refund(QUESTION, subjects=[("user", f"u{user_id}")], now=now)
