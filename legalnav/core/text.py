"""Typographic text normalisation, shared by every layer that compares quotations with text.

It lives in ``core`` because both the citation check (``answers``) and the case-card enrichment
at indexing time (``documents``, a lower layer) need the same notion of "the same words".
"""

from __future__ import annotations

import re

_QUOTE_MARKS = str.maketrans({c: "'" for c in "“”‘’\"'«»„‹›＂「」『』"})
_DASHES = str.maketrans({c: "-" for c in "‐‑‒–—―−"})
_WS = re.compile(r"\s+")
_LINE_HYPHEN = re.compile(r"(?<=[A-Za-z])-[ \t]*\n\s*(?=[a-z])")
_SPACED_HYPHEN = re.compile(r"(?<=[a-z])- (?=[a-z])")


def normalise(text: str) -> str:
    """Typographic normalisation only: quotation marks and dashes of any style, a word
    hyphenated at a line break, and spacing. Case and words are kept."""
    text = text.replace("\u00a0", " ").translate(_QUOTE_MARKS).translate(_DASHES)
    text = _LINE_HYPHEN.sub("", text)
    text = _SPACED_HYPHEN.sub("", text)
    return _WS.sub(" ", text).strip()
