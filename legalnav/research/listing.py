"""Listing and factual questions, answered by enumerating case-card metadata (not by top-k).

"Which cases involve commercial vehicles?", "How many appeals by the State were dismissed?",
"Who delivered the judgment in Masud Khan v State of Uttar Pradesh?": the question is read into
filters (statute and section, outcome, who appealed, years, judge, cited case, the report's
treatment flag, court, a topic phrase, or one named judgment and the fact asked about it), and
every judgment of the matter that passes them is listed, with the passage that shows why.

A topic phrase is matched through the lexical index's postings (every passage holding all its
words), then checked as a phrase in the passage text, so the list is complete rather than the
ten passages a ranked search would return.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from legalnav.research.judgments.cases import case_name_key, names_match
from legalnav.retrieval.bm25 import tokenize

# Words that frame a listing rather than say what to look for.
_FRAME = frozenset(
    """which what who whom whose when where how many much list show find give me all any the a an
    of in on to for by with and or is are was were be been that this these those there cases case
    judgments judgment decisions decision appeals appeal matters matter involve involving involved
    involves mention mentioning mentions about concerning regarding under do does did have has
    had where court courts please tell ones one count number it its their them they not
    decided delivered written authored supreme cite cites cited citing apply applies applied
    applying refer refers referred""".split()
)
# The same words as the lexical index spells them ("decided" -> "decid").
_FRAME_TOKENS = _FRAME | frozenset(tokenize(" ".join(_FRAME)))
OUTCOME_WORDS = {
    "partly allowed": "partly_allowed",
    "partially allowed": "partly_allowed",
    "allowed in part": "partly_allowed",
    "allowed": "allowed",
    "succeeded": "allowed",
    "dismissed": "dismissed",
    "failed": "dismissed",
    "remanded": "remanded",
    "remitted": "remanded",
    "disposed of": "disposed",
}
_OUTCOME = re.compile(r"\b(" + "|".join(re.escape(k) for k in OUTCOME_WORDS) + r")\b", re.I)
_APPELLANT = re.compile(
    r"\b(?:appeals?|petitions?)\s+(?:filed\s+|brought\s+)?by\s+(?:the\s+)?(state|accused|prosecution|"
    r"employer|employee|workm[ae]n|tenant|landlord|assessee|revenue|bank|company|union)\b|"
    r"\b(?:where|in which)\s+the\s+(state|accused|prosecution|employer|employee|tenant|landlord|"
    r"assessee|revenue|bank|company)\s+appealed\b|"
    r"\b(state|accused|tenant|landlord|assessee|revenue|employer|employee)(?:'s)?\s+appeals?\b",
    re.I,
)
_LABEL_OF = {"prosecution": "state", "workman": "employee", "workmen": "employee"}
_SECTION = re.compile(
    r"\b(?:section|sec\.?|s\.|u/s\.?)\s*(\d{1,4}[A-Z]?(?:\(\w{1,4}\))*)|\b(\d{1,4}[A-Z]?)\s+(?:IPC|I\.P\.C)",
    re.I,
)
_YEAR_RANGE = re.compile(
    r"\b(before|after|since|until|prior to|in|from|between|during)\s+(?:the\s+)?((?:18|19|20)\d{2})s?"
    r"(?:\s+(?:and|to|-)\s+((?:18|19|20)\d{2}))?",
    re.I,
)
_DECADE = re.compile(r"\b(?:in\s+)?the\s+((?:18|19|20)\d0)s\b", re.I)
_JUDGE = re.compile(
    r"\b(?:by|written by|delivered by|authored by|judge|justice)\s+(?:the\s+)?(?:Justice|Hon'?ble|Mr\.?\s+Justice|J\.)?\s*"
    r"((?:[A-Z][\w.'-]*\s*){1,4})",
)
_CITES = re.compile(
    r"\b(?:cite|cites|cited|citing|rely on|relied on|refer to|referring to|follow|followed)\s+"
    r"(?:the\s+)?(?:decision\s+in\s+|judgment\s+in\s+|case\s+of\s+)?(.+?)[?.!]*$",
    re.I,
)
_NEGATIVE = re.compile(r"\bnegative(?:\s+judicial)?\s+treatment\b|\bflagged\b", re.I)
_QUOTED = re.compile(r"[“\"']([^”\"']{3,80})[”\"']")
_PARAGRAPH = re.compile(r"\b(?:paragraph|para\.?|¶)\s*(\d{1,3})\b", re.I)
_FIELDS: list[tuple[str, re.Pattern[str]]] = [
    (
        "judges",
        re.compile(
            r"\bwho\s+(?:delivered|wrote|authored|decided)|\bwhich\s+judges?|\bjudges?\s+sat\b|\bbench\b",
            re.I,
        ),
    ),
    ("decided", re.compile(r"\bwhen\s+was\b|\bdate\b|\bdecided\s+on\b|\bwhat\s+year\b", re.I)),
    (
        "appellant",
        re.compile(
            r"\bwho\s+(?:was|were)\s+the\s+(?:appellant|petitioner)s?\b|\bwho\s+appealed\b", re.I
        ),
    ),
    ("respondent", re.compile(r"\bwho\s+(?:was|were)\s+the\s+respondents?\b", re.I)),
    (
        "outcome",
        re.compile(
            r"\boutcome\b|\bresult\b|\bwho\s+won\b|\bwas\s+the\s+appeal\s+(?:allowed|dismissed)",
            re.I,
        ),
    ),
    (
        "statutes",
        re.compile(
            r"\bstatutes?\b|\bacts?\s+(?:are|were)\s+cited\b|\bwhich\s+(?:acts|sections)\b", re.I
        ),
    ),
    (
        "cases_cited",
        re.compile(r"\bwhich\s+cases\s+(?:does|did)\s+.+\bcite\b|\bcases\s+cited\s+in\b", re.I),
    ),
    ("case_number", re.compile(r"\bcase\s+number\b|\bappeal\s+number\b|\bcitation\b", re.I)),
    ("paragraph", _PARAGRAPH),
]


@dataclass(slots=True)
class Filters:
    statutes: list[str] = field(default_factory=list)  # statute names of the matter, as stored
    sections: list[str] = field(default_factory=list)
    outcome: str = ""
    appellant_label: str = ""
    year_from: int | None = None
    year_to: int | None = None
    judge: str = ""
    cites: str = ""
    negative_treatment: bool = False
    court: str = ""
    criminal: bool | None = None
    phrase: list[str] = field(default_factory=list)  # topic words (index tokens), in order
    phrase_text: str = ""  # the same words as the question wrote them
    case_doc: int | None = None  # one named judgment (corpus position)
    fact: str = ""  # what is asked about it (a key of _FIELDS)
    paragraph: int | None = None

    @property
    def lookup(self) -> bool:
        return self.case_doc is not None

    def describe(self) -> list[str]:
        out = []
        if self.statutes:
            out.append("statute: " + ", ".join(self.statutes))
        if self.sections:
            out.append("section " + ", ".join(self.sections))
        if self.outcome:
            out.append(f"outcome: {self.outcome.replace('_', ' ')}")
        if self.appellant_label:
            out.append(f"appeal brought by the {self.appellant_label}")
        if self.year_from or self.year_to:
            out.append(f"decided {self.year_from or '…'}–{self.year_to or '…'}")
        if self.judge:
            out.append(f"judge: {self.judge}")
        if self.cites:
            out.append(f"cites: {self.cites}")
        if self.negative_treatment:
            out.append("flagged with negative judicial treatment")
        if self.court:
            out.append(f"court: {self.court}")
        if self.criminal is not None:
            out.append("criminal" if self.criminal else "civil")
        if self.phrase:
            # No quotation marks: a label, not a quotation (every quotation is checked).
            out.append("mentions the words " + (self.phrase_text or " ".join(self.phrase)))
        return out

    @property
    def empty(self) -> bool:
        return not self.describe() and not self.lookup


@dataclass(frozen=True, slots=True)
class CardView:
    """The case-card fields listing reads (filled from CaseCard rows by the caller)."""

    doc: int  # corpus position
    case_name: str
    court: str = ""
    decided: date | None = None
    case_number: str = ""
    judges: tuple[str, ...] = ()
    appellants: tuple[str, ...] = ()
    respondents: tuple[str, ...] = ()
    appellant_label: str = ""
    appellant_role: str = ""
    criminal: bool = False
    outcome: str = "unknown"
    outcome_text: str = ""
    judicial_treatment: str = ""
    statutes: tuple[dict, ...] = ()  # type: ignore[type-arg]
    cases_cited: tuple[dict, ...] = ()  # type: ignore[type-arg]
    document_id: int | None = None


def read_filters(question: str, cards: Sequence[CardView]) -> Filters:
    """The filters a question states, resolved against what the matter's case cards hold."""
    q = " ".join(question.split())
    f = Filters()
    used: list[str] = []  # words consumed by a filter, kept out of the topic phrase

    # One named judgment: "in Masud Khan v State of Uttar Pradesh", "the Packham HS2 judgment"
    # (but "which cases cite X v Y" lists the judgments citing it).
    cites = _CITES.search(q)
    doc = None if cites and re.search(r"\bv\.?\s", cites.group(1)) else _named_judgment(q, cards)
    if doc is not None:
        _read_lookup(q, f, doc=doc)
        return f

    for m in _NEGATIVE.finditer(q):
        f.negative_treatment = True
        used.append(m.group(0))
    if cites and re.search(r"\bv\.?\s", cites.group(1)):
        f.cites = cites.group(1).strip(" ?.")
        used.append(cites.group(0))
    _read_outcome(q, f, used)
    _read_statutes(q, f, used, cards)
    _read_years(q, f, used)
    _read_bench(q, f, used)
    _read_phrase(q, f, used)
    return f


