"""Treatment language: how a court treats an earlier decision (followed, applied, distinguished,
overruled …), read from the words of the sentence that cites it."""

from __future__ import annotations

import re
from dataclasses import dataclass

# How a court treats an earlier decision. Adverse treatment means the earlier decision is weaker
# authority for what it decided (or was not applied to these facts); supporting treatment means
# it was applied or approved. The patterns are checked in this order, so "not followed" is read
# before "followed" and "cannot be distinguished" before "distinguished".
_NEG = r"(?:not|never|no longer|decline[sd]?\s+to|refuse[sd]?\s+to|cannot|can\s*not|could\s+not|should\s+not|will\s+not|would\s+not|unable\s+to)"
TREATMENT_CUES: list[tuple[str, str, re.Pattern[str]]] = [
    # (polarity, name, pattern)
    (
        "supporting",
        "not distinguishable",
        re.compile(
            rf"\b{_NEG}\s+(?:be\s+)?distinguish(?:ed|able)?\b|\bno\s+(?:ground|reason|basis)\s+(?:for|to)\s+distinguish",
            re.I,
        ),
    ),
    (
        "adverse",
        "overruled",
        re.compile(
            r"\b(?:(?:is|are|was|were|be|been|stands?|hereby|expressly|impliedly|must\s+be|should\s+be)\s+)+overruled\b|"
            r"\bwe\s+(?:hereby\s+|now\s+|therefore\s+)?overrule\b|\boverrul(?:e|ed|ing)\b(?!\s+(?:objection|the objection|an objection|his objection|their objection))",
            re.I,
        ),
    ),
    (
        "adverse",
        "no longer good law",
        re.compile(
            r"\bno\s+longer\s+(?:good|the)\s+law\b|\bnot\s+(?:good|correct)\s+law\b|\bper\s+incuriam\b|"
            r"\b(?:wrongly|incorrectly|not\s+correctly|erroneously)\s+decided\b|\bdoes\s+not\s+lay\s+down\s+(?:the\s+)?(?:correct|good)\s+law\b|"
            r"\bis\s+(?:incorrect|erroneous|wrong)\s+(?:insofar|in\s+so\s+far|to\s+the\s+extent)\b|\babrogat(?:e|ed|es)\b",
            re.I,
        ),
    ),
    ("adverse", "disapproved", re.compile(r"\bdisapprov(?:e|ed|es|ing)\b", re.I)),
    (
        "adverse",
        "not followed",
        re.compile(
            rf"\b{_NEG}\s+(?:be\s+)?(?:follow(?:ed)?|appl(?:y|ied))\b(?!\s+(?:by|from))|\bdepart(?:ed|ing)?\s+from\b|"
            r"\bnot\s+(?:binding|applicable)\b|\bhas\s+no\s+application\b|\bdoes\s+not\s+(?:apply|help|assist)\b",
            re.I,
        ),
    ),
    (
        "adverse",
        "doubted",
        re.compile(
            r"\b(?:doubted|we\s+(?:have|entertain)\s+(?:some\s+|serious\s+)?doubts?|cast\s+doubt|questioned\s+the\s+correctness|"
            r"(?:not|un)persuaded\s+by|(?:respectfully\s+)?disagree(?:d)?\s+with|(?:criticis|criticiz)(?:ed|ing))\b",
            re.I,
        ),
    ),
    (
        "adverse",
        "distinguished",
        re.compile(
            r"\bdistinguish(?:ed|able|es|ing)?\b|\b(?:clearly\s+|wholly\s+)?inapplicable\b|"
            r"\b(?:is|are)\s+of\s+no\s+(?:assistance|help)\b|\bfacts\s+(?:were|are)\s+(?:entirely\s+|wholly\s+|quite\s+)?different\b",
            re.I,
        ),
    ),
    (
        "supporting",
        "followed",
        re.compile(
            r"\bfollow(?:ed|ing)\b(?!\s+(?:by|the\s+(?:death|incident|occurrence)))|\bwe\s+follow\b",
            re.I,
        ),
    ),
    (
        "supporting",
        "applied",
        re.compile(
            r"\b(?:applied|applying)\b(?!\s+(?:for|to\s+(?:the\s+)?(?:court|tribunal|high\s+court)))",
            re.I,
        ),
    ),
    (
        "supporting",
        "approved",
        re.compile(r"\b(?:approv(?:ed|ing)|endorsed?|affirmed|reaffirmed|upheld)\b", re.I),
    ),
    (
        "supporting",
        "relied on",
        re.compile(
            r"\b(?:relied\s+(?:up)?on|rel(?:y|ying)\s+(?:up)?on|bound\s+by|consistent\s+with|in\s+line\s+with|"
            r"squarely\s+covers|squarely\s+applies|(?:is|are)\s+(?:fully\s+)?applicable|governed\s+by\s+the\s+(?:decision|ratio))\b",
            re.I,
        ),
    ),
]


@dataclass(frozen=True, slots=True)
class Treatment:
    polarity: str  # "supporting" | "adverse" | "neutral"
    cue: str = ""  # the cue's name ("distinguished")
    words: str = ""  # the words matched, verbatim
    start: int = -1  # offset of the words in the sentence

    @property
    def known(self) -> bool:
        return self.polarity != "neutral"


def treatment_of(sentence: str) -> Treatment:
    """How a sentence treats the decision it discusses, from its treatment words alone.

    The first matching cue in ``TREATMENT_CUES`` order wins, so negated forms ("not followed",
    "cannot be distinguished") are read before the plain ones."""
    for polarity, name, rx in TREATMENT_CUES:
        for m in rx.finditer(sentence):
            # "the objection was overruled", "the plea is rejected and overruled": a ruling on
            # a submission, not the treatment of a decision.
            before = sentence[max(0, m.start() - 60) : m.start()]
            if name == "overruled" and _SUBMISSION.search(before):
                continue
            after = sentence[m.end() : m.end() + 40]
            # "distinguished scholars", "a distinguished career": praise, not treatment.
            if name == "distinguished" and _PRAISED.match(after):
                continue
            return Treatment(polarity, name, m.group(0), m.start())
    return Treatment("neutral")


_SUBMISSION = re.compile(r"\b(?:objections?|pleas?|contentions?|submissions?|preliminary)\b", re.I)
_PRAISED = re.compile(
    r"\s+(?:scholars?|judges?|jurists?|counsel|careers?|lawyers?|academics?|writers?|authors?|"
    r"colleagues?|commentators?|members?|practitioners?|service|record)\b",
    re.I,
)
