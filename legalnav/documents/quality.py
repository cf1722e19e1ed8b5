"""Measurements of parsing quality on real documents, for `manage.py structure_report`.

Two checks that need no gold annotation:
- structure recall: the articles and sections a document's own table of contents lists must be
  found as nodes (same scope, same number);
- cross-reference resolution: of the "Section X" / "Article X" references that name no other
  instrument, the share resolved to a node, counted only where the target heading really exists
  in the text (a line that starts with the label and then a capital, a quote or the line's end).
  A reference whose target is absent from the text is counted apart as "missing target".
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from legalnav.documents.parsing import ParsedDocument


@dataclass
class QualityTotals:
    documents: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    toc_documents: int = 0
    toc_entries: int = 0
    toc_found: int = 0
    refs: Counter[str] = field(default_factory=Counter)
    unresolved_examples: dict[str, list[str]] = field(default_factory=dict)
    worst_toc: list[tuple[float, str, int]] = field(default_factory=list)

    @property
    def toc_recall(self) -> float:
        return self.toc_found / self.toc_entries if self.toc_entries else 1.0

    @property
    def xref_resolution(self) -> float:
        denom = self.refs["resolved"] + self.refs["unresolved_target_exists"]
        return self.refs["resolved"] / denom if denom else 1.0


def toc_recall(parsed: ParsedDocument) -> tuple[int, int]:
    have = {
        (n.scope, "article" if n.kind == "article" else "section", n.label)
        for n in parsed.nodes
        if n.kind in ("article", "section")
    }
    entries = parsed.toc_entries
    found = sum(1 for e in entries if (e.scope, e.kind, e.label) in have)
    return found, len(entries)


def _heading_exists(text: str, label: str, cache: dict[str, bool]) -> bool:
    if label not in cache:
        pat = (
            r"(?m)^[ \t\u00a0]*(?:(?:Section|SECTION|Article|ARTICLE)[ \t\u00a0]+)?"
            + re.escape(label)
            + r"[ \t\u00a0]*\.?[ \t\u00a0]*(?:[A-Z“\"(]|$)"
        )
        cache[label] = re.search(pat, text) is not None
    return cache[label]


def add_document(totals: QualityTotals, name: str, text: str, parsed: ParsedDocument) -> None:
    totals.documents += 1
    found, entries = toc_recall(parsed)
    if entries:
        totals.toc_documents += 1
        totals.toc_entries += entries
        totals.toc_found += found
        totals.worst_toc.append((found / entries, name, entries))
    cache: dict[str, bool] = {}
    for ref in parsed.refs:
        if ref.kind not in ("section", "article"):
            totals.refs[f"{ref.kind}_{'resolved' if ref.target is not None else 'unresolved'}"] += 1
            continue
        if ref.external:
            bucket = "external_statute"
        elif ref.qualifier:
            bucket = "other_instrument"
        elif ref.target is not None:
            bucket = "resolved"
        else:
            head = ref.target_ref.split("(")[0]
            if head and _heading_exists(text, head, cache):
                bucket = "unresolved_target_exists"
            else:
                bucket = "missing_target"
        totals.refs[bucket] += 1
        if bucket.startswith("unresolved") or bucket == "missing_target":
            examples = totals.unresolved_examples.setdefault(bucket, [])
            if len(examples) < 12:
                examples.append(f"{name}: {' '.join(ref.text.split())}")
