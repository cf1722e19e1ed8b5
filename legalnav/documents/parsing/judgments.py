"""Judgments: the case card, numbered paragraphs and parent chunks, from the text alone.

Pure functions, no ORM (``documents.case_cards`` stores what they return). A judgment is read at
three levels, after the "Lexi" design:

- *child chunks* are the retrieval passages (``retrieval.passages``): one per numbered paragraph
  node, long paragraphs cut at sentence ends, for precise retrieval;
- *parent chunks* (``parent_chunks``) are runs of whole consecutive paragraphs, cut at headings
  and at a size limit, that keep a line of reasoning together; a retrieved child is shown with
  its parent;
- one *case card* per judgment (``case_card``): court, date, case name and parties, judges, who
  appealed and who won, the statutes and cases cited (with how each case was treated), issues
  and holdings, each with the paragraph it came from.

Extraction is deterministic: the header lines of the reported judgment (Indian Supreme Court
reports as in AILA 2019, England and Wales Court of Appeal transcripts), the closing order, and
the text. Anything not found stays empty rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from typing import Any

# --- recognising a judgment ------------------------------------------------------------------

_JUDGMENT_SIGNS = re.compile(
    r"Supreme Court of India|The Judgment was delivered by|The Order of the Court was|"
    r"Neutral Citation Number|IN THE COURT OF APPEAL|IN THE HIGH COURT|IN THE SUPREME COURT|"
    r"Judgment Approved by the court|JUDGMENT\s*:?\s*\n|\bJ\.\s*:|\bLord Justice\b|\bHon'?ble\b|"
    r"\bthe (?:appellant|respondent|petitioner)s?\b",
    re.IGNORECASE,
)


def looks_like_judgment(text: str) -> bool:
    """Whether the text reads as a court judgment (two distinct signs in its opening part, or
    one in the header and appellant/respondent language throughout)."""
    head = text[:6000]
    signs = {" ".join(m.group(0).lower().split()) for m in _JUDGMENT_SIGNS.finditer(head)}
    first = next((ln for ln in head.split("\n") if ln.strip()), "")
    if _V.search(first) and len(first) < 300:
        signs.add("a case name opens the text")
    if len(signs) >= 2:
        return True
    parties = len(re.findall(r"\b(?:appellant|respondent|petitioner)s?\b", text[:40000], re.I))
    return bool(signs) and parties >= 5


# --- paragraphs -------------------------------------------------------------------------------

# "1.  Petitioner Masud Khan prays …", "12. In view of …", "105. For the reasons …"
_NUMBERED = re.compile(r"^[ \t]*(\d{1,3})\.[ \t]+(?=\S)", re.MULTILINE)
_HEADING_LINE = re.compile(r"^[ \t]*([A-Z][A-Za-z0-9 ,:;'’()\-–]{2,80})[ \t]*$", re.MULTILINE)


@dataclass(slots=True)
class Paragraph:
    number: int  # as printed ("12." -> 12); unnumbered text gets 0 (the header) or follows on
    start: int  # offsets into the judgment text, end exclusive
    end: int
    numbered: bool = True
    heading: str = ""  # the section heading printed just above it, if any ("Discussion")

    @property
    def label(self) -> str:
        return f"¶{self.number}" if self.numbered else "header"


def paragraphs(text: str) -> list[Paragraph]:
    """The judgment's numbered paragraphs, in order, each running to the next one (quotations
    and unnumbered continuation lines stay with the paragraph that introduces them).

    A number must continue the sequence (1, 2, 3 …; a skip of a few is tolerated, for
    paragraphs lost in the report) so that a "2." that only starts a line inside a quoted list
    does not open a paragraph. The text before paragraph 1 is the header (number 0)."""
    found: list[tuple[int, int]] = []  # (number, start)
    expected = 1
    for m in _NUMBERED.finditer(text):
        n = int(m.group(1))
        if not found:
            if n > 3:
                continue
        elif not (expected <= n <= expected + 3):
            continue
        found.append((n, m.start()))
        expected = n + 1
    out: list[Paragraph] = []
    if not found:
        return out
    first = found[0][1]
    if text[:first].strip():
        out.append(Paragraph(0, 0, first, numbered=False))
    for i, (n, start) in enumerate(found):
        end = found[i + 1][1] if i + 1 < len(found) else len(text)
        out.append(Paragraph(n, start, _rstrip(text, start, end)))
    # A heading line that closes a paragraph ("Discussion" above 40.) belongs to the next one.
    for i in range(1, len(out)):
        prev, cur = out[i - 1], out[i]
        tail = text[prev.start : prev.end]
        matches = list(_HEADING_LINE.finditer(tail))
        last = matches[-1] if matches else None
        if last is not None and last.end() >= len(tail.rstrip()) and _is_heading(last.group(1)):
            cut = prev.start + last.start()
            if cut > prev.start:
                cur.heading = last.group(1).strip()
                prev.end = _rstrip(text, prev.start, cut)
    return out


def _rstrip(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


_NOT_HEADINGS = re.compile(r"^(?:Appeals? (?:allowed|dismissed)|Order accordingly)", re.I)


def _is_heading(line: str) -> bool:
    words = line.split()
    if not 1 <= len(words) <= 8 or line.rstrip().endswith((".", ",", ";", ":")):
        return False
    if _NOT_HEADINGS.match(line):
        return False
    return sum(1 for w in words if w[:1].isupper()) >= max(1, len(words) // 2)


def paragraph_at(paras: list[Paragraph], offset: int) -> Paragraph | None:
    """The paragraph holding a character offset (None before the first one)."""
    lo, hi = 0, len(paras)
    while lo < hi:
        mid = (lo + hi) // 2
        if paras[mid].start <= offset:
            lo = mid + 1
        else:
            hi = mid
    if lo == 0:
        return None
    return paras[lo - 1]


# --- parent chunks ----------------------------------------------------------------------------

PARENT_TARGET_CHARS = 3500
PARENT_MAX_CHARS = 6000


@dataclass(slots=True)
class ParentChunk:
    id: str  # "P0" is the header; "P1", "P2" … in order
    start: int
    end: int
    first: int  # first and last paragraph numbers in it
    last: int
    heading: str = ""

    @property
    def label(self) -> str:
        if self.first == 0 and self.last == 0:
            return "header"
        return f"¶{self.first}" if self.first == self.last else f"¶¶{self.first}–{self.last}"


def parent_chunks(
    text: str,
    paras: list[Paragraph] | None = None,
    *,
    target: int = PARENT_TARGET_CHARS,
    limit: int = PARENT_MAX_CHARS,
) -> list[ParentChunk]:
    """Runs of whole consecutive paragraphs that keep a line of reasoning together.

    A new parent starts at a printed section heading ("Discussion", "Ground 2"), and once the
    current one has reached ``target`` characters, or would pass ``limit`` with the next
    paragraph. A paragraph is never split: one longer than ``limit`` is a parent of its own.
    A judgment without numbered paragraphs is cut at blank lines the same way."""
    paras = paragraphs(text) if paras is None else paras
    if not paras:
        paras = _blank_line_blocks(text)
    out: list[ParentChunk] = []
    cur: list[Paragraph] = []

    def close() -> None:
        if not cur:
            return
        first, last = cur[0], cur[-1]
        ident = (
            "P0"
            if first.number == 0 and not first.numbered
            else f"P{len(out) + (0 if out and out[0].id == 'P0' else 1)}"
        )
        out.append(
            ParentChunk(ident, first.start, last.end, first.number, last.number, first.heading)
        )
        cur.clear()

    for p in paras:
        if not p.numbered and p.number == 0:
            close()
            cur.append(p)
            close()
            continue
        size = (cur[-1].end - cur[0].start) if cur else 0
        if cur and (p.heading or size >= target or size + (p.end - p.start) > limit):
            close()
        cur.append(p)
    close()
    return out


def _blank_line_blocks(text: str) -> list[Paragraph]:
    out: list[Paragraph] = []
    n = 0
    for m in re.finditer(r"\S(?:.|\n(?![ \t]*\n))*", text):
        n += 1
        out.append(Paragraph(n, m.start(), m.end(), numbered=False))
    return out


# --- treatment language -----------------------------------------------------------------------

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
            return Treatment(polarity, name, m.group(0), m.start())
    return Treatment("neutral")


_SUBMISSION = re.compile(r"\b(?:objections?|pleas?|contentions?|submissions?|preliminary)\b", re.I)


# --- sentences ------------------------------------------------------------------------------

_SENTENCE_END = re.compile(
    r"(?<!\bv)(?<!\bvs)(?<!\bNo)(?<!\bno)(?<!\bArt)(?<!\bs)(?<!\bss)(?<!\bSec)(?<!\bCr)(?<!\bAnr)(?<!\bOrs)"
    r"(?<!\bpp)(?<!\bp)(?<!\bpara)(?<!\bparas)(?<!\bJ)(?<!\bMr)(?<!\bMrs)(?<!\bDr)(?<!\bSh)(?<!\bSmt)(?<!\bLtd)(?<!\bCo)(?<!\bInc)(?<!\bBros)(?<!\bCorpn)(?<!\bviz)(?<!\bi\.e)(?<!\be\.g)"
    r"(?<![A-Z])[.;?!](?=\s+[A-Z(“\"']|\s*\n)"
)


def sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences in text[start:end], abbreviations ("v.", "No.",
    "s.", "Art.", initials) not ending one."""
    end = len(text) if end is None else end
    out: list[tuple[int, int]] = []
    pos = start
    for m in _SENTENCE_END.finditer(text, start, end):
        stop = m.end()
        if text[pos:stop].strip():
            a = pos
            while a < stop and text[a].isspace():
                a += 1
            out.append((a, stop))
        pos = stop
    if text[pos:end].strip():
        a = pos
        while a < end and text[a].isspace():
            a += 1
        out.append((a, _rstrip(text, a, end)))
    return out


