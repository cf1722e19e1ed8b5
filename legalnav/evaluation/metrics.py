"""Retrieval metrics over a ranked list, at span level (character ranges) and node level (ids).

Everything reduces to one shape first: for each returned item, in rank order, the set of gold
units it finds (``covers``). A returned range finds a gold span when their character ranges
intersect in the same document (the measurement door's rule); a returned node finds a gold node
when the ids are equal. Then:

- ``hit_at_k``: some item in the top k finds something (what the door's protocol and the data
  README call Recall@k; a 0/1 outcome per question, so it gets a Clopper–Pearson interval);
- ``recall_at_k``: the share of gold units found in the top k;
- ``precision_at_k``: the share of the top k that finds anything (divided by k, so returning
  fewer items is not rewarded);
- ``reciprocal_rank``: 1 / rank of the first item that finds something, within k;
- ``ndcg_at_k``: binary gains, where an item gains only for gold units no earlier item found, so
  ten ranges over the same clause are not ten hits; the ideal finds one new unit per rank;
- ``span_coverage``: the share of gold characters inside the union of the top k ranges;
- ``footprint``: characters returned against characters of the whole document set.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

Covers = Sequence[frozenset[int]]


@dataclass(frozen=True, slots=True)
class Range:
    doc: int  # index of the document in the question's document list
    start: int
    end: int


def overlaps(a: Range, b: Range) -> bool:
    return a.doc == b.doc and a.start < b.end and b.start < a.end


def span_covers(returned: Sequence[Range], gold: Sequence[Range]) -> list[frozenset[int]]:
    """For each returned range, the indexes of the gold spans it overlaps."""
    return [frozenset(g for g, span in enumerate(gold) if overlaps(r, span)) for r in returned]


def node_covers(returned: Sequence[Hashable], gold: Iterable[Hashable]) -> list[frozenset[int]]:
    """For each returned node id, the index of the gold node it is (empty when it is none)."""
    index = {g: i for i, g in enumerate(dict.fromkeys(gold))}
    return [frozenset({index[r]}) if r in index else frozenset() for r in returned]


def first_rank(covers: Covers, k: int) -> int | None:
    """The 1-based rank of the first item within k that finds a gold unit."""
    for i, found in enumerate(covers[:k]):
        if found:
            return i + 1
    return None


def hit_at_k(covers: Covers, k: int) -> bool:
    return first_rank(covers, k) is not None


def reciprocal_rank(covers: Covers, k: int) -> float:
    rank = first_rank(covers, k)
    return 1.0 / rank if rank else 0.0


def precision_at_k(covers: Covers, k: int) -> float:
    if k <= 0:
        raise ValueError("k must be positive")
    return sum(1 for found in covers[:k] if found) / k


def recall_at_k(covers: Covers, n_gold: int, k: int) -> float:
    if n_gold <= 0:
        raise ValueError("recall needs at least one gold unit")
    found: set[int] = set()
    for item in covers[:k]:
        found |= item
    return len(found) / n_gold


def ndcg_at_k(covers: Covers, n_gold: int, k: int) -> float:
    if n_gold <= 0:
        raise ValueError("nDCG needs at least one gold unit")
    seen: set[int] = set()
    dcg = 0.0
    for i, item in enumerate(covers[:k]):
        if item - seen:
            dcg += 1.0 / math.log2(i + 2)
        seen |= item
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(n_gold, k)))
    return dcg / ideal


def average_precision(covers: Covers, n_gold: int, k: int) -> float:
    """Mean of precision at the rank of each newly found gold unit, over all gold units (units
    never found count zero): the AP that MAP averages."""
    if n_gold <= 0:
        raise ValueError("average precision needs at least one gold unit")
    seen: set[int] = set()
    total, useful = 0.0, 0
    for i, item in enumerate(covers[:k]):
        if item:
            useful += 1
        new = item - seen
        if new:
            total += len(new) * useful / (i + 1)
        seen |= item
    return total / n_gold


def _union(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def span_coverage(returned: Sequence[Range], gold: Sequence[Range], k: int) -> float:
    """The share of gold characters (their union, per document) inside the union of the top k
    returned ranges."""
    total = covered = 0
    for doc in {g.doc for g in gold}:
        gold_parts = _union((g.start, g.end) for g in gold if g.doc == doc)
        got = _union((r.start, r.end) for r in returned[:k] if r.doc == doc)
        for gs, ge in gold_parts:
            total += ge - gs
            for rs, re_ in got:
                covered += max(0, min(ge, re_) - max(gs, rs))
    if total == 0:
        raise ValueError("coverage needs gold spans with characters")
    return covered / total


def footprint(returned: Sequence[Range], total_chars: int, k: int) -> float:
    """Characters returned in the top k (as sent, overlaps counted twice) over all characters of
    the document set: what the answering model reads, against what inject would send."""
    if total_chars <= 0:
        raise ValueError("the document set is empty")
    return sum(r.end - r.start for r in returned[:k]) / total_chars


def ranking_metrics(
    covers: Covers, n_gold: int, ks: Sequence[int] = (1, 5, 10)
) -> dict[str, float]:
    """The standard set for one ranked list: hit, recall, precision and nDCG at each k, and
    MRR at the largest k."""
    out: dict[str, float] = {}
    for k in ks:
        out[f"hit@{k}"] = float(hit_at_k(covers, k))
        out[f"recall@{k}"] = recall_at_k(covers, n_gold, k)
        out[f"precision@{k}"] = precision_at_k(covers, k)
        out[f"ndcg@{k}"] = ndcg_at_k(covers, n_gold, k)
    out[f"mrr@{max(ks)}"] = reciprocal_rank(covers, max(ks))
    return out


def authority_recall(
    found: Iterable[Hashable], *, adverse: Iterable[Hashable], support: Iterable[Hashable]
) -> dict[str, float | None]:
    """For a research answer: the share of the adverse authorities (cases that cut against the
    position: distinguished, overruled, doubted) and of the supporting ones (followed, applied,
    approved) that the answer found or cited. A research memo that finds only the friendly cases
    is the failure this separates out; None where the gold set has none of a kind."""
    have = set(found)
    bad, good = set(adverse), set(support)
    return {
        "adverse_recall": len(have & bad) / len(bad) if bad else None,
        "support_recall": len(have & good) / len(good) if good else None,
    }