def _read_lookup(q: str, f: Filters, *, doc: int) -> None:
    """A question about one named judgment: which of its facts it asks for (its summary when
    it names none)."""
    f.case_doc = doc
    for name, rx in _FIELDS:
        m = rx.search(q)
        if m:
            f.fact = name
            if name == "paragraph":
                f.paragraph = int(m.group(1))
            break
    f.fact = f.fact or "summary"


def _read_outcome(q: str, f: Filters, used: list[str]) -> None:
    """The outcome asked for ("appeals dismissed") and who brought the appeal."""
    m = _OUTCOME.search(q)
    if m:
        f.outcome = OUTCOME_WORDS[m.group(1).lower()]
        used.append(m.group(0))
    m = _APPELLANT.search(q)
    if m:
        word = next(g for g in m.groups() if g).lower()
        f.appellant_label = _LABEL_OF.get(word, word)
        used.append(m.group(0))


def _read_statutes(q: str, f: Filters, used: list[str], cards: Sequence[CardView]) -> None:
    """The sections and the statutes (of the matter's cards) the question names."""
    for m in _SECTION.finditer(q):
        f.sections.append((m.group(1) or m.group(2)).upper().replace(" ", ""))
        used.append(m.group(0))
    f.statutes = _statutes_named(q, cards)
    for s in f.statutes:
        used.append(s)
    if re.search(r"\b(?:IPC|I\.P\.C|Indian Penal Code|Penal Code)\b", q, re.I):
        used.append("IPC Indian Penal Code")
        if not f.statutes:
            f.statutes = [s for s in _all_statutes(cards) if "penal code" in s.lower()][:1]