# --- the case card --------------------------------------------------------------------------

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATE_LINE = re.compile(
    rf"^\s*(?:Date:\s*)?(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTHS}),?\s+(\d{{4}})\s*$", re.I | re.M
)
_DATE_NUMERIC = re.compile(r"\bDate\s*:\s*(\d{1,2})/(\d{1,2})/(\d{4})\b")
_DATE_ANY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTHS}),?\s+(\d{{4}})\b", re.I)
_COURT = re.compile(
    r"Supreme Court of India|Supreme Court of the United Kingdom|House of Lords|Privy Council|"
    r"Court of Appeal(?:\s*\((?:Civil|Criminal) Division\))?|High Court of [A-Z][A-Za-z .&]+?(?=\n|,|$)|"
    r"High Court of Justice|Supreme Court(?: of [A-Z][a-z]+)?",
    re.I,
)
_NEUTRAL_CITATION = re.compile(
    r"Neutral Citation(?: Number)?:?\s*(\[\d{4}\]\s+[A-Z]+(?:\s+[A-Z][a-z]+)?\s+\d+)"
)
_DELIVERED = re.compile(r"The Judgment was delivered by\s*:?\s*(.+)", re.I)
_ORDER_OF_COURT = re.compile(r"The Order of the Court was as follows", re.I)
_CASE_NUMBER = re.compile(
    r"^\s*((?:Civil|Criminal|Cr|Crl|C|Writ|Special|Transfer|Contempt|Review|Election|Tax|Original|"
    r"S\.?L\.?P|W\.?P|Cr\.?A|C\.?A|Appeal|Petition|Reference|Case)[^\n]{0,160}?(?:No[s]?\.?|Nos?\b)?[^\n]{0,120}?\d{1,6}[^\n]{0,80}?(?:of|/)\s*\d{2,4}[^\n]{0,60})$",
    re.I | re.M,
)
_UK_CASE_NO = re.compile(r"Case No:?\s*([A-Z0-9/]+(?:\s*[,&]\s*[A-Z0-9/]+)*)")
_STATUS = re.compile(r"Status:\s*\n?\s*([A-Z][A-Za-z ]+Treatment)", re.I)

