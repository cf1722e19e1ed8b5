"""Shared by the review grid's tests."""

from __future__ import annotations

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fresh_rate_limit(request):
    """The grid rate limit counts in Django's cache, which outlives a test's database (and,
    without Redis, is a database table: only tests that use the database touch it)."""
    uses_db = request.node.get_closest_marker("django_db") or {
        "db",
        "transactional_db",
    } & set(request.fixturenames)
    if not uses_db:
        yield
        return
    cache.clear()
    yield
    cache.clear()
