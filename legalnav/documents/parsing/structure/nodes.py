"""What the structure parser produces: the nodes, their ranks, and their stable ids."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from legalnav.documents.parsing.layout import Line

ATTACHMENT_KINDS = {
    "schedule": "sch",
    "exhibit": "ex",
    "annex": "annex",
    "appendix": "app",
}

# Ranks of structural nodes: lower ranks contain higher ones.
RANK_ATTACHMENT = 0
RANK_TOP = 1  # preamble, table of contents, recitals, articles, signature blocks
RANK_DECIMAL = 2  # + depth - 1: "5." = 2, "5.17" = 3, "5.17.1" = 4
LEAF_TOPS = {"preamble", "toc", "recitals", "signatures"}


@dataclass(slots=True)
class ParsedNode:
    kind: str
    ref: str  # as printed: "Section 5.17", "(a)", "ARTICLE V", "Schedule 1.1"
    label: str  # normalised: "5.17", "a", "5", "1.1", or the defined term
    heading: str
    start: int
    end: int
    first_line: int
    last_line: int
    rank: int
    style: str  # numbering style, for sequence checks: "dec", "p_a", "p_i", "def", …
    ordinal: int = 0
    scope: str = ""  # node id of the attachment the node sits in ("" for the main body)
    parent: int | None = None
    level: int = 0
    subtree_end: int = 0
    node_id: str = ""
    text: str = ""
    children: list[int] = field(default_factory=list)
    # Filled by enrichment.
    flags: dict[str, bool] = field(default_factory=dict)
    summary: str = ""
    keywords: list[str] = field(default_factory=list)

    @property
    def dynamic(self) -> bool:
        return self.rank < 0


@dataclass(slots=True)
class TocEntry:
    kind: str  # "article" | "section"
    label: str  # normalised, as a node's label would be
    scope: str
    text: str


@dataclass(slots=True)
class Structure:
    text: str
    lines: list[Line]
    nodes: list[ParsedNode]
    toc_entries: list[TocEntry]
    width: int


def _slug(s: str, limit: int = 48) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower()
    return s[:limit].rstrip("-") or "x"


def assign_ids(nodes: list[ParsedNode]) -> None:
    """Stable, readable node ids: "art5", "s5.17", "s5.17(a)(i)", "def:lender", "exA/s1.01"."""
    used: dict[str, int] = {}
    for nd in nodes:
        parent = nodes[nd.parent] if nd.parent is not None else None
        prefix = f"{nd.scope}/" if nd.scope else ""
        if nd.kind in ATTACHMENT_KINDS:
            base = f"{ATTACHMENT_KINDS[nd.kind]}{nd.label}"
        elif nd.kind == "article":
            base = f"{prefix}art{nd.label}"
        elif nd.kind == "section":
            base = f"{prefix}s{nd.label}"
        elif nd.kind == "clause" and parent is not None:
            base = f"{parent.node_id}({nd.label})"
        elif nd.kind == "definition":
            base = f"{prefix}def:{_slug(nd.label)}"
        elif nd.kind == "recital" and parent is not None:
            base = f"{parent.node_id}.{nd.label}"
        else:
            base = f"{prefix}{nd.kind}"
        count = used.get(base, 0) + 1
        used[base] = count
        nd.node_id = base if count == 1 else f"{base}~{count}"
