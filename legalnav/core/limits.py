"""Rate limits that hold across processes: how many questions, searches, memo exports and sign-in
attempts one user (and one API token, and one username from one address) may make a minute.

Each limit is a sliding window approximated from two fixed one-minute counters in the shared
cache (``CACHES["default"]``: Redis when ``REDIS_URL`` is set, else the database): the previous
minute's count weighted by how much of it still lies inside the last 60 seconds, plus this
minute's count. A plain fixed window would let a user make 2N requests across a minute boundary.

Counters go up with ``cache.add`` + ``cache.incr``, which Redis does atomically. Django's database
cache implements ``incr`` as a read and a write, so there each change runs in a transaction that
holds a lock: on SQLite every transaction takes the write lock when it begins (``IMMEDIATE``, see
settings), on PostgreSQL a transaction-scoped advisory lock on the key. Either way two web
processes (or three uvicorn workers) count into one counter, and a limit of N allows N, not 3N.

A request made with an API token counts against the token and against its user: the token's own
counter says what that tool did, the user's keeps a user with five tokens to one allowance.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.db import DatabaseCache
from django.db import connections, router, transaction

if TYPE_CHECKING:
    from django.contrib.auth.models import User

WINDOW_SECONDS = 60
# The user object of a request made with an API token carries the token under this name: set by
# legalnav.api.tokens.api_token_authenticate for the JSON API and MCP (the api layer sits above
# this one, so the name is shared rather than imported; tests/core/test_limits.py holds them
# together).
TOKEN_ATTRIBUTE = "legalnav_acting_token"


@dataclass(frozen=True, slots=True)
class Limit:
    """A named limit: its setting (per minute; 0 turns it off) and the words of its refusal."""

    name: str
    setting: str
    default: int
    things: str  # "questions"
    done: str  # "asked": You have <done> <N> <things> in the last minute
    after: str = ""  # added to the refusal ("nothing you typed has been lost")

    def per_minute(self) -> int:
        return max(0, int(getattr(settings, self.setting, self.default)))


QUESTION = Limit(
    "question",
    "LEGALNAV_ASK_RATE_PER_MINUTE",
    10,
    "questions",
    "asked",
    "nothing you typed has been lost",
)
SEARCH = Limit("search", "LEGALNAV_SEARCH_RATE_PER_MINUTE", 60, "searches", "run")
EXPORT = Limit("export", "LEGALNAV_EXPORT_RATE_PER_MINUTE", 10, "memo exports", "made")
# Sign-in, per username and address: every attempt, and the failed ones (fewer allowed).
SIGNIN = Limit("signin", "LEGALNAV_SIGNIN_RATE_PER_MINUTE", 10, "sign-in attempts", "made")
SIGNIN_FAILED = Limit(
    "signin-failed", "LEGALNAV_SIGNIN_FAILURES_PER_MINUTE", 5, "failed sign-ins", "had"
)
# Failed sign-ins over every username from one address (password spraying), and over every
# address for one username (guessing one account from many machines): looser, since an office
# behind one address shares the first and a user's own typos count towards the second.
SIGNIN_FAILED_ADDRESS = Limit(
    "signin-failed-address",
    "LEGALNAV_SIGNIN_FAILURES_PER_ADDRESS_PER_MINUTE",
    30,
    "failed sign-ins",
    "had",
)
SIGNIN_FAILED_ACCOUNT = Limit(
    "signin-failed-account",
    "LEGALNAV_SIGNIN_FAILURES_PER_ACCOUNT_PER_MINUTE",
    20,
    "failed sign-ins",
    "had",
)
SIGNIN_FAILURES = (SIGNIN_FAILED, SIGNIN_FAILED_ADDRESS, SIGNIN_FAILED_ACCOUNT)
LIMITS = {limit.name: limit for limit in (QUESTION, SEARCH, EXPORT, SIGNIN, *SIGNIN_FAILURES)}


@dataclass(frozen=True, slots=True)
class RateDecision:
    allowed: bool
    limit: int  # allowed per minute (0: no limit)
    used: float  # counted in the last minute, this one included when allowed
    retry_after: int  # seconds to wait before trying again (0 when allowed)
    kind: Limit = QUESTION
    who: str = "user"  # whose counter refused: "user", "token" or "signin"
    code: str = "rate_limited"

    @property
    def message(self) -> str:
        if self.allowed:
            return ""
        k = self.kind
        subject = {
            "token": "This API token has",
            "signin": "This username has",
            "address": "Your address has",
            "account": "This username has",
        }.get(self.who, "You have")
        wait = f"{self.retry_after} second{'s' if self.retry_after != 1 else ''}"
        after = f"; {k.after}" if k.after else ""
        from_here = " from your address" if self.who == "signin" else ""
        return (
            f"{subject} {k.done} {self.limit} {k.things}{from_here} in the last minute, "
            f"the most allowed. Try again in {wait}{after}."
        )


ALLOWED = RateDecision(True, 0, 0, 0)


def subjects_of(user: User | None) -> list[tuple[str, str]]:
    """The counters a request of ``user`` counts against: the user's, and the API token's when
    the request came with one (``TOKEN_ATTRIBUTE``). Pages and commands carry no token."""
    found: list[tuple[str, str]] = []
    user_id = getattr(user, "pk", None)
    if user_id is not None:
        found.append(("user", f"u{user_id}"))
    token_id = getattr(getattr(user, TOKEN_ATTRIBUTE, None), "pk", None)
    if token_id is not None:
        found.append(("token", f"t{token_id}"))
    return found


def _key(limit: Limit, subject: str, window: int) -> str:
    return f"legalnav:limit:{limit.name}:{subject}:{window}"


@contextmanager
def _serialised(key: str) -> Iterator[None]:
    """Make a read-and-write of ``key`` atomic where the cache does not (see the module text)."""
    backend = caches[DEFAULT_CACHE_ALIAS]
    if not isinstance(backend, DatabaseCache):
        yield
        return
    alias = router.db_for_write(backend.cache_model_class)
    with transaction.atomic(using=alias):
        connection = connections[alias]
        if connection.vendor == "postgresql":
            lock = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big", signed=True)
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock])
        yield


def _count(key: str, delta: int) -> int:
    """Add ``delta`` to a counter that lives two windows; its new value."""
    timeout = WINDOW_SECONDS * 2 + 5  # the next window still reads this one as "previous"
    with _serialised(key):
        cache.add(key, 0, timeout=timeout)
        try:
            return int(cache.incr(key, delta))
        except ValueError:  # evicted between add and incr
            value = max(0, delta)
            cache.set(key, value, timeout=timeout)
            return value


def _read(key: str) -> int:
    return int(cache.get(key, 0) or 0)


def _take_one(limit: Limit, per_minute: int, subject: str, who: str, now: float) -> RateDecision:
    window_f, into = divmod(now, WINDOW_SECONDS)
    window = int(window_f)
    current_key = _key(limit, subject, window)
    current = _count(current_key, 1)
    previous = _read(_key(limit, subject, window - 1))
    used = previous * (1 - into / WINDOW_SECONDS) + current
    if used <= per_minute:
        return RateDecision(True, per_minute, used, 0, limit, who)
    _count(current_key, -1)  # a refused request does not count against later ones
    current -= 1
    wait = _retry_after(previous, current, per_minute, into)
    return RateDecision(False, per_minute, used - 1, wait, limit, who)


def limit_take(
    limit: Limit, *, subjects: list[tuple[str, str]], now: float | None = None
) -> RateDecision:
    """Count one request against each of ``subjects`` (``(who, key)`` pairs: ``subjects_of``) if
    every one of them allows it; a refused request is counted against none of them."""
    per_minute = limit.per_minute()
    if per_minute == 0 or not subjects:
        return ALLOWED
    now = time.time() if now is None else now
    taken: list[tuple[str, str]] = []
    first = ALLOWED
    for who, subject in subjects:
        decision = _take_one(limit, per_minute, subject, who, now)
        if not decision.allowed:
            limit_refund(limit, subjects=taken, now=now)
            return decision
        taken.append((who, subject))
        first = first if taken[1:] else decision
    return first


def limit_refund(
    limit: Limit, *, subjects: list[tuple[str, str]], now: float | None = None
) -> None:
    """Give back a request that was counted but then refused for another reason."""
    if limit.per_minute() == 0:
        return
    now = time.time() if now is None else now
    window = int(now // WINDOW_SECONDS)
    for _, subject in subjects:
        key = _key(limit, subject, window)
        if _read(key) > 0:
            _count(key, -1)


def limit_check(
    limit: Limit, *, subjects: list[tuple[str, str]], now: float | None = None
) -> RateDecision:
    """Whether one more would fit, counting nothing (sign-in reads its failures this way)."""
    per_minute = limit.per_minute()
    if per_minute == 0:
        return ALLOWED
    now = time.time() if now is None else now
    window_f, into = divmod(now, WINDOW_SECONDS)
    window = int(window_f)
    for who, subject in subjects:
        current = _read(_key(limit, subject, window))
        previous = _read(_key(limit, subject, window - 1))
        used = previous * (1 - into / WINDOW_SECONDS) + current
        if used + 1 > per_minute:
            wait = _retry_after(previous, current, per_minute, into)
            return RateDecision(False, per_minute, used, wait, limit, who)
    return ALLOWED


def limit_count(limit: Limit, *, subjects: list[tuple[str, str]], now: float | None = None) -> None:
    """Count one, whatever the limit says (a failed sign-in happened; it cannot be refused)."""
    if limit.per_minute() == 0:
        return
    now = time.time() if now is None else now
    window = int(now // WINDOW_SECONDS)
    for _, subject in subjects:
        _count(_key(limit, subject, window), 1)


def limit_used(limit: Limit, *, subject: str, now: float | None = None) -> int:
    """This minute's count of one subject (``"u7"``, ``"t3"``), for tests and the staff page."""
    now = time.time() if now is None else now
    return _read(_key(limit, subject, int(now // WINDOW_SECONDS)))


def signin_subjects(*, username: str, address: str) -> list[tuple[str, str]]:
    """One counter per username and address; the username is hashed (keys are not secret-safe
    and a mistyped password is sometimes typed into the username box)."""
    return [("signin", f"s{_username_hash(username)}@{address or '-'}")]


def signin_failure_subjects(*, username: str, address: str) -> dict[Limit, list[tuple[str, str]]]:
    """What a failed sign-in counts against: the username from this address, every username
    from this address, and this username from every address (``SIGNIN_FAILURES``)."""
    return {
        SIGNIN_FAILED: signin_subjects(username=username, address=address),
        SIGNIN_FAILED_ADDRESS: [("address", f"a{address or '-'}")],
        SIGNIN_FAILED_ACCOUNT: [("account", f"s{_username_hash(username)}")],
    }


def _username_hash(username: str) -> str:
    return hashlib.sha256(" ".join(username.split()).casefold().encode()).hexdigest()[:24]


def _retry_after(previous: int, current: int, limit: int, into: float) -> int:
    """Seconds until one more fits under the estimate: while this minute lasts, the previous
    minute's weighted share shrinks; if this minute's own count already fills the limit, it
    becomes next minute's "previous" and has to shrink in turn."""
    if current + 1 <= limit:
        # previous · (1 - (into + t)/60) + current + 1 <= limit
        wait = WINDOW_SECONDS * (1 - (limit - current - 1) / previous) - into if previous else 0.0
    else:
        # next minute, u seconds in: current · (1 - u/60) + 1 <= limit
        wait = (WINDOW_SECONDS - into) + WINDOW_SECONDS * (1 - (limit - 1) / current)
    return max(1, math.ceil(wait))
