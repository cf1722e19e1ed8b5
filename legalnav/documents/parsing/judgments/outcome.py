"""The outcome: how the judgment disposed of the appeal or petition, read from its closing order."""

from __future__ import annotations

import re

OUTCOMES = ("allowed", "dismissed", "partly_allowed", "remanded", "disposed", "unknown")

# The closing order. Each pattern maps to an outcome; the last decisive statement in the text
# (the report's closing line, where there is one) wins.
_OUTCOME_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "partly_allowed",
        re.compile(
            r"\b(?:appeals?|petitions?|applications?)\s+(?:is\s+|are\s+)?(?:partly|partially)\s+allowed\b|"
            r"\b(?:allowed|allow\s+(?:the|these|this)\s+(?:appeals?|petitions?))\s+(?:in\s+part|partly|partially|to\s+(?:the|a)\s+(?:limited\s+)?extent)\b|"
            r"\b(?:appeals?|petitions?)\s+(?:succeeds?|succeed)\s+in\s+part\b",
            re.I,
        ),
    ),
    (
        "remanded",
        re.compile(
            r"\b(?:remit(?:ted)?|remand(?:ed)?|sent\s+back)\b[^.]{0,120}\b(?:for\s+(?:fresh|de\s+novo|re-?)(?:\s*\w+)?|to\s+the\s+(?:High\s+Court|Tribunal|trial\s+court))",
            re.I,
        ),
    ),
    (
        "allowed",
        re.compile(
            r"\b(?:appeals?|petitions?|applications?|writ\s+petitions?|special\s+leave\s+petitions?|reference)\s+(?:is\s+|are\s+|stands?\s+|must\s+be\s+|should\s+be\s+|is\s+accordingly\s+|are\s+accordingly\s+)?allowed\b|"
            r"\b(?:we|i|court)\s+(?:would\s+|therefore\s+|accordingly\s+|must\s+|shall\s+)?allow\s+(?:the|these|this|both)\s+(?:appeals?|petitions?|applications?)\b|"
            r"\b(?:appeals?|petitions?)\s+(?:succeeds?|succeed|must\s+succeed)\b|\brule\s+(?:is\s+)?made\s+absolute\b|"
            r"\bI\s+would\s+allow\s+(?:the|this)\s+appeal\b",
            re.I,
        ),
    ),
    (
        "dismissed",
        re.compile(
            r"\b(?:appeals?|petitions?|applications?|writ\s+petitions?|special\s+leave\s+petitions?)\s+(?:is\s+|are\s+|stands?\s+|must\s+be\s+|should\s+be\s+|is\s+accordingly\s+|are\s+accordingly\s+|being\s+devoid\s+of\s+merit,?\s+(?:is|are)\s+)?dismissed\b|"
            r"\b(?:we|i|court)\s+(?:would\s+|therefore\s+|accordingly\s+|must\s+|shall\s+)?dismiss\s+(?:the|these|this|both)\s+(?:appeals?|petitions?|applications?)\b|"
            r"\b(?:appeals?|petitions?)\s+(?:fails?|must\s+fail)\b|\brule\s+(?:is\s+)?discharged\b|"
            r"\brefuse\s+permission\s+to\s+appeal\b|\bpermission\s+to\s+appeal\s+is\s+refused\b|"
            r"\bI\s+would\s+dismiss\s+(?:the|this)\s+appeal\b",
            re.I,
        ),
    ),
    (
        "disposed",
        re.compile(
            r"\b(?:appeals?|petitions?|applications?|matters?)\s+(?:is\s+|are\s+|stands?\s+)?disposed\s+of\b|\border\s+accordingly\b",
            re.I,
        ),
    ),
]


_CLOSING_LINE = re.compile(
    r"(?:^|\n)[ \t]*((?:(?:Civil|Criminal|Writ|Special\s+Leave|Transfer|Review|Contempt)\s+)?"
    r"(?:Appeals?|Petitions?|Applications?|Matters?|Reference|Suits?)\s+(?:is\s+|are\s+)?"
    r"(?:partly\s+allowed|partially\s+allowed|allowed\s+in\s+part|allowed|dismissed|disposed\s+of|remanded|remitted)"
    r"|Order\s+accordingly)[ \t.]*\s*$",
    re.I,
)


def closing_outcome(text: str) -> tuple[str, str, int]:
    """(outcome, the words it was read from, their offset) from the closing order: the last
    decisive statement in the final part of the judgment ("Appeal dismissed.", "we allow the
    appeal", "I would dismiss the appeal"); ("unknown", "", -1) when there is none."""
    # The report's closing line ("Appeal dismissed.", "Appeals partly allowed") is decisive.
    m = _CLOSING_LINE.search(text[-300:])
    if m:
        words = m.group(1).lower()
        outcome = (
            "partly_allowed"
            if "part" in words
            else "remanded"
            if "remand" in words or "remit" in words
            else "disposed"
            if "disposed" in words or "accordingly" in words
            else "allowed"
            if "allowed" in words
            else "dismissed"
        )
        return outcome, " ".join(m.group(1).split()), len(text) - len(text[-300:]) + m.start(1)
    tail_from = max(0, len(text) - 15000)
    tail = text[tail_from:]
    best: tuple[int, str, str] | None = None  # (position, outcome, words)
    for outcome, rx in _OUTCOME_PATTERNS:
        for m in rx.finditer(tail):
            # partly/remanded win ties against plain allowed/dismissed at the same place
            pos = m.start()
            if (
                best is None
                or pos > best[0] + 40
                or (
                    pos >= best[0] - 40
                    and outcome in ("partly_allowed", "remanded")
                    and best[1] in ("allowed", "dismissed", "disposed")
                )
            ):
                best = (pos, outcome, m.group(0))
    if best is None:
        return "unknown", "", -1
    return best[1], " ".join(best[2].split()), tail_from + best[0]