# Who a party is, from its name: the state's side (prosecution, government, public bodies) or
# a private party.
STATE_PARTY = re.compile(
    r"\b(?:State of|State\b|Union of India|Government|Govt\.?|Commissioner|Collector|Director|"
    r"Secretary of State|Secretary|Municipal|Municipality|Corporation of|Development Authority|"
    r"Superintendent|Supdt\.?|Remembrancer|Public Prosecutor|Central Bureau|C\.?B\.?I|Delhi Administration|"
    r"N\.?C\.?T\.? of Delhi|Regina|\bR\b(?!\.?\s*\(on the application)|Crown|Attorney General|Advocate General|"
    r"Income[- ]Tax Officer|Revenue|Customs|Excise|Enforcement|Inspector|Officer|Board of|Chief Minister|"
    r"Home Office|Ministry|Department|Council\b|Authority\b|Police)",
    re.I,
)

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


@dataclass(slots=True)
class CitedCase:
    name: str  # "State of Bombay v. Kathi Kalu Oghad"
    citation: str = ""  # "(1962) 3 SCR 10", "[2002] EWCA Civ 1825"
    treatment: str = "neutral"  # supporting | adverse | neutral
    cue: str = ""  # "distinguished", "followed" …
    paragraphs: list[int] = field(default_factory=list)
    sentence: str = ""  # the first sentence that cites it, verbatim (trimmed)
    document_id: int | None = None  # set when linked to a judgment of the same matter


@dataclass(slots=True)
class StatuteCited:
    name: str  # "Indian Penal Code, 1860", "Arms Act, 1959", "Constitution of India"
    sections: list[str] = field(default_factory=list)  # "302", "29(b)", "Article 21"
    paragraphs: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Finding:
    text: str  # verbatim sentence (whitespace collapsed)
    paragraph: int
    start: int
    end: int


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
    # What the text calls each side ("accused", "tenant", "workman", "bank" …), see party_labels.
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

    m = _NEUTRAL_CITATION.search(header)
    card.neutral_citation = m.group(1) if m else ""
    m = _COURT.search(header) or _COURT.search(text[:8000])
    card.court = _court_name(m.group(0)) if m else ""
    # The judgment's own date line first ("26 September 1973", "Date: 30/07/2020"), then any
    # date in the header (which may be a hearing date).
    m = _DATE_LINE.search(header)
    card.decided = _to_date(m) if m else None
    numeric = _DATE_NUMERIC.search(header)
    if card.decided is None and numeric:
        try:
            day, month, year = (int(x) for x in numeric.groups())
            card.decided = date(year, month, day)
        except ValueError:
            card.decided = None
    if card.decided is None:
        m = _DATE_ANY.search(header)
        card.decided = _to_date(m) if m else None
    m = _STATUS.search(header)
    card.judicial_treatment = " ".join(m.group(1).split()) if m else ""

    if re.search(r"\bBetween\s*:", header) or "- and -" in header:
        _uk_parties(card, header)
        m = _UK_CASE_NO.search(header)
        card.case_number = m.group(1).strip() if m else ""
        card.judges = _uk_judges(header)
    else:
        name = nonblank[0] if nonblank else title
        card.case_name = " ".join(name.split())[:300]
        left, right = split_case_name(card.case_name)
        card.appellants, card.respondents = _party_list(left), _party_list(right)
        m = _CASE_NUMBER.search(header)
        card.case_number = " ".join(m.group(1).split())[:200] if m else ""
        m = _DELIVERED.search(header)
        card.judges = _judges(m.group(1)) if m else []
    if not card.case_name or card.case_name.lower().startswith("neutral citation"):
        # A transcript whose parties could not be read: its running title ("X v Y") if any.
        running = next(
            (ln for ln in nonblank if _V.search(ln) and len(ln) < 200 and ":" not in ln), ""
        )
        card.case_name = " ".join(running.split()) or title
    card.appellant_role = party_role(card.appellants)
    card.respondent_role = party_role(card.respondents)
    card.proceeding, card.criminal = _proceeding(card.case_number, text)
    card.appellant_label, card.respondent_label = party_labels(
        text, criminal=card.criminal, appellant_role=card.appellant_role
    )

    card.outcome, card.outcome_text, out_at = closing_outcome(text)
    owner = paragraph_at(paras, out_at) if out_at >= 0 else None
    card.outcome_paragraph = owner.number if owner else 0
    card.winner = {
        "allowed": "appellant",
        "remanded": "appellant",
        "dismissed": "respondent",
        "partly_allowed": "mixed",
    }.get(card.outcome, "unknown")

    card.statutes = statutes_cited(text, paras)
    card.cases_cited = cases_cited(text, paras)
    card.issues, card.holdings = findings(text, paras)
    card.paragraph_count = sum(1 for p in paras if p.numbered)
    card.parents = parent_chunks(text, paras)
    return card


