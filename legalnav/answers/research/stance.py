"""Stance: does a judgment support the user's proposition, cut against it, or neither?

Offline the stance comes from two deterministic signals:

- the judgment's *outcome* for the side the user argues: a judgment in which a party in the
  user's position (the accused, the tenant, the State, the appellant …) won is supporting
  authority; one in which such a party lost is adverse; a mixed or unknown outcome is neutral;
- *treatment language* ("distinguished", "overruled", "not followed", "doubted" versus
  "followed", "applied", "approved"): a passage that treats a decision adversely weakens it, and
  a judgment the report flags with negative judicial treatment is adverse-risk authority.

With Claude, one call classifies the selected passages and must quote the words of the passage
each stance rests on; a stance whose quote is not verbatim in its passage is discarded and the
offline stance kept (the trace says so).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from legalnav.documents.parsing.judgments.treatment import Treatment, treatment_of

SUPPORTING, ADVERSE, NEUTRAL = "supporting", "adverse", "neutral"
BUCKETS = (SUPPORTING, ADVERSE, NEUTRAL)


# --- the user's side --------------------------------------------------------------------------

# Words a question uses for the side it argues, mapped to the party labels of case cards.
_SIDE_WORDS: list[tuple[str, re.Pattern[str]]] = [
    (
        "accused",
        re.compile(
            r"\b(?:accused|convicts?|convicted|defendant in (?:the )?(?:criminal|trial)|detenu|prisoner|under-?trial)\b",
            re.I,
        ),
    ),
    (
        "state",
        re.compile(
            r"\b(?:state\b(?!\s+of\s+mind)|prosecution|prosecutor|public prosecutor|government|union of india|revenue|department|crown)\b",
            re.I,
        ),
    ),
    (
        "employee",
        re.compile(
            r"\b(?:employee|workm[ae]n|officer|worker|staff member|clerk|dismissed (?:employee|officer))\b",
            re.I,
        ),
    ),
    ("employer", re.compile(r"\b(?:employer|management)\b", re.I)),
    ("tenant", re.compile(r"\btenants?\b", re.I)),
    ("landlord", re.compile(r"\b(?:landlord|landlady|owner of the (?:premises|building))\b", re.I)),
    ("assessee", re.compile(r"\b(?:assessee|taxpayer|tax-?payer)\b", re.I)),
    ("insurer", re.compile(r"\binsurers?\b", re.I)),
    ("claimant", re.compile(r"\bclaimants?\b", re.I)),
    ("complainant", re.compile(r"\bcomplainants?\b", re.I)),
    ("plaintiff", re.compile(r"\bplaintiffs?\b", re.I)),
    ("appellant", re.compile(r"\b(?:appellants?|petitioners?|applicants?)\b", re.I)),
    ("respondent", re.compile(r"\brespondents?\b", re.I)),
]
_CLIENT = re.compile(
    r"\b(?:my client|our client|we (?:act|appear) for|i (?:act|appear) for|we represent|"
    r"i represent|on behalf of|acting for)\b",
    re.I,
)
# Outcomes that, said in the question, reveal a side even without "my client".
_WANTS_ACQUITTAL = re.compile(
    r"\b(?:acquit|acquittal should (?:stand|be upheld)|set aside the conviction|conviction (?:cannot|can ?not|should not|must not) "
    r"(?:stand|rest|be sustained)|quash|bail)\b",
    re.I,
)
_WANTS_CONVICTION = re.compile(
    r"\b(?:reverse the acquittal|reversing (?:an|the) acquittal|against (?:an|the) acquittal|"
    r"uphold the conviction|sustain (?:a|the) conviction|restore the conviction)\b",
    re.I,
)
# Sides opposed to each other (the other party in the same kind of dispute).
OPPONENT = {
    "accused": "state",
    "state": "accused",
    "employee": "employer",
    "employer": "employee",
    "tenant": "landlord",
    "landlord": "tenant",
    "assessee": "revenue",
    "revenue": "assessee",
    "appellant": "respondent",
    "respondent": "appellant",
    "insurer": "claimant",
    "claimant": "insurer",
    "complainant": "accused",
    "plaintiff": "defendant",
    "defendant": "plaintiff",
}
# Case-card labels that belong to each side (an employer may be a bank or a corporation).
_LABELS_FOR = {
    "employer": {"employer", "company", "bank", "corporation", "state"},
    "revenue": {"revenue", "state"},
    "state": {"state"},
    "accused": {"accused"},
    "assessee": {"assessee"},
}


@dataclass(frozen=True, slots=True)
class Side:
    role: str  # a key of OPPONENT, or "" when the question does not say
    evidence: str = ""  # the words it was read from

    @property
    def known(self) -> bool:
        return bool(self.role)


def user_side(question: str) -> Side:
    """The side the question argues for, from "my client, the tenant", "we act for the State",
    or a wanted outcome ("the conviction cannot stand" is the accused's case)."""
    for m in _CLIENT.finditer(question):
        window = question[m.end() : m.end() + 80]
        best: tuple[int, str, str] | None = None
        for role, rx in _SIDE_WORDS:
            hit = rx.search(window)
            if hit and (best is None or hit.start() < best[0]):
                best = (hit.start(), role, hit.group(0))
        if best is not None:
            return Side(best[1], f"{m.group(0).strip()} … {best[2]}")
    wanted = _WANTS_CONVICTION.search(question)
    if wanted:
        return Side("state", wanted.group(0))
    wanted = re.search(r"\bthe state (?:wants|seeks|intends|proposes) to\b", question, re.I)
    if wanted:
        return Side("state", wanted.group(0))
    wanted = _WANTS_ACQUITTAL.search(question)
    if wanted:
        return Side("accused", wanted.group(0))
    return Side("")


# --- the stance of a judgment ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stance:
    bucket: str  # supporting | adverse | neutral
    source: str  # "outcome" | "treatment" | "claude" | "none"
    reason: str
    quote: str = ""  # the words it rests on, verbatim from the judgment


@dataclass(frozen=True, slots=True)
class CardFacts:
    """What stance needs from a case card (plain values, so this module stays ORM-free)."""

    case_name: str
    outcome: str  # CaseCard.Outcome values
    winner: str  # appellant | respondent | mixed | unknown
    outcome_text: str = ""
    appellant_label: str = ""
    respondent_label: str = ""
    appellant_role: str = ""
    respondent_role: str = ""
    judicial_treatment: str = ""
    criminal: bool | None = None  # None: not known


# Sides that exist only in criminal proceedings: a civil judgment has no accused.
_CRIMINAL_SIDES = {"accused", "complainant"}


def side_in_case(side: Side, card: CardFacts) -> str:
    """Where the user's side sat in this judgment: "appellant", "respondent" or ""."""
    if side.role in ("appellant", "respondent"):
        return side.role
    if side.role in _CRIMINAL_SIDES and card.criminal is False:
        return ""
    if (
        side.role == "state"
        and card.criminal is False
        and "state"
        not in (
            card.appellant_label,
            card.respondent_label,
        )
    ):
        return ""
    mine = _LABELS_FOR.get(side.role, {side.role})
    theirs = _LABELS_FOR.get(OPPONENT.get(side.role, ""), {OPPONENT.get(side.role, "")})
    a, r = card.appellant_label, card.respondent_label
    if a in mine or (r in theirs and a not in theirs and r):
        return "appellant"
    if r in mine or (a in theirs and r not in theirs and a):
        return "respondent"
    # The State against a private party, read from the names when the text used no label
    # (in a criminal case: the private party is then the accused).
    if side.role == "revenue" or (side.role in ("state", "accused") and card.criminal):
        state_side = (
            "appellant"
            if card.appellant_role == "state" and card.respondent_role != "state"
            else "respondent"
            if card.respondent_role == "state" and card.appellant_role != "state"
            else ""
        )
        if state_side and side.role in ("state", "revenue"):
            return state_side
        if state_side and side.role == "accused":
            return "respondent" if state_side == "appellant" else "appellant"
    return ""


def outcome_stance(side: Side, card: CardFacts) -> Stance:
    """Supporting when a party in the user's position won, adverse when it lost."""
    if not side.known:
        return Stance(NEUTRAL, "none", "the question does not say which side you argue")
    position = side_in_case(side, card)
    if not position:
        return Stance(
            NEUTRAL, "none", f"no party in this judgment is identified as the {side.role}"
        )
    if card.winner in ("appellant", "respondent"):
        won = card.winner == position
        verb = {
            "allowed": "allowed",
            "dismissed": "dismissed",
            "remanded": "sent back",
        }.get(card.outcome, card.outcome)
        party = f"the {side.role}" if side.role not in ("appellant", "respondent") else "that side"
        reason = (
            f"{party} was the {position}; the {'appeal' if position == 'appellant' else 'appeal against it'}"
            f" was {verb}, so {party} {'won' if won else 'lost'}"
        )
        return Stance(SUPPORTING if won else ADVERSE, "outcome", reason, card.outcome_text)
    if card.winner == "mixed":
        return Stance(
            NEUTRAL, "outcome", "partly allowed: each side won in part", card.outcome_text
        )
    return Stance(NEUTRAL, "none", "the judgment's outcome could not be read")


def treatment_stance(passage: str) -> Treatment:
    """The treatment words of a passage (for the cited decision it discusses)."""
    return treatment_of(passage)


def judgment_stance(side: Side, card: CardFacts, passage: str = "") -> Stance:
    """The offline stance of a judgment for the user's side, from its outcome; a report flag of
    negative judicial treatment turns supporting authority into adverse risk."""
    stance = outcome_stance(side, card)
    if card.judicial_treatment and "negative" in card.judicial_treatment.lower():
        if stance.bucket == SUPPORTING:
            return Stance(
                ADVERSE,
                "treatment",
                f"{stance.reason}; but the report flags it ({card.judicial_treatment.lower()}), "
                "so relying on it is a risk",
                stance.quote,
            )
        if stance.bucket == NEUTRAL:
            return Stance(
                NEUTRAL, "treatment", f"flagged: {card.judicial_treatment.lower()}", stance.quote
            )
    return stance


# --- the overruling and silver-sentence classifiers (measured by research_eval) ----------------

_OVERRULING_CUES = {"overruled", "no longer good law", "disapproved"}


def overrules(sentence: str) -> bool:
    """Whether a sentence overrules (or disapproves, or declares bad law) an earlier decision."""
    return treatment_of(sentence).cue in _OVERRULING_CUES


def sentence_polarity(sentence: str) -> str:
    """supporting | adverse | neutral: how a sentence treats the decision it cites."""
    return treatment_of(sentence).polarity
