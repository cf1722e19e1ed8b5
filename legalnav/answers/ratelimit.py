"""The per-user rate limit on asking: at most ``LEGALNAV_ASK_RATE_PER_MINUTE`` questions (and
retries) a minute, default 10; 0 turns the limit off.

A sliding window approximated from two fixed one-minute counters in Django's cache (the previous
minute's count weighted by how much of it still lies inside the last 60 seconds, plus this
minute's count). A plain fixed window would let a user ask 2N times across a minute boundary.
The counters use ``cache.add`` and ``cache.incr``, which are atomic on Redis and memcached; on the
default in-process cache the limit holds per web process, which is what one machine runs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

WINDOW_SECONDS = 60
DEFAULT_PER_MINUTE = 10


@dataclass(frozen=True, slots=True)
class RateDecision:
    allowed: bool
    limit: int  # questions allowed per minute (0: no limit)
    used: float  # questions counted in the last minute, this one included when allowed
    retry_after: int  # seconds to wait before asking again (0 when allowed)

    @property
    def message(self) -> str:
        if self.allowed:
            return ""
        return (
            f"You have asked {self.limit} questions in the last minute, the most allowed. "
            f"Try again in {self.retry_after} second{'s' if self.retry_after != 1 else ''}; "
            "nothing you typed has been lost."
        )


def ask_rate_per_minute() -> int:
    return max(0, int(getattr(settings, "LEGALNAV_ASK_RATE_PER_MINUTE", DEFAULT_PER_MINUTE)))


def _key(user_id: object, window: int) -> str:
    return f"legalnav:ask-rate:{user_id}:{window}"


def ask_rate_take(*, user_id: object, now: float | None = None) -> RateDecision:
    """Count one question for the user if the limit allows it; a refused one is not counted."""
    limit = ask_rate_per_minute()
    if limit == 0:
        return RateDecision(True, 0, 0, 0)
    now = time.time() if now is None else now
    window, into = divmod(now, WINDOW_SECONDS)
    window = int(window)
    current_key = _key(user_id, window)
    # Kept for two windows: the next window still reads this one as its "previous".
    cache.add(current_key, 0, timeout=WINDOW_SECONDS * 2 + 5)
    try:
        current = cache.incr(current_key)
    except ValueError:  # evicted between add and incr
        cache.set(current_key, 1, timeout=WINDOW_SECONDS * 2 + 5)
        current = 1
    previous = int(cache.get(_key(user_id, window - 1), 0) or 0)
    weight = 1 - into / WINDOW_SECONDS
    used = previous * weight + current
    if used <= limit:
        return RateDecision(True, limit, used, 0)
    cache.decr(current_key)  # a refused question does not count against later ones
    current -= 1
    return RateDecision(False, limit, used - 1, _retry_after(previous, current, limit, into))


def ask_rate_refund(*, user_id: object, now: float | None = None) -> None:
    """Give back a question that was counted but then refused (an empty question, say)."""
    if ask_rate_per_minute() == 0:
        return
    now = time.time() if now is None else now
    key = _key(user_id, int(now // WINDOW_SECONDS))
    try:
        if int(cache.get(key, 0) or 0) > 0:
            cache.decr(key)
    except ValueError:
        pass


def _retry_after(previous: int, current: int, limit: int, into: float) -> int:
    """Seconds until one more question fits under the estimate: while this minute lasts, the
    previous minute's weighted share shrinks; if this minute's own count already fills the limit,
    it becomes next minute's "previous" and has to shrink in turn."""
    if current + 1 <= limit:
        # previous · (1 - (into + t)/60) + current + 1 <= limit
        wait = WINDOW_SECONDS * (1 - (limit - current - 1) / previous) - into if previous else 0.0
    else:
        # next minute, u seconds in: current · (1 - u/60) + 1 <= limit
        wait = (WINDOW_SECONDS - into) + WINDOW_SECONDS * (1 - (limit - 1) / current)
    return max(1, math.ceil(wait))