def _court_name(raw: str) -> str:
    name = " ".join(raw.split())
    if name.isupper():
        name = name.title().replace(" Of ", " of ").replace("(Civil Division)", "(Civil Division)")
    return name


def _to_date(m: re.Match[str]) -> date | None:
    try:
        return datetime.strptime(f"{m.group(1)} {m.group(2)} {m.group(3)}", "%d %B %Y").date()
    except ValueError:
        return None


_V = re.compile(r"\s+(?:v\.?|vs\.?|versus)\s+", re.I)


def split_case_name(name: str) -> tuple[str, str]:
    """ "Masud Khan v State Of Uttar Pradesh" -> ("Masud Khan", "State Of Uttar Pradesh")."""
    parts = _V.split(name, maxsplit=1)
    if len(parts) == 2:
        return parts[0].strip(" ,."), parts[1].strip(" ,.")
    return name.strip(), ""


_PARTY_SPLIT = re.compile(r"\s*(?:,|&|\band\b)\s*(?=[A-Z])")
_PARTY_TAIL = re.compile(
    r"[\s,]*(?:&|and)?\s*(?:Ors?\.?|Others?|Anr\.?|Another|Etc\.?|etc\.?)\s*\.?\s*$", re.I
)


def _party_list(side: str) -> list[str]:
    side = side.strip()
    if not side:
        return []
    tail = _PARTY_TAIL.search(side)
    core = side[: tail.start()] if tail else side
    core = core.strip(" ,.")
    if not core:
        return [side]
    # "State of Jammu and Kashmir" must stay whole: split on "and" only between two names
    # that each look like a person or body, not inside a place name.
    if STATE_PARTY.search(core) and " and " in core and "," not in core and "&" not in core:
        return [core] + (["others"] if tail else [])
    parts = [p.strip(" ,.") for p in _PARTY_SPLIT.split(core) if p.strip(" ,.")]
    return parts + (["others"] if tail else [])


def party_role(parties: list[str]) -> str:
    """ "state" when the first named party is the state or a public body, else "private"."""
    if not parties:
        return ""
    return "state" if STATE_PARTY.search(parties[0]) else "private"


# What a judgment calls the parties: "the appellant-accused", "respondent/tenant", "the
# accused-appellants", "the respondent Bank". Each label maps to a side a user may argue for.
PARTY_LABELS = {
    "accused": "accused",
    "convict": "accused",
    "state": "state",
    "prosecution": "state",
    "company": "company",
    "bank": "bank",
    "corporation": "corporation",
    "management": "employer",
    "employer": "employer",
    "employee": "employee",
    "workman": "employee",
    "workmen": "employee",
    "tenant": "tenant",
    "landlord": "landlord",
    "landlady": "landlord",
    "assessee": "assessee",
    "revenue": "revenue",
    "detenu": "detenu",
    "complainant": "complainant",
    "plaintiff": "plaintiff",
    "defendant": "defendant",
    "insurer": "insurer",
    "claimant": "claimant",
    "husband": "husband",
    "wife": "wife",
    "owner": "owner",
    "purchaser": "purchaser",
    "vendor": "vendor",
    "union": "union",
}
_LABEL_WORDS = (
    r"accused|convicts?|state|prosecution|company|bank|corporation|management|employers?|"
    r"employees?|workm[ae]n|tenants?|landlords?|landlady|assessees?|revenue|detenus?|"
    r"complainants?|plaintiffs?|defendants?|insurers?|claimants?|husband|wife|owners?|"
    r"purchasers?|vendors?|union"
)
_ROLE_WORDS = r"appellants?|respondents?|petitioners?|applicants?"
_ROLE_THEN_LABEL = re.compile(rf"\b({_ROLE_WORDS})[-/ ]({_LABEL_WORDS})\b", re.I)
_LABEL_THEN_ROLE = re.compile(rf"\b({_LABEL_WORDS})[-/ ]({_ROLE_WORDS})\b", re.I)


def _label(word: str) -> str:
    w = word.lower()
    if w not in PARTY_LABELS and w.endswith("s") and w[:-1] in PARTY_LABELS:
        w = w[:-1]
    return PARTY_LABELS.get(w, "")


def party_labels(text: str, *, criminal: bool = False, appellant_role: str = "") -> tuple[str, str]:
    """(appellant label, respondent label): what the judgment mostly calls each side, from
    compounds such as "appellant-accused" or "tenant/respondent"; in a criminal case without
    such words, the private side is the accused and the public side the state."""
    counts: dict[str, dict[str, int]] = {"appellant": {}, "respondent": {}}
    for rx, role_group, label_group in ((_ROLE_THEN_LABEL, 1, 2), (_LABEL_THEN_ROLE, 2, 1)):
        for m in rx.finditer(text):
            role = m.group(role_group).lower()
            side = "respondent" if role.startswith("respondent") else "appellant"
            label = _label(m.group(label_group))
            if label:
                counts[side][label] = counts[side].get(label, 0) + 1
    out = []
    for side in ("appellant", "respondent"):
        found = sorted(counts[side].items(), key=lambda kv: (-kv[1], kv[0]))
        out.append(found[0][0] if found else "")
    appellant, respondent = out
    if appellant and appellant == respondent:  # "respondent-accused" in a co-accused's appeal
        respondent = "" if appellant == "accused" else respondent
    if criminal and appellant_role:
        default_appellant, default_respondent = (
            ("state", "accused") if appellant_role == "state" else ("accused", "state")
        )
        appellant = appellant or (default_appellant if respondent != default_appellant else "")
        respondent = respondent or (default_respondent if appellant != default_respondent else "")
    return appellant, respondent


