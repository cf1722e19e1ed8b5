"""Sentence boundaries in legal text, aware of the abbreviations and numbering it is full of.

A full stop ends a sentence only when what follows starts a new one (a capital, a quotation mark,
an opening parenthesis) and what precedes it is not an abbreviation ("U.S.", "Inc.", "No.",
"Sec.", "e.g."), an initial ("John A. Smith"), or a clause number ("Section 2.01. Term",
"1. Definitions"). Semicolons and colons end a run of a list of clauses the same way. Each
sentence is returned with its offsets, so a quotation can be cut from the verbatim text at
sentence boundaries and nowhere else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Lower-cased, without the final full stop. Multi-dot forms ("u.s", "e.g") are matched on the
# whole token before the final stop.
ABBREVIATIONS = frozenset(
    """
    u.s u.s.a u.k e.u n.a n.v s.a b.v l.l.c l.p l.l.p p.c p.a
    inc corp co ltd llc plc cos bros assn
    no nos sec secs art arts para paras cl cls sch ex exh exs pt pts ch chs vol vols p pp
    e.g i.e etc cf viz vs v et al approx est ibid id
    mr mrs ms dr prof sr jr st ste ave blvd rd dept gov govt hon
    jan feb mar apr jun jul aug sep sept oct nov dec
    fig figs ref refs
    """.split()
)
# After an abbreviation that can also end a sentence ("... Acme Corp. The term ..."), these
# words start the next sentence; anything else ("U.S. State of Delaware") continues it.
STARTERS = frozenset(
    """
    the this that these those such each any all no none in if on upon subject notwithstanding
    it its neither either nothing where when unless except for under pursuant as a an our we
    you they he she there here however accordingly therefore thereafter following during
    """.split()
)
_CAN_END = frozenset(
    "inc corp co ltd llc plc cos bros u.s u.s.a u.k e.u n.a l.p l.l.c etc al".split()
)
_NEXT_WORD = re.compile(r"\s+[(“\"‘']*([A-Za-z]+)")
_END = re.compile(r"[.?!;:](?:[”\"’')\]]*)")
_NEXT_STARTS = re.compile(r"\s+(?=[A-Z0-9(“\"‘'\[§])")
_TOKEN_BEFORE = re.compile(r"(\S+)$")
_CLAUSE_NUMBER = re.compile(r"^\(?(?:\d{1,3}(?:\.\d{1,3})*|[ivxlcdm]{1,7}|[a-z])\)?$", re.I)


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    start: int
    end: int  # exclusive


def _is_boundary(text: str, stop: int, after: int) -> bool:
    """Whether the punctuation at ``text[stop]`` (its run ending at ``after``) ends a sentence."""
    mark = text[stop]
    if not _NEXT_STARTS.match(text, after):
        return False
    if mark in "?!":
        return True
    token_match = _TOKEN_BEFORE.search(text, 0, stop)
    token = token_match.group(1) if token_match else ""
    bare = token.strip("(“\"‘'[")
    if mark in ";:":
        return True
    # A full stop.
    if bare.lower() in ABBREVIATIONS:
        nxt = _NEXT_WORD.match(text, after)
        return bare.lower() in _CAN_END and nxt is not None and nxt.group(1).lower() in STARTERS
    if len(bare) == 1 and bare.isupper():  # an initial: "John A. Smith"
        return False
    if _CLAUSE_NUMBER.match(bare) and _starts_line(text, stop - len(token)):
        return False  # "1. Definitions", "(a). ..." at the head of a clause
    if re.fullmatch(r"\d{1,3}(?:\.\d{1,3})+", bare):
        return False  # "Section 2.01. Term": a clause reference, not an ending
    return True


def _starts_line(text: str, at: int) -> bool:
    before = text[max(0, at - 40) : at]
    stripped = before.rstrip(" \t")
    return (
        not stripped
        or stripped.endswith("\n")
        or re.search(r"(?:Section|Article|Clause|§)\s*$", stripped) is not None
    )


def split(text: str) -> list[Sentence]:
    """The sentences of ``text`` with offsets into it (surrounding whitespace excluded)."""
    out: list[Sentence] = []
    start = 0
    for m in _END.finditer(text):
        stop, after = m.start(), m.end()
        if not _is_boundary(text, stop, after):
            continue
        _add(out, text, start, after)
        start = after
    _add(out, text, start, len(text))
    return out


def _add(out: list[Sentence], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        out.append(Sentence(text[start:end], start, end))


def sentences(text: str) -> list[str]:
    return [s.text for s in split(text)]
