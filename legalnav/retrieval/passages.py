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

    @property
    def indexed_text(self) -> str:
        """What the embedding model and the topic models read: the heading path, then the text."""
        return f"{self.context}\n{self.text}"


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


# -- passages not worth a vector --
#
# Dense retrieval gains nothing from a vector of a signature block, a table-of-contents line the
# parser did not recognise as one, or a passage that is only page furniture: no question is
# answered by them, and their vectors only crowd the dense ranking. Skipping them saves embedding
# time; they stay in BM25 and in the document (a question naming a signatory still finds its
# block lexically). Only the passage's own text decides, never the node kind: the parser's
# "signatures" node often runs on into the schedules after the signatures, which must be
# embedded (in a 40-contract CUAD sample, about half the passages of signature nodes).

_FURNITURE = re.compile(
    r"""
    -\s*\d{1,4}\s*-                                  # -12-
    | \bpage\s+\d{1,4}(?:\s+of\s+\d{1,4})?\b         # Page 3, Page 3 of 40
    | \bsource:\s[^\n]{0,120}?\b\d{1,2}/\d{1,2}/\d{4} # EDGAR's running footer in CUAD
    | \[\s*(?:\*\s*)+\]|\{\s*(?:\*\s*)+\}            # redaction marks [***] {*****}
    | \b\d{1,4}\b | \b[ivxlc]{1,5}\b                 # bare page numbers
    | [-_=·•.\s]+                                    # rules and dot leaders
    """,
    re.IGNORECASE | re.VERBOSE,
)
_TOC_LINE = re.compile(
    r"^(?:(?:article|section|schedule|exhibit|annex|appendix)\s+)?[\dIVXLC]+[.\d]*\s+"
    r"(?P<title>[^.:!?]{2,90}?)\s*(?:\.{2,}\s*)?(?:\d{1,3}|[ivx]{1,5})(?:\s+[ivx]{1,5})?$",
    re.IGNORECASE,
)
_CONNECTIVES = frozenset("a an and as by for from in of on or the to with its".split())
# A signatory's labels; only these make a signature block (blank lines ____ also fill in a
# preamble's "dated ____, 2000" and a form's fields).
_SIGNATURE_LABEL = re.compile(r"\b(?:by|name|title|its|per|signature)\s*:|/s/", re.IGNORECASE)
_SIGNATURE_FILL = re.compile(
    r"\b(?:by|name|title|its|per|signature|date|dated)\b\s*:?|_{3,}|-{3,}", re.IGNORECASE
)
_WITNESS = re.compile(r"^\s*in witness whereof\b[^.:]*[.:]?", re.IGNORECASE)
_PROSE_WORD = re.compile(r"(?<![\w/])[a-z]{3,}\b")
# A signature block's own lowercase words ("a Delaware corporation", "its general partner",
# "duly authorized"), counted once each; past this many, the passage holds prose too and is
# embedded. Before its first label, a block has at most a few ("for and on behalf of").
SIGNATURE_PROSE_WORDS = 10
SIGNATURE_LEAD_WORDS = 3


def skip_embedding(text: str) -> str | None:
    """Why dense retrieval needs no vector of this passage text ("furniture", "toc",
    "signature"), or None to embed it, as every normal clause is."""
    body = text.strip()
    if not _FURNITURE.sub("", body).strip(" \t\n,;:()"):
        return "furniture"
    if len(body) <= 120:
        m = _TOC_LINE.match(body)
        if m:
            words = re.findall(r"[A-Za-z][\w'’-]*", m.group("title"))
            titled = [w for w in words if w.lower() not in _CONNECTIVES]
            if titled and sum(w[0].isupper() for w in titled) >= 0.8 * len(titled):
                return "toc"
    labels = list(_SIGNATURE_LABEL.finditer(body))
    witness = _WITNESS.match(body)
    if len(labels) >= 2 or (witness and labels):
        start = witness.end() if witness else 0
        # A clause that ends where the signatures begin ("12.8 This Agreement is governed by
        # the laws of Victoria ... /s/ Elaine Saunders") is prose.
        if len(_prose(body[start : labels[0].start()])) > SIGNATURE_LEAD_WORDS:
            return None
        rest = _SIGNATURE_FILL.sub(" ", _SIGNATURE_LABEL.sub(" ", body[start:]))
        if len(_prose(rest)) <= SIGNATURE_PROSE_WORDS:
            return "signature"
    return None


def _prose(text: str) -> set[str]:
    return {w for w in _PROSE_WORD.findall(text) if w not in _CONNECTIVES}
