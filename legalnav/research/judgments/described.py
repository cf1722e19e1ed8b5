"""What a judgment calls each side of the appeal in plain words ("the appellant mother", "the
father (the respondent)", "Mr Stanford, the debtor"): where a question's side is a position in
life rather than a party's title, research places it by these words."""

from __future__ import annotations

import re

from legalnav.research.judgments.uk_sides import name_keys

# Words a lawyer uses for a party's position; each stands for itself and its plural.
NOUNS = (
    "mother|father|husband|wife|child|parent|guardian|debtor|creditor|bankrupt|taxpayer|landlord|tenant|"
    "employer|employee|worker|insurer|insured|lender|borrower|guarantor|bank|purchaser|buyer|"
    "seller|vendor|contractor|developer|trust|hospital|patient|council|authority|regulator|"
    "liquidator|administrator|trustee|beneficiary|director|shareholder|company|partner|"
    "prisoner|claimant|defendant|applicant|victim|witness|student|university|school|union|"
    "licensee|licensor|franchisee|franchisor|agent|principal|nominee|executor"
)
_POS = r"(?P<pos>appellants?|respondents?)"
_NOUN = rf"(?P<noun>{NOUNS})s?"
_Q = r"[“”\"'‘’]?"
_PATTERNS = [
    # "the appellant mother", "the respondent, the father", "the Appellant (the Debtor)"
    re.compile(rf"\bthe {_POS}\s*,?\s*\(?\s*{_Q}\s*(?:the\s+)?{_NOUN}\b(?![’']s)", re.I),
    # "the mother (the appellant)", "the father, the respondent", "the debtor/appellant"
    re.compile(
        rf"\bthe {_NOUN}\s*(?:,|/|-|\()?\s*{_Q}\s*(?:the\s+|who is the\s+)?{_POS}\b(?![’']s)", re.I
    ),
    # "respondent-husband", "appellant/wife"
    re.compile(rf"\b{_POS}[-/]{_NOUN}\b", re.I),
]
# "The mother appeals from a return order", "the father has appealed": the appellant.
_APPEALS = re.compile(
    rf"\bthe {_NOUN}\s+(?:now\s+)?(?:appeals|appealed|has appealed|brings this appeal|seeks to appeal)\b",
    re.I,
)
# Votes a word needs for a side, and the share it must outweigh the other side's by.
MIN_VOTES = 2
MARGIN = 2
# How much of a judgment is read: the header, counsel's lines and the opening narrative.
READ_CHARS = 40000


def described(appellants: list[str], respondents: list[str], text: str) -> dict[str, list[str]]:
    """{"appellant": [...], "respondent": [...]}: the words the text attaches to each side, by
    position ("the appellant mother", counsel "for the Appellant mother", "the mother appeals")
    or by a party's name ("Mr Stanford, the debtor"); a word
    counts for a side only when it is said of it at least MIN_VOTES times and MARGIN times as
    often as of the other."""
    text = text[:READ_CHARS]
    votes: dict[str, dict[str, int]] = {"appellant": {}, "respondent": {}}

    def vote(pos: str, noun: str) -> None:
        pos = "appellant" if pos.lower().startswith("appellant") else "respondent"
        noun = noun.lower()
        votes[pos][noun] = votes[pos].get(noun, 0) + 1

    for rx in _PATTERNS:
        for m in rx.finditer(text):
            vote(m.group("pos"), m.group("noun"))
    for m in _APPEALS.finditer(text):
        vote("appellant", m.group("noun"))
    keys = name_keys(appellants, respondents, text)
    title = r"(?:(?:Mr|Ms|Mrs|Miss|Dr|Sir|Dame)\.?\s+)?"
    for pos, names in keys.items():
        names = {n for n in names if len(n) > 2}
        if not names:
            continue
        alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        # "Mr Stanford, the debtor", "Islandsbanki (“the Bank”)", "A, the mother of …"
        rx = re.compile(rf"{title}\b(?:{alt})\b\s*(?:,|\()\s*{_Q}\s*the\s+{_NOUN}\b(?![’']s)")
        for m in rx.finditer(text):
            vote(pos, m.group("noun"))
    # A person against an organisation: "the individual" (a debtor, a litigant in person).
    kinds = {
        pos: {_kind(n) for n in names}
        for pos, names in (("appellant", appellants), ("respondent", respondents))
    }
    for pos, other in (("appellant", "respondent"), ("respondent", "appellant")):
        if kinds[pos] == {"person"} and kinds[other] == {"organisation"}:
            votes[pos]["individual"] = MIN_VOTES
    out: dict[str, list[str]] = {}
    for pos, other in (("appellant", "respondent"), ("respondent", "appellant")):
        out[pos] = sorted(
            noun
            for noun, n in votes[pos].items()
            if n >= MIN_VOTES and n >= MARGIN * votes[other].get(noun, 0)
        )
    return out


_ORGANISATION = re.compile(
    r"\b(?:ltd|limited|plc|llp|lp|inc|gmbh|ag|s\.?a|bv|nv|spa|hf|bank|council|authority|"
    r"trust|corporation|company|co|group|holdings|commissioners?|secretary of state|ministry|"
    r"department|university|tribunal|commission|office|board|partnership|association|society|"
    r"fund|insurance|services)\b",
    re.I,
)
_PERSON = re.compile(r"^\s*(?:mr|mrs|ms|miss|dr|sir|dame|lord|lady)\.?\s+\w", re.I)


def _kind(name: str) -> str:
    """ "organisation", "person" (a title, or two to four plain words) or "" when unclear."""
    if _ORGANISATION.search(name):
        return "organisation"
    words = re.findall(r"[A-Za-z’'-]+", re.sub(r"\(.*?\)", " ", name))
    if _PERSON.match(name) or (2 <= len(words) <= 4 and all(w[:1].isupper() for w in words)):
        return "person"
    return ""
