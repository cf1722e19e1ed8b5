"""The case card: everything the header, the closing order and the text say about a judgment."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from legalnav.research.judgments.cases import CitedCase, cases_cited
from legalnav.research.judgments.chunks import ParentChunk, parent_chunks
from legalnav.research.judgments.described import described
from legalnav.research.judgments.findings import Finding, findings
from legalnav.research.judgments.header import (
    case_number,
    court,
    decided,
    is_english_judgment,
    is_uk_transcript,
    judges,
    judicial_treatment,
    neutral_citation,
    proceeding,
    uk_case_number,
    uk_judges,
)
from legalnav.research.judgments.outcome import (
    closing_outcome,
    operative_result,
    uk_outcome,
)
from legalnav.research.judgments.paragraphs import paragraph_at, paragraphs
from legalnav.research.judgments.parties import (
    VERSUS,
    party_labels,
    party_list,
    party_role,
    split_case_name,
)
from legalnav.research.judgments.statutes import StatuteCited, statutes_cited
from legalnav.research.judgments.uk_sides import (
    judicial_review_roles,
    uk_labels,
    uk_parties_of,
    uk_party_role,
    uk_title,
)


@dataclass(slots=True)
class CaseCardData:
    case_name: str = ""
    court: str = ""
    decided: date | None = None
    case_number: str = ""
    neutral_citation: str = ""
    judges: list[str] = field(default_factory=list)
    appellants: list[str] = field(default_factory=list)  # appellants / petitioners / applicants
    respondents: list[str] = field(default_factory=list)
    appellant_role: str = ""  # "state" | "private" | ""
    respondent_role: str = ""
    # What the text calls each side ("accused", "tenant", "workman", "bank" …), see party_labels;
    # on a UK transcript also what the side was below, first ("defendant", "claimant tenant",
    # "defendant contemnor"): a few words, each a side a user may argue for.
    appellant_label: str = ""
    respondent_label: str = ""
    proceeding: str = ""  # "criminal appeal", "civil appeal", "writ petition", …
    criminal: bool = False
    outcome: str = "unknown"  # one of OUTCOMES
    outcome_text: str = ""  # the closing words the outcome was read from, verbatim
    outcome_paragraph: int = 0
    winner: str = "unknown"  # "appellant" | "respondent" | "mixed" | "unknown"
    judicial_treatment: str = ""  # "Negative Judicial Treatment" when the report flags it
    statutes: list[StatuteCited] = field(default_factory=list)
    cases_cited: list[CitedCase] = field(default_factory=list)
    issues: list[Finding] = field(default_factory=list)
    holdings: list[Finding] = field(default_factory=list)
    paragraph_count: int = 0
    # What the text calls each side in plain words: {"appellant": ["mother"], "respondent": …}
    described: dict[str, list[str]] = field(default_factory=dict)
    parents: list[ParentChunk] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["decided"] = self.decided.isoformat() if self.decided else None
        return data


def case_card(text: str, *, title: str = "") -> CaseCardData:
    """Everything the header, the closing order and the text say about a judgment."""
    card = CaseCardData()
    paras = paragraphs(text)
    body_start = next((p.start for p in paras if p.numbered), 0)
    header = text[: body_start or min(len(text), 4000)]
    lines = [ln.strip() for ln in header.split("\n")]
    nonblank = [ln for ln in lines if ln]

    card.neutral_citation = neutral_citation(header)
    card.court = court(header, text)
    card.decided = decided(header)
    card.judicial_treatment = judicial_treatment(header)

    uk = is_uk_transcript(header)
    if uk:
        parties = uk_parties_of(header, text)
        card.appellants, card.respondents = parties.appellants, parties.respondents
        card.case_name = parties.case_name
        card.case_number = uk_case_number(header)
        card.judges = uk_judges(header)
    else:
        name = nonblank[0] if nonblank else title
        card.case_name = " ".join(name.split())[:300]
        left, right = split_case_name(card.case_name)
        card.appellants, card.respondents = party_list(left), party_list(right)
        card.case_number = case_number(header)
        card.judges = judges(header)
    if not card.case_name or card.case_name.lower().startswith("neutral citation"):
        if card.case_name:  # the header's first line read as the parties: it names none
            card.appellants, card.respondents = [], []
        # A transcript whose parties could not be read: its running title ("X v Y") if any,
        # else the title between its rules ("Re M (Declaration of Death of Child)").
        running = next(
            (ln for ln in nonblank if VERSUS.search(ln) and len(ln) < 200 and ":" not in ln), ""
        )
        card.case_name = " ".join(running.split()) or uk_title(header) or title
    role = uk_party_role if uk else party_role
    card.appellant_role = role(card.appellants)
    card.respondent_role = role(card.respondents)
    if uk:
        card.appellant_role, card.respondent_role = judicial_review_roles(
            card.appellants, card.respondents, (card.appellant_role, card.respondent_role)
        )
    card.proceeding, card.criminal = proceeding(card.case_number, text)
    card.appellant_label, card.respondent_label = party_labels(
        text, criminal=card.criminal, appellant_role=card.appellant_role
    )
    if uk:
        # What each side was below comes from uk_parties_of, not from compounds such as
        # "claimant/applicant", which in a transcript describe parties in general.
        suit = ("claimant", "defendant", "plaintiff")
        more_a, more_r = uk_labels(header, text, parties)
        card.appellant_label = _words(
            more_a, "" if card.appellant_label in suit else card.appellant_label
        )
        card.respondent_label = _words(
            more_r, "" if card.respondent_label in suit else card.respondent_label
        )

    # A transcript's order is in the lead judgment's conclusion, before the concurrences.
    english = uk or is_english_judgment(header)
    card.outcome, card.outcome_text, out_at = uk_outcome(text) if english else closing_outcome(text)
    owner = paragraph_at(paras, out_at) if out_at >= 0 else None
    card.outcome_paragraph = owner.number if owner else 0
    card.winner = {
        "allowed": "appellant",
        "remanded": "appellant",
        "dismissed": "respondent",
        "partly_allowed": "mixed",
    }.get(card.outcome, "unknown")
    if card.outcome in ("disposed", "unknown"):
        # "Appeal disposed of": who won is in the operative order above the closing words.
        _operative_winner(card, text, out_at)

    card.statutes = statutes_cited(text, paras)
    card.cases_cited = cases_cited(text, paras)
    card.issues, card.holdings = findings(text, paras)
    card.paragraph_count = sum(1 for p in paras if p.numbered)
    card.described = described(card.appellants, card.respondents, text)  # counsel's lines too
    card.parents = parent_chunks(text, paras)
    return card


LABEL_CHARS = 20  # the card's label fields hold this many characters


def _words(first: list[str], label: str) -> str:
    """A side's label of a few words, the UK words first ("defendant", "contemnor"), as many
    as fit the card's field."""
    out = ""
    for word in dict.fromkeys([*first, *label.split()]):
        joined = f"{out} {word}".strip()
        if len(joined) <= LABEL_CHARS:
            out = joined
    return out


def _operative_winner(card: CaseCardData, text: str, closing_at: int) -> None:
    """The winner of an appeal the report only says was "disposed of", from its operative
    order ("we restore the conviction", "the order … is kept undisturbed"); the words read
    become the card's outcome text."""
    who, words, _at = operative_result(text, closing_at)
    if not who:
        return
    if who in ("accused", "prosecution"):
        if not card.criminal:
            return
        accused_at = _accused_position(card)
        if not accused_at:
            return
        other = "respondent" if accused_at == "appellant" else "appellant"
        who = accused_at if who == "accused" else other
    card.winner = who
    card.outcome_text = words[:300]


def _accused_position(card: CaseCardData) -> str:
    """Where the accused sits in a criminal appeal: "appellant", "respondent" or ""."""
    a, r = card.appellant_label, card.respondent_label
    if "accused" in (a, r) and a != r:
        return "appellant" if a == "accused" else "respondent"
    if "state" in (a, r) and a != r:
        return "respondent" if a == "state" else "appellant"
    if card.appellant_role == "state" and card.respondent_role != "state":
        return "respondent"
    if card.respondent_role == "state" and card.appellant_role != "state":
        return "appellant"
    return ""
