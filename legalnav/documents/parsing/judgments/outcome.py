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


# What an order that only "disposes of" the appeal did, from its operative words. In a criminal
# case: an acquittal or a conviction set aside is the accused's win; a conviction restored,
# confirmed or entered is the prosecution's. In any case: the judgment under appeal set aside is
# the appellant's win; the judgment below kept undisturbed is the respondent's.
_ACCUSED_WINS = re.compile(
    r"\b(?:(?:is|are|stand|stands)\s+acquitted|acquit\s+(?:the|him|her|them|all)|"
    r"consequent\s+upon\s+(?:their|his|her)\s+acquittal|(?:released|set\s+at\s+liberty)\s+forthwith|"
    r"(?:set\s+aside|quash)\s+the\s+(?:conviction|order\s+of\s+conviction)|"
    r"convictions?\b[^.]{0,80}?\b(?:(?:is|are)\s+(?:hereby\s+)?(?:set\s+aside|quashed)))",
    re.I,
)
_PROSECUTION_WINS = re.compile(
    r"\b(?:restore\s+the\s+(?:conviction|order\s+of\s+conviction)|we\s+(?:also\s+)?convict\b|"
    r"instead\s+convict\b|(?:confirm|maintain|uphold|alter)\s+(?:the\s+)?convictions?\b|"
    r"(?:set\s+aside|reverse)\s+the\s+(?:order\s+of\s+|judgment\s+of\s+)?acquittal|"
    r"convictions?\b[^.]{0,80}?\b(?:(?:is|are|stands?)(?:,\s*however,)?\s+(?:hereby\s+)?(?:restored|confirmed|upheld|"
    r"maintained|affirmed)))",
    re.I,
)
_APPELLANT_WINS = re.compile(
    r"\b(?:set\s+aside|quash)\s+the\s+impugned\s+(?:judgment|order)|"
    r"\bimpugned\s+(?:judgment|order)\b[^.]{0,80}?\b(?:is|are)\s+(?:hereby\s+)?(?:set\s+aside|quashed)",
    re.I,
)
_RESPONDENT_WINS = re.compile(
    r"\b(?:in\s+all\s+other\s+respects\s+it\s+is\s+kept\s+undisturbed|"
    r"(?:impugned\s+)?(?:judgment|order)\s+of\s+the\s+High\s+Court\b[^.]{0,60}?\b(?:is|are)\s+"
    r"(?:hereby\s+)?(?:upheld|affirmed|confirmed|maintained))",
    re.I,
)
_MODIFIED = re.compile(r"\bmodified\s+only\s+to\s+the\s+extent\b", re.I)


def _quoted(text: str, at: int) -> bool:
    """Whether ``at`` is inside a quotation (an order of the court below, cited): an odd number
    of double quotation marks before it in its paragraph, or a paragraph that closes a quotation."""
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    before = text[line_start:at]
    rest = text[at : len(text) if line_end < 0 else line_end].rstrip()
    opened = (before.count('"') + before.count("\u201c") + before.count("\u201d")) % 2 == 1
    return opened or rest.endswith(('"', "\u201d", '."', ".\u201d"))


def operative_result(text: str, end: int = -1, *, span: int = 2500) -> tuple[str, str, int]:
    """(who won, the words it was read from, their offset) from the operative order just before
    ``end`` (the closing line; the end of the text when -1): "accused" or "prosecution" (a
    criminal order), "appellant" or "respondent" (the judgment below set aside or kept),
    "mixed" (kept but modified, or both kinds of words), or "" when nothing decisive is said."""
    stop = len(text) if end < 0 else end
    start = max(0, stop - span)
    part = text[start:stop]
    found: dict[str, re.Match[str]] = {}
    for who, rx in (
        ("accused", _ACCUSED_WINS),
        ("prosecution", _PROSECUTION_WINS),
        ("appellant", _APPELLANT_WINS),
        ("respondent", _RESPONDENT_WINS),
    ):
        hits = [m for m in rx.finditer(part) if not _quoted(part, m.start())]
        if hits:
            found[who] = hits[-1]
    if "accused" in found and "prosecution" in found:
        last = max(found["accused"].start(), found["prosecution"].start())
        m = found["accused"] if found["accused"].start() == last else found["prosecution"]
        return "mixed", " ".join(m.group(0).split()), start + m.start()
    for who in ("accused", "prosecution"):
        if who in found:
            m = found[who]
            return who, " ".join(m.group(0).split()), start + m.start()
    if "respondent" in found and _MODIFIED.search(part):
        m = _MODIFIED.search(part)
        assert m is not None
        return "mixed", " ".join(m.group(0).split()), start + m.start()
    if "appellant" in found and "respondent" not in found:
        m = found["appellant"]
        return "appellant", " ".join(m.group(0).split()), start + m.start()
    if "respondent" in found and "appellant" not in found:
        m = found["respondent"]
        return "respondent", " ".join(m.group(0).split()), start + m.start()
    return "", "", -1