def _read_years(q: str, f: Filters, used: list[str]) -> None:
    """The years of decision: a decade ("in the 1990s"), or a year or a range of years."""
    m = _DECADE.search(q)
    if m:
        f.year_from, f.year_to = int(m.group(1)), int(m.group(1)) + 9
        used.append(m.group(0))
        return
    for m in _YEAR_RANGE.finditer(q):
        word, a, b = m.group(1).lower(), int(m.group(2)), m.group(3)
        if word in ("before", "until", "prior to"):
            f.year_to = a - 1 if word != "until" else a
        elif word in ("after", "since", "from"):
            f.year_from = a + 1 if word == "after" else a
        elif word == "between" and b:
            f.year_from, f.year_to = a, int(b)
        else:
            f.year_from = f.year_to = a
        used.append(m.group(0))


def _read_bench(q: str, f: Filters, used: list[str]) -> None:
    """The judge who wrote it, the court, and criminal or civil."""
    m = _JUDGE.search(q)
    if m and re.search(r"\b(?:justice|judge|written|delivered|authored)\b", q, re.I):
        name = m.group(1).strip()
        if name and not _OUTCOME.fullmatch(name):
            f.judge = name
            used.append(m.group(0))
    if re.search(r"\bcourt of appeal\b", q, re.I):
        f.court = "Court of Appeal"
        used.append("court of appeal")
    elif re.search(r"\bsupreme court\b", q, re.I):
        f.court = "Supreme Court"
    if re.search(r"\bcriminal\b", q, re.I):
        f.criminal = True
        used.append("criminal")
    elif re.search(r"\bcivil\b", q, re.I):
        f.criminal = False
        used.append("civil")