def _judges(raw: str) -> list[str]:
    raw = re.split(r"\n", raw)[0]
    raw = re.sub(r"\bJJ?\.?\s*$", "", raw.strip()).strip(" ,.")
    names = [
        n.strip(" ,.") for n in re.split(r",\s*(?:JJ?\.?)?\s*|\s+and\s+", raw) if n.strip(" ,.")
    ]
    out = []
    for n in names:
        n = re.sub(r"\s*,?\s*\bJJ?\b\.?$", "", n).strip(" ,.")
        if n and n.upper() not in ("J", "JJ") and len(n) > 2:
            out.append(n)
    return out


def _uk_judges(header: str) -> list[str]:
    m = re.search(r"Before\s*:?\s*\n(.*?)(?:\n\s*-\s*-|\n\s*Between)", header, re.S)
    if not m:
        return []
    out = []
    for line in m.group(1).split("\n"):
        line = line.strip().strip(",")
        if not line or line.lower() in ("and", "-"):
            continue
        out.append(" ".join(line.split()))
    return out


_UK_ROLE = re.compile(
    r"^(Appellants?|Respondents?|Claimants?|Defendants?|Applicants?|Petitioners?|Interested\s+Part(?:y|ies)|Intervener?s?)\b",
    re.I,
)


def _uk_parties(card: CaseCardData, header: str) -> None:
    m = re.search(
        r"Between\s*:?\s*\n(.*?)(?:\n\s*-\s*-\s*-|\n\s*Mr\s|\n\s*Ms\s|\nHearing)", header, re.S
    )
    block = m.group(1) if m else ""
    groups = re.split(r"\n\s*-?\s*and\s*-?\s*\n", block)
    sides: list[tuple[list[str], str]] = []
    for g in groups:
        names: list[str] = []
        role = ""
        for line in g.split("\n"):
            line = " ".join(line.split())
            if not line:
                continue
            rm = _UK_ROLE.match(line)
            if rm:
                role = rm.group(1).lower()
                continue
            if re.fullmatch(r"Part(?:y|ies)|\(.*\)", line) and role:
                continue
            names.append(re.sub(r"^\(\d+\)\s*", "", line))
        if names:
            sides.append((names, role))
    for names, role in sides:
        if (
            role.startswith(("appellant", "applicant", "claimant", "petitioner"))
            and not card.appellants
        ):
            card.appellants = names
        elif role.startswith(("respondent", "defendant")) and not card.respondents:
            card.respondents = names
    if not card.appellants and sides:
        card.appellants = sides[0][0]
    if not card.respondents and len(sides) > 1:
        card.respondents = sides[1][0]
    if card.appellants and card.respondents:
        card.case_name = f"{card.appellants[0]} v {card.respondents[0]}"[:300]


def _proceeding(case_number: str, text: str) -> tuple[str, bool]:
    cn = case_number.lower()
    head = text[:20000]
    criminal = bool(
        re.search(r"\bcr(?:l|iminal)?\b|\bcriminal\b", cn)
        or len(
            re.findall(
                r"\b(?:accused|prosecution|conviction|convicted|acquittal|I\.?P\.?C|Penal Code|Cr\.?P\.?C)\b",
                head,
            )
        )
        >= 6
    )
    if re.search(r"\bw\.?\s*p\b|writ", cn):
        kind = "writ petition"
    elif re.search(r"s\.?\s*l\.?\s*p|special leave", cn):
        kind = "special leave petition"
    elif "contempt" in cn:
        kind = "contempt petition"
    elif "reference" in cn:
        kind = "reference"
    elif "transfer" in cn:
        kind = "transfer petition"
    elif "review" in cn:
        kind = "review petition"
    elif re.search(r"appeal|\bc\.?a\b|\bcr\.?a\b", cn) or re.search(
        r"\bappeal\b", head[:3000], re.I
    ):
        kind = "criminal appeal" if criminal else "civil appeal"
    else:
        kind = ""
    return kind, criminal


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


# --- statutes -----------------------------------------------------------------------------------

_ACT_WORD = r"(?:[A-Z][A-Za-z'’\-.]*|\([A-Z][^()\n]{1,80}\)|and|of|for|on|to|in|the|&)"
_ACT = re.compile(
    rf"\b([A-Z][A-Za-z'’\-.]*(?:\s+{_ACT_WORD}){{0,10}}?\s+(?:Act|Code|Ordinance|Rules|Regulations))"
    r"(?:,?\s+(1[89]\d{2}|20\d{2}))?\b"
)
_KNOWN_CODES = {
    "ipc": "Indian Penal Code",
    "i.p.c": "Indian Penal Code",
    "cr.p.c": "Code of Criminal Procedure",
    "crpc": "Code of Criminal Procedure",
    "c.p.c": "Code of Civil Procedure",
    "cpc": "Code of Civil Procedure",
    "ndps": "Narcotic Drugs and Psychotropic Substances Act",
    "tada": "Terrorist and Disruptive Activities (Prevention) Act",
}
_SECTION = re.compile(
    r"\b(?:u/ss?\.?|sections?|secs?\.|ss?\.)\s*(\d{1,4}[A-Z]?(?:\s*\(\s*[0-9a-z]{1,4}\s*\))*(?:\s*(?:,|and|/|&|to|r/w|read\s+with)\s*\d{1,4}[A-Z]?(?:\s*\(\s*[0-9a-z]{1,4}\s*\))*)*)"
    r"(?:\s+(?:of\s+(?:the\s+)?)?((?:[A-Z][A-Za-z()'’\-]*\s+){0,8}(?:Act|Code)(?:,?\s+\d{4})?|I\.?P\.?C\.?|Cr\.?P\.?C\.?|C\.?P\.?C\.?|NDPS|TADA))?",
    re.I,
)
_ARTICLE = re.compile(
    r"\b(?:Articles?|Arts?\.)\s*(\d{1,3}[A-Z]?(?:\s*\(\s*\d{1,2}\s*\))*(?:\s*\(\s*[a-z]\s*\))?)",
    re.I,
)
_ACT_STOP = {
    "the",
    "this",
    "that",
    "said",
    "such",
    "which",
    "an",
    "a",
    "under",
    "of",
    "in",
    "section",
    "sections",
    "sec",
    "s",
    "u/s",
    "and",
    "or",
    "by",
    "to",
    "for",
    "on",
    "as",
    "is",
    "was",
    "per",
    "whereas",
    "where",
    "when",
    "if",
    "since",
    "but",
    "also",
    "further",
    "clause",
    "rule",
    "article",
    "provisions",
    "provision",
    "scheme",
    "object",
    "purpose",
    "preamble",
    "chapter",
    "schedule",
    "amendment",
    "amended",
    "new",
    "old",
    "central",
    "both",
    "any",
    "every",
    "all",
    "present",
    "relevant",
    "aforesaid",
    "impugned",
    "parent",
    "principal",
    "learned",
}


