"""A small in-memory cache of things costly to make (retrievers, corpora, embeddings), keeping
the most recently used few."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LruCache(OrderedDict[K, V]):
    """A dict of at most ``size`` entries: ``get_or_make`` returns the value kept for a key (now
    the most recently used) or makes it, keeps it and forgets the least recently used beyond
    ``size``. Being a dict, it can be cleared, iterated and have entries deleted."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        if key in self:
            self.move_to_end(key)
            return self[key]
        value = make()
        self[key] = value
        while len(self) > self.size:
            self.popitem(last=False)
        return value