def _read_phrase(q: str, f: Filters, used: list[str]) -> None:
    """The topic phrase: the quoted words, else the question's words that no filter used and
    that do not frame a listing; with the question's own spelling of them."""
    quoted = _QUOTED.search(q)
    if quoted:
        f.phrase = tokenize(quoted.group(1))
    else:
        consumed = set(tokenize(" ".join(used)))
        f.phrase = [
            t
            for t in tokenize(q)
            if t not in _FRAME_TOKENS and t not in consumed and not t.isdigit() and len(t) > 1
        ]
    wanted = set(f.phrase)
    f.phrase_text = " ".join(
        w
        for w in re.findall(r"[A-Za-z0-9']+", quoted.group(1) if quoted else q)
        if set(tokenize(w)) & wanted
    )


def _all_statutes(cards: Sequence[CardView]) -> list[str]:
    seen: dict[str, None] = {}
    for c in cards:
        for s in c.statutes:
            seen.setdefault(str(s.get("name", "")), None)
    return [s for s in seen if s]


def _statutes_named(q: str, cards: Sequence[CardView]) -> list[str]:
    """Statute names of the matter that the question names ("the Arms Act" -> "Arms Act,
    1959"): every distinctive word of the statute's name, without its year, is in the question."""
    words = set(tokenize(q))
    found = []
    for name in _all_statutes(cards):
        bare = re.sub(r",?\s*\d{4}$", "", name)
        key = [t for t in tokenize(bare) if t not in ("the", "of", "and", "act", "code")]
        if key and all(t in words for t in key) and re.search(r"\b(?:act|code)\b", q, re.I):
            found.append(name)
    # Keep the longest names ("Indian Penal Code" over "Penal Code").
    return [n for n in found if not any(n != o and n in o for o in found)]


_NAME_IN_QUESTION = re.compile(
    r"((?:[A-Z][\w.'&@-]*)(?:\s+(?:[A-Z][\w.'&@-]*|of|and|the|&))*)\s+(?:v\.?|vs\.?)\s+"
    r"((?:[A-Z][\w.'&-]*)(?:\s+(?:[A-Z][\w.'&-]*|of|and|the|&))*)"
)


def _named_judgment(q: str, cards: Sequence[CardView]) -> int | None:
    """The judgment a question names, if exactly one fits: by "X v Y", or by distinctive words
    of its case name ("the Packham HS2 judgment")."""
    m = _NAME_IN_QUESTION.search(q)
    if m:
        cited = f"{m.group(1)} v {m.group(2)}"
        fits = {c.doc for c in cards if names_match(cited, c.case_name)}
        if len(fits) == 1:
            return fits.pop()
        # A shortened name ("Som Raj v State of H.P." for "Som Raj @ Soma v State Of H.P."):
        # every distinctive word of each side is in the judgment's name, and one judgment fits.
        cl, cr = case_name_key(cited)
        fits = set()
        for c in cards:
            jl, jr = case_name_key(c.case_name)
            if cl and cl <= jl and cr <= jr:
                fits.add(c.doc)
        if len(fits) == 1:
            return fits.pop()
    if not re.search(r"\b(?:judgment|case|decision|ruling)\b", q, re.I):
        return None
    capitals = {
        t
        for t in tokenize(" ".join(re.findall(r"\b[A-Z][\w'-]+", q)))
        if t not in _FRAME_TOKENS and len(t) > 2
    }
    if not capitals:
        return None
    scored = []
    for c in cards:
        name_words = set(tokenize(c.case_name))
        shared = capitals & name_words
        if shared:
            scored.append((len(shared), c.doc))
    scored.sort(reverse=True)
    if scored and (len(scored) == 1 or scored[0][0] > scored[1][0]) and scored[0][0] >= 2:
        return scored[0][1]
    return None


