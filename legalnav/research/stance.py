"""Stance: does a judgment support the user's proposition, cut against it, or neither?

Offline the stance comes from two deterministic signals:

- the judgment's *outcome* for the side the user argues: a judgment in which a party in the
  user's position (the accused, the tenant, the State, the appellant …) won is supporting
  authority; one in which such a party lost is adverse; a mixed or unknown outcome is neutral;
- the judgment's *holding on the issue* (``holding.py``): a judgment none of whose holdings
  comes near the question's issue does not decide it and is neutral ("does not decide …"),
  whoever won; one that does is quoted by that holding, verbatim, as its reason;
- *treatment language* ("distinguished", "overruled", "not followed", "doubted" versus
  "followed", "applied", "approved"): a passage that treats a decision adversely weakens it, and
  a judgment the report flags with negative judicial treatment is adverse-risk authority.

With Claude, one call classifies the selected passages and must quote the words of the passage
each stance rests on; a stance whose quote is not verbatim in its passage is discarded and the
offline stance kept (the trace says so).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from legalnav.research.holding import HoldingMatch, Issue
from legalnav.research.judgments.treatment import Treatment, treatment_of
from legalnav.research.reading import OPPONENT, POSITIONS, Side, is_public_body, read_side

__all__ = ["OPPONENT", "Side", "user_side"]

SUPPORTING, ADVERSE, NEUTRAL = "supporting", "adverse", "neutral"
BUCKETS = (SUPPORTING, ADVERSE, NEUTRAL)


# --- the user's side (read by legalnav.research.reading) ------------------------------

user_side = read_side  # the name the rest of research uses

# Case-card labels that belong to each side (an employer may be a bank or a corporation).
_LABELS_FOR = {
    "employer": {"employer", "company", "bank", "corporation", "state"},
    "revenue": {"revenue", "state"},
    "state": {"state"},
    "accused": {"accused"},
    "assessee": {"assessee"},
    # A claimant was a plaintiff before 1999 (and is one in India still).
    "claimant": {"claimant", "plaintiff"},
    "plaintiff": {"plaintiff", "claimant"},
}
# Where a party stood in its suit, in a side's own words ("the defendant insurer", "the
# landlord-claimant"): placed by the card's words for it when the side itself is not.
_SUIT_WORDS = {"claimant", "defendant", "plaintiff"}


# --- the stance of a judgment ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stance:
    bucket: str  # supporting | adverse | neutral
    source: str  # "holding" | "outcome" | "treatment" | "claude" | "none"
    reason: str
    quote: str = ""  # the words it rests on, verbatim from the judgment
    at: int = -1  # where the quote starts in the judgment's text, when known


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
    # What the text calls each side in plain words ({"appellant": ["mother"], …}).
    described: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, card: object) -> CardFacts:
        """From a case card (the model's row, or the parser's ``case_card`` result)."""
        return cls(
            case_name=card.case_name,  # type: ignore[attr-defined]
            outcome=card.outcome,  # type: ignore[attr-defined]
            winner=card.winner,  # type: ignore[attr-defined]
            outcome_text=card.outcome_text,  # type: ignore[attr-defined]
            appellant_label=card.appellant_label,  # type: ignore[attr-defined]
            respondent_label=card.respondent_label,  # type: ignore[attr-defined]
            appellant_role=card.appellant_role,  # type: ignore[attr-defined]
            respondent_role=card.respondent_role,  # type: ignore[attr-defined]
            judicial_treatment=card.judicial_treatment,  # type: ignore[attr-defined]
            criminal=card.criminal,  # type: ignore[attr-defined]
            described=card.described or {},  # type: ignore[attr-defined]
        )


# Sides that exist only in criminal proceedings: a civil judgment has no accused.
_CRIMINAL_SIDES = {"accused", "complainant"}


def _words(label: str) -> set[str]:
    """A card's label as words: "defendant contemnor" → {"defendant", "contemnor"}."""
    return set(re.split(r"[\s/-]+", label.lower())) - {""}


