"""Limits that hold across processes: two web servers on one database and one cache (Redis, or
the database cache of the embedded default) allow a user the limit between them, not twice it.
Before, each process counted in its own memory, so N servers allowed N times the limit."""

from __future__ import annotations

import itertools

import httpx
import pytest
from django.core.cache import cache

from legalnav.api import tokens
from legalnav.api.tokens import api_token_create
from legalnav.core import limits
from tests.conftest import MembershipFactory
from tests.procs import child_env, start_redis, start_web

LIMIT = 3


@pytest.mark.parametrize("shared", ["database", pytest.param("redis", marks=pytest.mark.redis)])
def test_the_question_limit_holds_across_two_server_processes(transactional_db, tmp_path, shared):
    matter = MembershipFactory().matter
    user = matter.memberships.get().user
    _, raw = api_token_create(user=user, name="two servers")
    cache.clear()  # the database cache outlives a transactional test's flush
    procs = []
    extra = {"LEGALNAV_ASK_RATE_PER_MINUTE": str(LIMIT)}
    try:
        if shared == "redis":
            redis, url = start_redis(tmp_path)
            procs.append(redis)
            # Questions queue in the private Redis (no worker takes them): only counting matters.
            extra.update(REDIS_URL=url, TASK_RUNNER="celery")
        else:
            extra.update(TASK_RUNNER="inline")
        servers = []
        for name in ("web-a", "web-b"):
            proc, url = start_web(tmp_path, child_env(**extra), name=name)
            procs.append(proc)
            servers.append(url)
        codes = []
        for base in itertools.islice(itertools.cycle(servers), 4 * len(servers)):
            response = httpx.post(
                f"{base}/api/v1/matters/{matter.pk}/queries",
                json={"question": "Who are the parties?"},
                headers={"Authorization": f"Bearer {raw}"},
                timeout=60,
            )
            codes.append(response.status_code)
            if response.status_code == 429:
                assert "questions in the last minute" in response.json()["error"]["message"]
                assert int(response.headers["Retry-After"]) >= 1
        logs = "\n".join(p.tail() for p in procs)
        assert codes.count(202) == LIMIT, (codes, logs)
        assert codes.count(429) == len(codes) - LIMIT, (codes, logs)
        assert matter.questions.count() == LIMIT
    finally:
        for proc in reversed(procs):
            proc.stop()
        cache.clear()


def test_the_token_attribute_is_the_one_the_api_sets():
    """``limits`` reads the token off the user object where ``api.tokens`` puts it."""
    assert tokens._ACTING == limits.TOKEN_ATTRIBUTE


def test_counters_on_the_database_cache_are_exact(db, settings):
    settings.LEGALNAV_SEARCH_RATE_PER_MINUTE = 4
    subjects = [("user", "u-db"), ("token", "t-db")]
    t0 = 6_000_000.0
    allowed = [limits.limit_take(limits.SEARCH, subjects=subjects, now=t0 + i) for i in range(6)]
    assert [d.allowed for d in allowed] == [True] * 4 + [False] * 2
    assert limits.limit_used(limits.SEARCH, subject="u-db", now=t0) == 4
    assert limits.limit_used(limits.SEARCH, subject="t-db", now=t0) == 4
    refused = allowed[-1]
    assert refused.message.startswith("You have run 4 searches in the last minute")
    # A refusal by the token's counter gives back what the user's counter had taken.
    for i in range(4):
        assert limits.limit_take(limits.SEARCH, subjects=[("token", "t-x")], now=t0 + i).allowed
    both = [("user", "u-y"), ("token", "t-x")]
    refused = limits.limit_take(limits.SEARCH, subjects=both, now=t0 + 5)
    assert not refused.allowed and refused.who == "token"
    assert refused.message.startswith("This API token has run 4 searches")
    assert limits.limit_used(limits.SEARCH, subject="u-y", now=t0) == 0