def card_passes(card: CardView, f: Filters) -> list[str]:
    """The reasons the card passes every metadata filter, or [] when one fails (the topic
    phrase is checked separately, against the text)."""
    reasons: list[str] = []
    if f.negative_treatment:
        if "negative" not in card.judicial_treatment.lower():
            return []
        reasons.append(card.judicial_treatment)
    if f.outcome:
        if card.outcome != f.outcome:
            return []
        reasons.append(f"outcome: {card.outcome.replace('_', ' ')}")
    if f.appellant_label:
        state_by_name = (
            f.appellant_label == "state"
            and not card.appellant_label
            and card.appellant_role == "state"
        )
        # A card's label may hold a few words ("defendant contemnor"): any of them will do.
        if f.appellant_label not in card.appellant_label.split() and not state_by_name:
            return []
        reasons.append(f"appeal brought by the {f.appellant_label}")
    if f.year_from or f.year_to:
        if card.decided is None:
            return []
        y = card.decided.year
        if (f.year_from and y < f.year_from) or (f.year_to and y > f.year_to):
            return []
        reasons.append(f"decided {card.decided.isoformat()}")
    if f.criminal is not None:
        if card.criminal != f.criminal:
            return []
    if f.court and f.court.lower() not in card.court.lower():
        return []
    if f.judge:
        surname = f.judge.split()[-1].lower().strip(".")
        hit = next((j for j in card.judges if surname in j.lower()), None)
        if hit is None:
            return []
        reasons.append(f"judge: {hit}")
    if f.statutes or f.sections:
        hit = _statute_hit(card, f)
        if not hit:
            return []
        reasons.append(hit)
    if f.cites:
        entry = next(
            (e for e in card.cases_cited if names_match(f.cites, str(e.get("name", "")))), None
        )
        if entry is None:
            return []
        reasons.append(f"cites {entry.get('name')}")
    return reasons or ["matches"]


def _statute_hit(card: CardView, f: Filters) -> str:
    for s in card.statutes:
        name = str(s.get("name", ""))
        if f.statutes and name not in f.statutes:
            continue
        sections = [str(x) for x in s.get("sections", [])]
        if f.sections:
            wanted = [x for x in f.sections if any(_same_section(x, y) for y in sections)]
            if not wanted:
                continue
            return f"{name}, section {', '.join(wanted)}"
        return name
    return ""


def _same_section(a: str, b: str) -> bool:
    a, b = a.upper(), b.upper()
    return a == b or b.startswith(a + "(")


def phrase_regex(words: Sequence[str]) -> re.Pattern[str]:
    """The topic words as a phrase in running text, each word allowing its inflections
    ("commercial vehicle" matches "commercial vehicles")."""
    parts = [re.escape(w) + r"\w{0,4}" for w in words]
    return re.compile(r"\b" + r"[\s\-–]+".join(parts) + r"\b", re.I)


@dataclass(slots=True)
class PhraseHit:
    row: int  # passage row in the corpus
    snippet: str  # the words matched, as they appear in the passage
    exact: bool  # the words as a phrase (True) or only all of them in one passage (False)


def phrase_hits(corpus, words: Sequence[str]) -> dict[int, list[PhraseHit]]:  # type: ignore[no-untyped-def]
    """Every passage of the corpus that holds all the topic words (through the lexical index's
    postings, so no judgment is missed), by document; a passage where they stand together as a
    phrase is an exact hit. ``corpus`` is a ``retrieval.engine.Corpus``."""
    words = [w for w in words if w]
    if not words:
        return {}
    rows = corpus.passages_with_all(words)
    if not rows:
        return {}
    rx = phrase_regex(words)
    out: dict[int, list[PhraseHit]] = {}
    for row in sorted(rows):
        d, p = corpus.owner[row]
        text = corpus.docs[d].passages[p].text
        m = rx.search(text)
        if m:
            out.setdefault(d, []).append(PhraseHit(row, m.group(0), True))
        elif all(re.search(r"\b" + re.escape(w), text, re.I) for w in words):
            out.setdefault(d, []).append(PhraseHit(row, "", False))
    return out
