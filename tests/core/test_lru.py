"""``LruCache``: the few most recently used things kept, each made once while kept."""

from __future__ import annotations

from legalnav.core.lru import LruCache


def test_a_kept_value_is_not_made_again_and_the_least_recently_used_goes():
    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    cache: LruCache[str, str] = LruCache(2)
    assert cache.get_or_make("a", lambda: make("a")) == "A"
    assert cache.get_or_make("b", lambda: make("b")) == "B"
    assert cache.get_or_make("a", lambda: make("a")) == "A"  # kept: "a" is now the most recent
    cache.get_or_make("c", lambda: make("c"))  # "b", the least recently used, goes
    assert made == ["a", "b", "c"] and list(cache) == ["a", "c"]