def _by_words(mine: set[str], theirs: set[str], card: CardFacts) -> str:
    """The position whose label has one of ``mine`` (or, failing that, the position opposite
    the one labelled with one of ``theirs``)."""
    a, r = _words(card.appellant_label), _words(card.respondent_label)
    theirs = theirs - {""}
    if a & mine or (r & theirs and not a & theirs):
        return "appellant"
    if r & mine or (a & theirs and not r & theirs):
        return "respondent"
    return ""


def _state_position(card: CardFacts) -> str:
    """Where the one public body of a case sits (by the parties' names), "" when both or
    neither side is one."""
    if card.appellant_role == "state" and card.respondent_role != "state":
        return "appellant"
    if card.respondent_role == "state" and card.appellant_role != "state":
        return "respondent"
    return ""


def _other(position: str) -> str:
    return {"appellant": "respondent", "respondent": "appellant"}.get(position, "")


def _by_description(side: Side, card: CardFacts) -> str:
    """The one position the text calls by the side's own word ("the appellant mother", "Mr X,
    the debtor"; "individual" for a person against an organisation), or its opponent's."""
    a = set(card.described.get("appellant", ()))
    r = set(card.described.get("respondent", ()))
    mine = (_words(side.label) | {side.role}) - {"party", "the", "a", "an", "in", "of"}
    mine |= {w.rstrip("s") for w in mine}
    theirs = {OPPONENT.get(side.role, "")} - {""}
    if a & mine and not r & mine:
        return "appellant"
    if r & mine and not a & mine:
        return "respondent"
    if r & theirs and not a & theirs:
        return "appellant"
    if a & theirs and not r & theirs:
        return "respondent"
    return ""


def side_in_case(side: Side, card: CardFacts) -> str:
    """Where the user's side sat in this judgment: "appellant", "respondent" or ""."""
    if not side.role:
        return ""
    if side.role in ("appellant", "respondent", "petitioner"):
        # Only a position is known: compare positions (a petitioner is the one who moved).
        return "respondent" if side.role == "respondent" else "appellant"
    if side.role == "party":
        return _by_description(side, card)  # "a litigant in person": the individual, if one
    if side.role in _CRIMINAL_SIDES and card.criminal is False:
        return ""
    labels = _words(card.appellant_label) | _words(card.respondent_label)
    public_body = side.role == "state" and is_public_body(side.label)
    if (
        side.role == "state"
        and not public_body
        and card.criminal is False
        and "state" not in labels
    ):
        return ""
    if side.role == "private" or public_body:
        # A private party against a public body (objectors, a foreign national, a council's
        # tenant) or the body itself: placed by which side is the public body.
        state_at = _by_words({"state", "revenue"}, set(), card) or _state_position(card)
        return state_at if public_body else _other(state_at)
    mine = _LABELS_FOR.get(side.role, {side.role})
    theirs = _LABELS_FOR.get(OPPONENT.get(side.role, ""), {OPPONENT.get(side.role, "")})
    # And the parties that take this side as their opponent (a claimant against an insurer).
    theirs = theirs | {role for role, opposed in OPPONENT.items() if opposed == side.role}
    theirs -= set(POSITIONS)
    found = _by_words(mine, theirs, card)
    if found:
        return found
    suit = _words(side.label) & _SUIT_WORDS
    if suit and side.role not in _SUIT_WORDS:
        # "the defendant insurer" where the card only says who was the defendant.
        word = next(iter(suit))
        found = _by_words(
            _LABELS_FOR.get(word, {word}), _LABELS_FOR.get(OPPONENT[word], {OPPONENT[word]}), card
        )
        if found:
            return found
    # The State against a private party, read from the names when the text used no label
    # (in a criminal case: the private party is then the accused).
    if side.role in ("revenue", "assessee") or (
        side.role in ("state", "accused") and card.criminal
    ):
        state_side = _state_position(card)
        if state_side and side.role in ("state", "revenue"):
            return state_side
        if state_side and side.role in ("accused", "assessee"):
            return _other(state_side)
    if side.role in ("employee", "employer") and card.criminal is not True:
        # A public body against a private person in a service dispute: the body is the employer
        # ("the Board", "the Corporation", a State undertaking), the person its employee.
        public = (
            "appellant"
            if card.appellant_role == "state" and card.respondent_role == "private"
            else "respondent"
            if card.respondent_role == "state" and card.appellant_role == "private"
            else ""
        )
        if public:
            private = "respondent" if public == "appellant" else "appellant"
            return public if side.role == "employer" else private
    found = _by_description(side, card)
    if found:
        return found
    # Nothing in the judgment names the side's kind of party: compare positions, as for a side
    # the question names only by its position ("the claimant-appellant", "the landlord
    # appellants"), the judgment's appellant standing where the side's appeal stands.
    if side.position in ("appellant", "respondent", "petitioner"):
        return "respondent" if side.position == "respondent" else "appellant"
    return ""


