"""Issues and holdings: the sentences that state a question for decision and those that decide
one, verbatim."""

from __future__ import annotations

import re
from dataclasses import dataclass

from legalnav.documents.parsing.judgments.paragraphs import (
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
MAX_FINDINGS = 5
_FINDING_CHARS = 400


def findings(
    text: str, paras: list[Paragraph] | None = None
) -> tuple[list[Finding], list[Finding]]:
    """(issues, holdings): sentences that state a question for decision ("the question which
    arises is whether …") and sentences that decide one ("we hold that …"), verbatim."""
    paras = paragraphs(text) if paras is None else paras
    body_start = next((p.start for p in paras if p.numbered), 0)
    issues: list[Finding] = []
    holdings: list[Finding] = []
    for a, b in sentences(text, body_start):
        sentence = text[a:b]
        if len(sentence) < 25:
            continue
        target = None
        if (
            len(issues) < MAX_FINDINGS * 2
            and _ISSUE.search(sentence)
            and re.search(r"\bwhether\b|\bquestions?\b", sentence, re.I)
        ):
            target = issues
        elif _HOLDING.search(sentence):
            target = holdings
        if target is None:
            continue
        p = paragraph_at(paras, a)
        clipped = " ".join(sentence.split())
        if len(clipped) > _FINDING_CHARS:
            clipped = clipped[: _FINDING_CHARS - 1].rsplit(" ", 1)[0] + "…"
        target.append(Finding(clipped, p.number if p else 0, a, b))
    # Holdings near the end decide the case; issues near the start frame it.
    return issues[:MAX_FINDINGS], holdings[-MAX_FINDINGS:]
