"""Validation of a research answer: it may cite only judgments and paragraphs that exist in the
matter, and every quotation must be verbatim. Anything else is removed from the answer and
reported, never silently kept and never silently dropped.

- a citation ``[D7:s12]`` to a document or paragraph that is not in the matter is removed, with
  the quotations attributed to it;
- a quotation attributed to an existing paragraph but not found in it (whitespace, case and the
  style of quotation marks aside) is replaced by "[quotation removed]";
- a quotation with no citation after it must appear in one of the passages the answer was
  written from, or it is removed too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from legalnav.answers import citations

QUOTE = re.compile(r"[“\"]([^”\"\n]{8,})[”\"]")  # as citations.py: quotes of any length
REMOVED_QUOTE = "[quotation removed]"

Lookup = Callable[[str, str], str | None]


@dataclass(slots=True)
class Cleaned:
    text: str
    removed: list[dict[str, str]] = field(default_factory=list)
    validation: citations.Validation = field(default_factory=citations.Validation)

    def report(self) -> dict[str, object]:
        data = self.validation.as_dict()
        data["removed"] = self.removed
        return data


def _verbatim(quote: str, haystack: str) -> bool:
    needle = citations.normalise(quote.strip(" .…")).replace("…", "")
    pieces = [p.strip() for p in needle.split("...") if p.strip()]
    return bool(pieces) and all(p in haystack for p in pieces)


def clean_answer(
    text: str, lookup: Lookup, *, sources: Sequence[str] = (), known: Sequence[str] = ()
) -> Cleaned:
    """Remove invented citations and non-verbatim quotations; report each removal.

    ``lookup(doc_key, node_id)`` gives a paragraph's text or None; ``sources`` are the passages
    the answer was written from (for quotations that carry no citation)."""
    removed: list[dict[str, str]] = []
    # The user's own words (the question, echoed as the proposition) are no claim about the
    # judgments: a quotation from them is kept, and checked against nothing.
    haystack_sources = [citations.normalise(s) for s in (*sources, *known) if s]
    out_lines = []
    for para in text.split("\n"):
        consumed = 0
        pieces: list[str] = []
        for m in citations.MARKER.finditer(para):
            before = para[consumed : m.start()]
            if m.group(1):
                doc_key, node_id = m.group(1), m.group(2)
            else:
                doc_key, node_id = m.group(3), f"clause:{m.group(4)}"
            marker = m.group(0)
            node_text = lookup(doc_key, node_id)
            if node_text is None:
                quotes = [q.group(1) for q in QUOTE.finditer(before)]
                removed.append(
                    {
                        "citation": marker,
                        "problem": "no such judgment or paragraph in this matter",
                        "quotes": " | ".join(quotes),
                    }
                )
                pieces.append(QUOTE.sub(REMOVED_QUOTE, before))
            else:
                haystack = citations.normalise(node_text)

                def keep_or_remove(
                    q: re.Match[str], haystack: str = haystack, marker: str = marker
                ) -> str:
                    if _verbatim(q.group(1), haystack):
                        return q.group(0)
                    removed.append(
                        {
                            "citation": marker,
                            "problem": "quotation is not verbatim in the cited paragraph",
                            "quotes": q.group(1),
                        }
                    )
                    return REMOVED_QUOTE

                pieces.append(QUOTE.sub(keep_or_remove, before) + marker)
            consumed = m.end()
        tail = para[consumed:]

        def check_loose(q: re.Match[str]) -> str:
            if any(_verbatim(q.group(1), h) for h in haystack_sources):
                return q.group(0)
            removed.append(
                {
                    "citation": "",
                    "problem": "quotation without a citation, not found in the judgments used",
                    "quotes": q.group(1),
                }
            )
            return REMOVED_QUOTE

        pieces.append(QUOTE.sub(check_loose, tail))
        line = "".join(pieces)
        out_lines.append(re.sub(r"[ \t]{2,}", " ", line).rstrip())
    cleaned = "\n".join(out_lines).strip()
    return Cleaned(cleaned, removed, citations.validate(cleaned, lookup, known=known))
