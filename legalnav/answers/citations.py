"""Citations in answers, and their validation.

An answer cites a provision as ``[D3:s2.02]`` (document key, node id). A quoted phrase (“…” or
"…") in the same paragraph, before the marker, is a quotation from that provision. Validation is
strict and never silent: a cited document or node that is not in the matter, or a quote that is
not verbatim in the cited node (whitespace and quote-style differences aside), is reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

# "[D3:s2.01]" (a node id) or "[D3] Clause 2.01" / "[D3] Section 2.01(a)" (a clause reference,
# used where the model saw whole documents rather than numbered provisions).
MARKER = re.compile(
    r"\[(D\d+):([^\]\s]{1,200})\]|\[(D\d+)\]\s*(?:Clause|Section|Article|§)?\s*"
    r"([0-9]{1,3}(?:\.[0-9]{1,3})*(?:\([a-zA-Z0-9]{1,5}\))*|[IVXLC]{1,6}\b)"
)
# Quotes of any length are checked (a cap here once let a long invented quote pass unchecked).
_QUOTE = re.compile(r"[“\"]([^”\"\n]{8,})[”\"]")
_WS = re.compile(r"\s+")


_QUOTE_CHARS = str.maketrans({c: "'" for c in "“”‘’\"'«»"})


def normalise(text: str) -> str:
    """Compare text ignoring case, spacing and the style of quotation marks (an answer that
    quotes a provision containing quotes must turn the inner ones into single quotes)."""
    return _WS.sub(" ", text.translate(_QUOTE_CHARS)).strip().lower()


@dataclass(slots=True)
class CitationCheck:
    doc_key: str
    node_id: str
    quote: str = ""
    ok: bool = True
    problem: str = ""


@dataclass(slots=True)
class Validation:
    checks: list[CitationCheck] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def problems(self) -> list[str]:
        return [f"[{c.doc_key}:{c.node_id}] {c.problem}" for c in self.checks if not c.ok]

    def as_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "citations": len({(c.doc_key, c.node_id) for c in self.checks}),
            "quotes": sum(1 for c in self.checks if c.quote),
            "problems": self.problems,
        }


def extract(answer: str) -> list[tuple[str, str, list[str]]]:
    """(doc_key, node_id, quotes) for each marker, quotes taken from its paragraph before it."""
    out = []
    for paragraph in answer.split("\n"):
        consumed = 0
        for m in MARKER.finditer(paragraph):
            before = paragraph[consumed : m.start()]
            quotes = [q.strip() for q in _QUOTE.findall(before)]
            if m.group(1):
                out.append((m.group(1), m.group(2), quotes))
            else:
                out.append((m.group(3), f"clause:{m.group(4)}", quotes))
            consumed = m.end()
    return out


def validate(answer: str, lookup: Callable[[str, str], str | None]) -> Validation:
    """``lookup(doc_key, node_id)`` returns the node's text, or None when it does not exist; a
    node id of the form "clause:2.01" asks the lookup to resolve a printed clause reference."""
    result = Validation()
    for doc_key, node_id, quotes in extract(answer):
        text = lookup(doc_key, node_id)
        if text is None:
            result.checks.append(
                CitationCheck(
                    doc_key,
                    node_id,
                    ok=False,
                    problem="no such document or provision in this matter",
                )
            )
            continue
        if not quotes:
            result.checks.append(CitationCheck(doc_key, node_id))
            continue
        haystack = normalise(text)
        for quote in quotes:
            needle = normalise(quote.strip(" .…")).replace("…", "")
            pieces = [p.strip() for p in needle.split("...") if p.strip()]
            ok = all(p in haystack for p in pieces) if pieces else False
            result.checks.append(
                CitationCheck(
                    doc_key,
                    node_id,
                    quote,
                    ok,
                    "" if ok else "quoted text is not in the cited provision",
                )
            )
    return result
