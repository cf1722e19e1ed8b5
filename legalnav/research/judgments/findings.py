"""Issues and holdings: the sentences that state a question for decision and those that decide
one, verbatim.

A holding is the court's own reasoning on a point, told apart from what it only reports: the
facts and the evidence, counsel's submissions, a passage quoted from an earlier decision, and the
bare order. Every sentence of the body gets a score: for the words a court uses when it decides
("we hold", "in my judgment", "it follows", "the judge was wrong", "cannot be sustained"), against
the words of a report ("learned counsel submitted", "PW-3 deposed", "observed as under", a
citation); sentences late in the judgment, where the reasoning sits, score a little more. The best
of them, in text order, are the judgment's holdings; research matches a question's proposition
against them to tell whether the judgment decides that issue at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from legalnav.research.judgments.paragraphs import (
    Paragraph,
    paragraph_at,
    paragraphs,
    sentences,
)


@dataclass(slots=True)
class Finding:
    text: str  # verbatim sentence (whitespace collapsed)
    paragraph: int
    start: int
    end: int


_ISSUE = re.compile(
    r"\b(?:the\s+(?:only\s+|short\s+|main\s+|principal\s+|sole\s+|crucial\s+|core\s+)?(?:question|issue|point)s?\s+"
    r"(?:which\s+|that\s+)?(?:arises?|arising|falls?\s+for\s+(?:consideration|determination|decision)|for\s+(?:consideration|determination|decision)|"
    r"involved|raised|(?:to\s+be\s+)?(?:considered|decided|determined)|is\s+whether|are\s+whether|before\s+us)|"
    r"(?:question|issue|point)s?\s+(?:of\s+law\s+)?(?:that|which)\s+(?:arises?|falls?)|"
    r"^whether\b|\bgrounds?\s+of\s+appeal\b|\bthe\s+appeal\s+raises\b|\bcontention\s+(?:is|was)\s+that\b)",
    re.I | re.M,
)
_HOLDING = re.compile(
    r"\b(?:we\s+(?:therefore\s+|accordingly\s+|thus\s+)?hold\s+that|it\s+is\s+(?:therefore\s+)?held\s+that|"
    r"we\s+are\s+(?:therefore\s+|clearly\s+|thus\s+)?of\s+the\s+(?:considered\s+)?(?:opinion|view)\s+that|"
    r"in\s+our\s+(?:considered\s+)?(?:opinion|view)|(?:we|i)\s+(?:would\s+)?conclude\s+that|"
    r"(?:we|i)\s+am\s+(?:therefore\s+)?satisfied\s+that|we\s+are\s+(?:therefore\s+)?satisfied\s+that|"
    r"the\s+(?:law|position)\s+(?:is|is\s+well)\s+settled\s+that|it\s+is\s+(?:well\s+)?settled\s+(?:law\s+)?that|"
    r"(?:we|i)\s+(?:therefore\s+)?(?:reject|accept)\s+the\s+(?:contention|submission|argument))",
    re.I,
)
# The words a court uses when it decides a point, and those of a sentence that only reports.
_DECIDES = re.compile(
    r"\b(?:hold|held|holding|conclude[sd]?|conclusion|satisfied|accept(?:ed)?|reject(?:ed)?|"
    r"opinion|view|it\s+follows|therefore|accordingly|thus|cannot|must|err(?:ed)?|rightly|"
    r"wrongly|(?:was|were|is)\s+(?:right|wrong|entitled|not\s+entitled|correct)|unable\s+to|"
    r"(?:un)?sustainable|sustained|settled|(?:we|i)\s+find|(?:we|i)\s+would|agree|"
    r"(?:not\s+)?persuaded|in\s+(?:my|our)\s+judgment)\b",
    re.I,
)
_REPORTS = re.compile(
    r"\b(?:learned\s+counsel|counsel\s+for|submitted|submissions?|contended|contentions?|"
    r"argued|urged|it\s+was\s+said|deposed|testified|P\.?\s?W\.?\s*-?\s*\d|stated\s+that|"
    r"observed\s+(?:as\s+(?:under|follows)|that)|reads?\s+as\s+(?:under|follows)|"
    r"in\s+the\s+words\s+of|grounds?\s+of\s+appeal|supra|it\s+was\s+held)\b",
    re.I,
)
_CITATION = re.compile(
    r"\bsupra\b|\[\d{4}\]|\(\d{4}\)\s*\d|\bAIR\s+\d{4}|\bSCC\b|\bIndlaw\b|\bEWCA\b|"
    r"\bUKSC\b|\bUKHL\b|\bAC\s+\d|\bWLR\b"
)
_QUOTED = re.compile(r"^[\"“‘'(]")
MAX_FINDINGS = 5
MAX_HOLDINGS = 25
_FINDING_CHARS = 400
_MIN_HOLDING_SCORE = 1


def holding_score(sentence: str, at: float) -> int:
    """How surely a sentence is the court deciding a point (higher) rather than reporting one;
    ``at`` is where it lies in the body, 0 at the start and 1 at the end."""
    score = 3 * bool(_HOLDING.search(sentence)) + len(_DECIDES.findall(sentence))
    score -= 2 * len(_REPORTS.findall(sentence))
    score -= 2 * bool(_QUOTED.match(sentence))
    return score + (1 if 0.4 <= at else 0)


def findings(
    text: str, paras: list[Paragraph] | None = None
) -> tuple[list[Finding], list[Finding]]:
    """(issues, holdings): sentences that state a question for decision ("the question which
    arises is whether …") and sentences that decide one ("we hold that …"), verbatim."""
    paras = paragraphs(text) if paras is None else paras
    body_start = next((p.start for p in paras if p.numbered), 0)
    issues: list[Finding] = []
    scored: list[tuple[int, int, Finding]] = []
    spans = sentences(text, body_start)
    for i, (a, b) in enumerate(spans):
        sentence = text[a:b]
        if len(sentence) < 25:
            continue
        is_issue = (
            len(issues) < MAX_FINDINGS * 2
            and _ISSUE.search(sentence)
            and re.search(r"\bwhether\b|\bquestions?\b", sentence, re.I)
        )
        score = (
            holding_score(sentence, i / max(1, len(spans) - 1))
            if not is_issue and 40 <= len(sentence) <= 1500
            else 0
        )
        if not is_issue and score < _MIN_HOLDING_SCORE:
            continue
        p = paragraph_at(paras, a)
        clipped = " ".join(sentence.split())
        if len(clipped) > _FINDING_CHARS:
            clipped = clipped[: _FINDING_CHARS - 1].rsplit(" ", 1)[0] + "…"
        found = Finding(clipped, p.number if p else 0, a, b)
        if is_issue:
            issues.append(found)
        else:
            scored.append((score, i, found))
    # Issues near the start frame the case; the surest holdings, later ones first among equals,
    # decide it (kept in text order).
    best = sorted(scored, key=lambda t: (-t[0], -t[1]))[:MAX_HOLDINGS]
    holdings = [f for _, _, f in sorted(best, key=lambda t: t[1])]
    return issues[:MAX_FINDINGS], holdings