def _happened(side: Side, card: CardFacts, position: str, won: bool) -> str:
    """What the judgment did to a party in the user's position, in a lawyer's words."""
    verb = {
        "allowed": "allowed",
        "dismissed": "dismissed",
        "remanded": "sent back",
        "disposed": "disposed of",
        "partly_allowed": "partly allowed",
    }.get(card.outcome, "decided")
    party = (
        f"the {side.role}"
        if side.role not in ("appellant", "respondent", "petitioner", "party")
        else f"the {position}"
    )
    if side.role in ("private", "contemnor") or is_public_body(side.label):
        party = f"the {side.label}"  # "the local objectors", "the council"
    if card.criminal and side.role in ("accused", "state"):
        accused_appealed = (side.role == "accused") == (position == "appellant")
        if accused_appealed:
            return (
                "the accused's appeal was allowed"
                if card.winner == "appellant"
                else "the accused's appeal was dismissed and the conviction stood"
            )
        return (
            "the State's appeal against the accused was allowed"
            if card.winner == "appellant"
            else "the State's appeal was dismissed and the accused kept the result below"
        )
    if position == "appellant":
        return f"{party} appealed and the appeal was {verb}, so {party} {'won' if won else 'lost'}"
    return f"{party} answered the appeal and it was {verb}, so {party} {'won' if won else 'lost'}"


def outcome_stance(side: Side, card: CardFacts) -> Stance:
    """Supporting when a party in the user's position won, adverse when it lost."""
    if not side.known:
        return Stance(NEUTRAL, "none", "the question does not say which side you argue")
    position = side_in_case(side, card)
    if not position:
        who = side.party or side.label or side.role
        return Stance(NEUTRAL, "none", f"no party in this judgment stands where {who} stands")
    if card.winner in ("appellant", "respondent"):
        won = card.winner == position
        bucket = SUPPORTING if won else ADVERSE
        return Stance(
            bucket,
            "outcome",
            f"{_happened(side, card, position, won)}: "
            f"{'supports' if won else 'adverse to'} {side.describe()}",
            card.outcome_text,
        )
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


def holding_stance(side: Side, card: CardFacts, match: HoldingMatch | None, issue: Issue) -> Stance:
    """The stance on the issue: neutral when the judgment's nearest holding is off the issue
    ("does not decide …"); else the outcome's side, with the holding on the issue quoted as the
    reason. Without an issue to match, or a holding read, the outcome's stance as it is."""
    stance = judgment_stance(side, card)
    if match is None or not issue.text:
        return stance
    if not match.on_issue:
        return Stance(
            NEUTRAL,
            "holding",
            f"does not decide the issue ({issue.words}): no holding of the court is on it",
        )
    if stance.bucket == NEUTRAL:
        return Stance(
            NEUTRAL,
            stance.source,
            f"{stance.reason}; the holding quoted is the one nearest the issue",
            match.quote,
            match.start,
        )
    return Stance(
        stance.bucket,
        "holding" if stance.source == "outcome" else stance.source,
        f"{stance.reason}; the holding quoted decides the issue",
        match.quote,
        match.start,
    )


# --- the overruling and silver-sentence classifiers (measured by research_eval) ----------------

_OVERRULING_CUES = {"overruled", "no longer good law", "disapproved"}


def overrules(sentence: str) -> bool:
    """Whether a sentence overrules (or disapproves, or declares bad law) an earlier decision."""
    return treatment_of(sentence).cue in _OVERRULING_CUES


def sentence_polarity(sentence: str) -> str:
    """supporting | adverse | neutral: how a sentence treats the decision it cites."""
    return treatment_of(sentence).polarity