def _canonical_act(name: str, year: str | None = None) -> str:
    words = name.replace("’", "'").split()
    while words and (
        words[0].lower().strip(".") in _ACT_STOP
        or not words[0][:1].isupper()
        or re.fullmatch(r"[A-Z]\.?|\d.*|[IVX]+\.?", words[0])
    ):
        words = words[1:]
    if not words:
        return ""
    base = " ".join(words)
    # "Paris Agreement and the Climate Change Act": two names joined; keep the statute.
    base = re.split(r"\s+and\s+the\s+|\.\s+", base)[-1]
    if not base[:1].isupper():
        return ""
    key = base.lower().replace(" ", "").rstrip(".")
    base = _KNOWN_CODES.get(key, base)
    if base.lower() in ("act", "code", "rules", "the act", "the code", "regulations", "ordinance"):
        return ""
    return f"{base}, {year}" if year else base


def statutes_cited(text: str, paras: list[Paragraph] | None = None) -> list[StatuteCited]:
    """Statutes named in the judgment with the sections cited from each, in order of first
    mention. "Section 302 IPC", "u/s. 138 of the Negotiable Instruments Act, 1881", "Art. 21"."""
    paras = paragraphs(text) if paras is None else paras
    found: dict[str, StatuteCited] = {}
    years: dict[str, str] = {}  # act name without year -> year, once seen

    def put(name: str, section: str | None, at: int) -> None:
        if not name:
            return
        bare = re.sub(r",\s*\d{4}$", "", name)
        if name != bare:
            years[bare] = name[len(bare) + 2 :]
        elif bare in years:
            name = f"{bare}, {years[bare]}"
        key = bare.lower()
        item = found.get(key)
        if item is None:
            item = found[key] = StatuteCited(name)
        elif len(name) > len(item.name):
            item.name = name
        if section:
            parts = (
                [section]
                if section.startswith("Article")
                else re.split(r"\s*(?:,|\band\b|/|&|r/w|read\s+with)\s*", section)
            )
            for s in parts:
                s = s if s.startswith("Article") else re.sub(r"\s+", "", s)
                if s and s not in item.sections and not s.startswith("to"):
                    item.sections.append(s)
        p = paragraph_at(paras, at)
        n = p.number if p else 0
        if n not in item.paragraphs:
            item.paragraphs.append(n)

    for m in _SECTION.finditer(text):
        act = m.group(2)
        if not act:
            continue
        name = _canonical_act(*_split_year(act))
        put(name, m.group(1), m.start())
    for m in _ACT.finditer(text):
        name = _canonical_act(m.group(1), m.group(2))
        if name and len(name.split()) >= 2:
            put(name, None, m.start())
    for m in _ARTICLE.finditer(text):
        if (
            re.search(r"Constitution", text[m.end() : m.end() + 60])
            or "Constitution" in text[:200000]
        ):
            put(
                "Constitution of India" if "India" in text[:5000] else "Constitution",
                f"Article {m.group(1)}",
                m.start(),
            )
    return list(found.values())


def _split_year(act: str) -> tuple[str, str | None]:
    m = re.match(r"(.*?),?\s+(\d{4})$", act.strip())
    return (m.group(1), m.group(2)) if m else (act.strip(), None)


# --- cases cited -----------------------------------------------------------------------------

