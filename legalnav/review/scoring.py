"""How a column of cells is scored against gold spans (RETRIEVE-PROTOCOL.md, second door).

A cell is a true positive when one of its quotations overlaps a gold span of its category in its
document. Ranked by confidence, the cells that quote something give a precision-recall curve whose
recall counts every (document, category) with gold; a "not found" cell is never a positive
prediction. Cell accuracy judges "not found" right where the category has no gold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Judged:
    confidence: float
    found: bool  # the cell quotes something
    hit: bool  # one of its quotations overlaps a gold span
    has_gold: bool  # the category has a gold span in this document


def overlaps(spans: Sequence[tuple[int, int]], gold: Sequence[tuple[int, int]]) -> bool:
    return any(a < gb and ga < b for a, b in spans for ga, gb in gold)


def pr_curve(cells: Sequence[Judged]) -> list[tuple[float, float]]:
    """(recall, precision) after each quoting cell, best confidence first (ties broken by
    putting misses first, so that a constant confidence earns nothing)."""
    positives = sum(1 for c in cells if c.has_gold)
    ranked = sorted((c for c in cells if c.found), key=lambda c: (-c.confidence, c.hit))
    out, tp = [], 0
    for n, c in enumerate(ranked, start=1):
        tp += c.hit
        out.append((tp / positives if positives else 0.0, tp / n))
    return out


def aupr(cells: Sequence[Judged]) -> float:
    """Average precision: the mean, over the gold positives, of the precision at the rank where
    each is found (0 for those never found)."""
    positives = sum(1 for c in cells if c.has_gold)
    if not positives:
        return float("nan")
    total, last_recall = 0.0, 0.0
    for recall, precision in pr_curve(cells):
        if recall > last_recall:
            total += (recall - last_recall) * precision
            last_recall = recall
    return total


def precision_at_recall(cells: Sequence[Judged], recall: float = 0.8) -> float:
    """The best precision at any cut-off whose recall reaches ``recall`` (0 when none does)."""
    best = 0.0
    for r, p in pr_curve(cells):
        if r >= recall - 1e-12:
            best = max(best, p)
    return best


def cell_figures(cells: Sequence[Judged]) -> dict[str, float]:
    """Cell precision (quoting cells that hit), recall (gold cells that were hit) and accuracy
    (hit, or "not found" where there is no gold)."""
    quoting = [c for c in cells if c.found]
    gold = [c for c in cells if c.has_gold]
    right = sum(1 for c in cells if (c.found and c.hit) or (not c.found and not c.has_gold))
    return {
        "precision": sum(c.hit for c in quoting) / len(quoting) if quoting else float("nan"),
        "recall": sum(c.hit for c in gold) / len(gold) if gold else float("nan"),
        "accuracy": right / len(cells) if cells else float("nan"),
    }
