"""Retrieval units: one passage per clause node, long nodes cut at paragraph or sentence ends.

A passage keeps the exact character offsets of its text in the document, so a hit can be cited,
highlighted, and scored against gold spans. Its ``context`` is the heading path above it
("ARTICLE 9 Miscellaneous › Section 9.10 Governing Law"), which both the lexical and the dense
index see alongside the text.
"""

from __future__ import annotations

import os as _os
import re
from dataclasses import dataclass

from legalnav.documents.parsing.structure import ParsedNode

# Passage size: small enough that ten hits stay a small share of a contract, large enough to hold
# a clause's sentence with its context. Overridable for experiments; part of the cache key.
MAX_CHARS = int(_os.environ.get("LEGALNAV_PASSAGE_MAX", "1500"))
TARGET_CHARS = int(_os.environ.get("LEGALNAV_PASSAGE_TARGET", "900"))
_CUT = re.compile(r"\n[ \t\u00a0]*\n|(?<=[.;:])\s+(?=[A-Z(“\"])")
_WS = re.compile(r"\s+")


@dataclass(slots=True)
class Passage:
    node: int  # index of the node in its document's node list
    start: int
    end: int
    text: str
    context: str


def heading_path(nodes: list[ParsedNode], idx: int) -> str:
    parts = []
    cur: int | None = idx
    while cur is not None:
        nd = nodes[cur]
        label = " ".join(p for p in (nd.ref, nd.heading) if p and p not in ("Preamble",))
        if nd.kind == "definition":
            label = f"Definition of {nd.label}"
        if label:
            parts.append(label)
        cur = nd.parent
    return " › ".join(reversed(parts))


def _is_stub(nd: ParsedNode) -> bool:
    body = nd.text
    for piece in (nd.ref, nd.heading):
        if piece and body.startswith(piece):
            body = body[len(piece) :].lstrip(" .:-–—")
    return len(body) < 12


def split_span(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut [start, end) into pieces of about TARGET_CHARS, at paragraph or sentence ends, and
    at a space where a piece would still be longer than MAX_CHARS."""
    if end - start <= MAX_CHARS:
        return [(start, end)]
    soft: list[tuple[int, int]] = []
    piece_start = start
    for m in _CUT.finditer(text, start, end):
        if m.start() - piece_start >= TARGET_CHARS:
            soft.append((piece_start, m.start()))
            piece_start = m.end()
    soft.append((piece_start, end))
    pieces: list[tuple[int, int]] = []
    for a, b in soft:
        while b - a > MAX_CHARS:
            cut = text.rfind(" ", a + TARGET_CHARS, a + MAX_CHARS)
            cut = cut if cut > a else a + MAX_CHARS
            pieces.append((a, cut))
            a = cut + 1
        pieces.append((a, b))
    return [(a, b) for a, b in pieces if text[a:b].strip()]


def build_passages(nodes: list[ParsedNode], text: str) -> list[Passage]:
    out: list[Passage] = []
    for idx, nd in enumerate(nodes):
        if nd.kind == "toc" or nd.end <= nd.start or _is_stub(nd):
            continue
        context = heading_path(nodes, idx)
        spans = split_span(text, nd.start, nd.end)
        if len(spans) == 1:
            out.append(Passage(idx, nd.start, nd.end, nd.text, context))
            continue
        for a, b in spans:
            out.append(Passage(idx, a, b, _WS.sub(" ", text[a:b]).strip(), context))
    return out
