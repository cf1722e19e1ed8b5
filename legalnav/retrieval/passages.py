"""Retrieval units: one passage per clause node, long nodes cut at paragraph or sentence ends.

A passage keeps the exact character offsets of its text in the document, so a hit can be cited,
highlighted, and scored against gold spans. Its ``context`` is the heading path above it
("ARTICLE 9 Miscellaneous › Section 9.10 Governing Law"), which both the lexical and the dense
index see alongside the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings

from legalnav.documents.parsing.structure import ParsedNode


def passage_sizes() -> tuple[int, int]:
    """(target, max) characters of a passage, from settings.LEGALNAV_PASSAGE_TARGET and
    LEGALNAV_PASSAGE_MAX: small enough that ten hits stay a small share of a contract, large
    enough to hold a clause's sentence with its context. Part of the index cache key."""
    return int(settings.LEGALNAV_PASSAGE_TARGET), int(settings.LEGALNAV_PASSAGE_MAX)


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


def split_span(
    text: str, start: int, end: int, sizes: tuple[int, int] | None = None
) -> list[tuple[int, int]]:
    """Cut [start, end) into pieces of about the target size, at paragraph or sentence ends,
    and at a space where a piece would still be longer than the maximum (``sizes``: (target,
    max), by default ``passage_sizes()``)."""
    target, limit = sizes or passage_sizes()
    if end - start <= limit:
        return [(start, end)]
    soft: list[tuple[int, int]] = []
    piece_start = start
    for m in _CUT.finditer(text, start, end):
        if m.start() - piece_start >= target:
            soft.append((piece_start, m.start()))
            piece_start = m.end()
    soft.append((piece_start, end))
    pieces: list[tuple[int, int]] = []
    for a, b in soft:
        while b - a > limit:
            cut = text.rfind(" ", a + target, a + limit)
            cut = cut if cut > a else a + limit
            pieces.append((a, cut))
            a = cut + 1
        pieces.append((a, b))
    return [(a, b) for a, b in pieces if text[a:b].strip()]


def build_passages(nodes: list[ParsedNode], text: str) -> list[Passage]:
    sizes = passage_sizes()
    out: list[Passage] = []
    for idx, nd in enumerate(nodes):
        if nd.kind == "toc" or nd.end <= nd.start or _is_stub(nd):
            continue
        context = heading_path(nodes, idx)
        spans = split_span(text, nd.start, nd.end, sizes)
        if len(spans) == 1:
            out.append(Passage(idx, nd.start, nd.end, nd.text, context))
            continue
        for a, b in spans:
            out.append(Passage(idx, a, b, _WS.sub(" ", text[a:b]).strip(), context))
    return out