_NAME_WORD = r"(?:[A-Z][\w.'’&\-]*|of|the|and|for|in|on|de|van|von|bin|@|\([^()\n]{1,80}\)|&)"
_CASE_NAME = re.compile(
    rf"((?:[A-Z][\w.'’&\-]*)(?:\s+{_NAME_WORD}){{0,9}}?)\s+(?:v\.?|vs\.?|versus)\s+((?:[A-Z][\w.'’&\-]*)(?:\s+{_NAME_WORD}){{0,9}})"
)
_REPORT = re.compile(
    r"\(\d{4}\)\s*\d{0,2}\s*(?:SCC|SCR|S\.C\.C\.|SCALE|All ER|WLR|QB|KB|Ch|AC|A\.C\.)\s*(?:\(\w+\)\s*)?\d+|"
    r"\[\d{4}\]\s*\d{0,2}\s*(?:SCR|S\.C\.R\.|All ER|WLR|QB|KB|Ch|AC|A\.C\.|EWCA\s+(?:Civ|Crim)|EWHC|UKHL|UKSC|UKPC)\s*(?:\(\w+\)\s*)?\d+|"
    r"AIR\s*\(?\d{4}\)?\s*SC\w*\s*\d+|\d{4}\s+Indlaw\s+SC\s+\d+|\d{4}\s*\(\d+\)\s*SC[CR]\s*\d+|\d{4}\s+\d+\s+SCC\s+\d+",
)
_LEAD_NOISE = re.compile(
    r"^(?:(?:In|See|Also|And|But|As|The|This|That|Then|Thus|Hence|Under|Case|Cases|Decision|Judgment|"
    r"Similarly|Likewise|Further|Furthermore|Again|Reliance|Re|Court|Learned|Counsel|Mr\.?|Ms\.?|Lord|Justice|"
    r"Where|When|While|Although|However|Therefore|Accordingly|Moreover|Following|Applying|Relying|Cf\.?)\s+)+"
)


_CONNECTORS = {"of", "the", "and", "for", "de", "van", "von", "bin", "@", "&", "da", "del"}
_NAME_END = re.compile(
    r"^(?:AIR|SCC|SCR|Indlaw|\(?supra\)?|\(\d{4}\)|\[\d{4}\]|\d.*|" + _MONTHS + r")$", re.I
)


_TOKENS = re.compile(r"\([^()]*\)|[^\s(]+")


def _clean_name(a: str, b: str) -> str:
    """Trim a "Name v. Name" match to the case name: the left side starts after the last word
    that cannot be part of a name ("in", "Bench in"); the right side stops at a report, a date
    or a lowercase word."""
    left = _TOKENS.findall(a)
    cut = 0
    for i, w in enumerate(left):
        if w[:1].islower() and w not in _CONNECTORS and not w.startswith("("):
            cut = i + 1
    left = left[cut:]
    while left and (_LEAD_NOISE.match(left[0] + " ") or left[0].lower() in _CONNECTORS):
        left = left[1:]
    right: list[str] = []
    for w in _TOKENS.findall(b):
        bare = w.strip(",;:")
        if (
            _NAME_END.match(bare)
            or (bare[:1].islower() and bare not in _CONNECTORS)
            or (bare.startswith("(") and re.search(r"[\d\[]", bare))
        ):
            break
        right.append(w)
        if w.endswith((",", ";", ":")):
            break
    while right and right[-1].strip(",;:.").lower() in _CONNECTORS:
        right.pop()
    a2, b2 = " ".join(left).strip(" ,.;:"), " ".join(right).strip(" ,;:")
    if b2.endswith(".") and not re.search(
        r"\b(?:Ltd|Co|Ors|Anr|Inc|Bros|Corpn|Pvt)\.$|\b[A-Z]\.$", b2
    ):
        b2 = b2[:-1]
    return f"{a2} v. {b2}" if a2 and b2 else ""


def cases_cited(text: str, paras: list[Paragraph] | None = None) -> list[CitedCase]:
    """Cases the judgment cites ("Name v. Name" near a law-report citation, or a bare report
    citation), with the treatment words of the sentence that cites each (followed, applied,
    distinguished, overruled …) and the paragraphs they appear in."""
    paras = paragraphs(text) if paras is None else paras
    body_start = next((p.start for p in paras if p.numbered), 0)
    out: dict[str, CitedCase] = {}
    by_citation: dict[str, str] = {}  # a report citation -> the key of the named case it cites
    for a, b in sentences(text, body_start):
        sentence = text[a:b]
        if " v" not in sentence and not _REPORT.search(sentence):
            continue
        reports = list(_REPORT.finditer(sentence))
        names = [m for m in _CASE_NAME.finditer(sentence)]
        entries: list[tuple[str, str, tuple[int, int]]] = []
        for nm in names:
            name = _clean_name(nm.group(1), nm.group(2))
            if not name or len(name) < 8:
                continue
            after = sentence[nm.start(2) : nm.end() + 80]
            rep = _REPORT.search(after)
            near = rep is not None and rep.start() < (nm.end() - nm.start(2)) + 40
            citation = " ".join(rep.group(0).split()) if rep and near else ""
            # A name with no report nearby is kept only when it reads like a case name.
            if not citation and not re.search(
                r"\b(?:case|decision|judgment|held|observed|ratio|in re|followed|applied|distinguished|overruled|relied)\b",
                sentence,
                re.I,
            ):
                continue
            entries.append((name, citation, (nm.start(), nm.end())))
        if not names:
            for rep in reports:
                entries.append(("", " ".join(rep.group(0).split()), (rep.start(), rep.end())))
        if not entries:
            continue
        p = paragraph_at(paras, a)
        number = p.number if p else 0
        spans = [span for _, _, span in entries]
        for i, (name, citation, _span) in enumerate(entries):
            treatment = _treatment_for(sentence, spans, i)
            key = _case_key(name) or by_citation.get(citation.lower(), citation.lower())
            if not key:
                continue
            if citation and name:
                by_citation.setdefault(citation.lower(), key)
            item = out.get(key)
            if item is None:
                item = out[key] = CitedCase(
                    name=name or citation,
                    citation=citation,
                    sentence=" ".join(sentence.split())[:500],
                )
            if citation and not item.citation:
                item.citation = citation
            if number not in item.paragraphs:
                item.paragraphs.append(number)
            # Adverse treatment anywhere outweighs a neutral or supporting mention elsewhere.
            if treatment.known and (item.treatment == "neutral" or treatment.polarity == "adverse"):
                item.treatment, item.cue = treatment.polarity, treatment.cue
                item.sentence = " ".join(sentence.split())[:500]
    return list(out.values())


# Where the words between two cited cases divide: what comes before belongs to the first case
# ("X … must be held to be not correctly decided"), what comes after to the second ("and we
# affirm the law laid down in Y").
_CLAUSE_BREAK = re.compile(
    r";|,?\s+(?:and|but|while|whereas)\s+(?=we\b|this\s+court\b|the\s+court\b|i\b)|\.\s", re.I
)


def _treatment_for(sentence: str, spans: list[tuple[int, int]], i: int) -> Treatment:
    """The treatment words that apply to the i-th case cited in a sentence: with one case, the
    whole sentence; with several, the words between it and its neighbours, split at the clause
    break between two cases (its own words after it first, then the words leading up to it)."""
    if len(spans) == 1:
        return treatment_of(sentence)
    start, end = spans[i]
    prev_end = spans[i - 1][1] if i > 0 else 0
    next_start = spans[i + 1][0] if i + 1 < len(spans) else len(sentence)
    tail = sentence[end:next_start]
    if i + 1 < len(spans):
        cut = _CLAUSE_BREAK.search(tail)
        tail = tail[: cut.start()] if cut else tail
    lead = sentence[prev_end:start]
    if i > 0:
        breaks = list(_CLAUSE_BREAK.finditer(lead))
        lead = lead[breaks[-1].end() :] if breaks else ""
    found = treatment_of(tail)
    return found if found.known else treatment_of(lead)


_KEY_DROP = re.compile(
    r"\b(?:the|of|and|ors?|others?|anr|another|etc|ltd|limited|pvt|private|co|company|m/s|smt|sh|shri|sri|"
    r"mr|mrs|dr|state|in|re|r|on|application)\b|[^a-z0-9 ]"
)


def _case_key(name: str) -> str:
    if not name:
        return ""
    left, right = split_case_name(name.lower())
    lk = " ".join(_KEY_DROP.sub(" ", left).split())
    rk = " ".join(_KEY_DROP.sub(" ", right).split())
    return f"{lk}|{rk}"


_STATE_ABBREVIATIONS = [
    (re.compile(r"\bU\.\s*P\.?(?=\s|$|[,)])", re.I), "uttar pradesh"),
    (re.compile(r"\bM\.\s*P\.?(?=\s|$|[,)])", re.I), "madhya pradesh"),
    (re.compile(r"\bA\.\s*P\.?(?=\s|$|[,)])", re.I), "andhra pradesh"),
    (re.compile(r"\bH\.\s*P\.?(?=\s|$|[,)])", re.I), "himachal pradesh"),
    (re.compile(r"\bJ\.?\s*&\s*K\.?(?=\s|$|[,)])", re.I), "jammu kashmir"),
    (re.compile(r"\bT\.\s*N\.?(?=\s|$|[,)])", re.I), "tamil nadu"),
]


def case_name_key(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """The distinctive words of each side of a case name, for matching a citation to a
    judgment: "State of Bombay v. Kathi Kalu Oghad" -> ({bombay}, {kathi, kalu, oghad})."""
    for rx, full in _STATE_ABBREVIATIONS:
        name = rx.sub(full, name)
    left, right = split_case_name(name.lower())
    return (
        frozenset(w for w in _KEY_DROP.sub(" ", left).split() if len(w) > 1),
        frozenset(w for w in _KEY_DROP.sub(" ", right).split() if len(w) > 1),
    )


# Words too common in case names to identify a party on their own: frequent Indian surnames
# and given-name parts, and the names of states and public bodies.
_COMMON_NAME_WORDS = frozenset(
    """singh kumar ram lal das prasad chand devi khan ali ahmed ahmad mohd mohammad mohammed md rao
    reddy sharma gupta nath shah bai ben bhai babu mal kaur begum sahib raj pal dev jain yadav
    punjab haryana bihar bengal west uttar pradesh madhya andhra tamil nadu kerala karnataka
    maharashtra gujarat rajasthan orissa odisha assam delhi bombay madras mysore hyderabad
    kashmir jammu himachal goa manipur tripura sikkim administration government commissioner
    collector secretary municipal corporation board council authority bank income tax officer
    director general union respondent appellant petitioner""".split()
)


def names_match(cited: str, case_name: str) -> bool:
    """Whether a cited case name refers to the judgment called ``case_name``.

    Strict on purpose (a wrong link is worse than none): every distinctive word of each side of
    the citation must appear on the matching side of the judgment's name, and at least one of
    the shared words must be uncommon (not a frequent surname, a state or a public body), so
    "Sucha Singh v. State of Punjab" does not match "Sewa Singh v State of Punjab"."""
    if not split_case_name(cited)[1]:
        return False  # "Kathi Kalu Oghad's case": one side only, too loose to link
    cl, cr = case_name_key(cited)
    jl, jr = case_name_key(case_name)
    if not cl or not jl:
        return False

    def same(
        c_left: frozenset[str],
        c_right: frozenset[str],
        j_left: frozenset[str],
        j_right: frozenset[str],
    ) -> bool:
        if not (c_left <= j_left and c_right <= j_right):
            return False
        # The judgment's name may add only common words ("and Others", "Singh"): an extra
        # uncommon word means another party ("Laxman" is not "Kusha Laxman Waghmare").
        if (j_left - c_left) - _COMMON_NAME_WORDS or (j_right - c_right) - _COMMON_NAME_WORDS:
            return False
        return bool((c_left | c_right) - _COMMON_NAME_WORDS)

    return same(cl, cr, jl, jr) or same(cl, cr, jr, jl)


# --- issues and holdings -----------------------------------------------------------------------

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
