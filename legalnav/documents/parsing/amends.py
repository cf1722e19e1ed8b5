"""What an amendment, addendum, supplement, side letter or schedule says it amends, and which
document of a matter that is.

:func:`read_reference` reads, from the head of a document, the instrument it names as the one
it changes or belongs to, with the words it read: "AMENDMENT NO. 2 TO MANUFACTURING AND SUPPLY
AGREEMENT … to the Manufacturing and Supply Agreement dated as of December 8, 2009", "Reference
is hereby made to that certain … Wireless Content License Agreement Number 12965 dated as of
December 16, 2004", "This Customization Schedule is attached to the Software License,
Customization and Maintenance Agreement". :func:`propose` then scores the other documents of the
matter on what the reference and the two heads share: the title (as a phrase, and word by word),
the date, the agreement number and the parties; a candidate that is itself an amendment of the
same instrument is never proposed. A proposal needs the title or the number to agree,
and is only a proposal: a person accepts it (the "as amended" view and the grid use accepted
links only).

Pure: no Django; measured against a hand-built gold over the CUAD and EDGAR documents
(``manage.py evaluate_links``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .values import extract_dates, extract_parties

HEAD_CHARS = 6000
#: Below this a candidate is not proposed; and the best must beat the second by this margin.
MIN_SCORE = 3.0
MARGIN = 0.75

_INSTRUMENT = (
    r"(?:agreement|contract|lease|licen[cs]e|indenture|deed|plan|arrangement|terms\s+and\s+"
    r"conditions|note|guarant(?:y|ee))"
)
_SPACE = re.compile(r"\s+")
# "AMENDMENT NO. 2 TO …", "Second Amendment to …", "Amendment #3 to the …", "Addendum I to …",
# "SUPPLEMENT TO THE EXCLUSIVE BROADCASTING AGREEMENT", "Schedule to Software License …".
_CHANGE = (
    r"(?P<what>amendment|amend\.?|addendum|supplement|side\s+letter|schedule|waiver|joinder|"
    r"attachment\s+[a-z0-9]+)"
)
_TITLE_FORM = re.compile(
    _CHANGE + r"(?:\s+(?:no\.?|number|n°|#)\s*[\w.]+|\s+[ivx0-9]+)?\s+(?:to|of)\s+"
    r"(?:the\s+|that\s+certain\s+)?(?P<title>(?:[\w&'’.,\-/]+\s+){0,10}?" + _INSTRUMENT + r")\b",
    re.I,
)
# "parties to that certain Manufacturing Agreement, effective September 30, 2011",
# "Reference is hereby made to that certain fully executed Wireless Content License Agreement",
# "amends that certain Manufacturing Agreement between Heritage and Premier dated July 1, 2017",
# "is attached to the Software License, Customization and Maintenance Agreement",
# "previously entered into a Distributor Agreement".
_RECITAL_FORM = re.compile(
    r"(?:parties\s+to|entered\s+into|made\s+to|amends?|amending|relating\s+to|attached\s+to|"
    r"issued\s+pursuant\s+to|supplements?)\s+"
    r"(?:that\s+certain\s+|the\s+|a\s+|an\s+)?(?:fully\s+executed\s+)?"
    r"(?P<title>(?:[A-Z][\w&'’.,\-/]*\s+){0,10}?" + r"(?:Agreement|Contract|Lease|Licen[cs]e|"
    r"Indenture|Deed|Plan|Terms\s+and\s+Conditions|Guarant(?:y|ee)))\b",
)
_NUMBER = re.compile(
    r"\b(?:agreement|contract|ref\.?|reference)\s*(?:number|no\.?|#)?\s*:?\s*"
    r"(?P<n>[A-Z]{0,4}[/\-]?[A-Z]{0,4}[/\-]?\d[\w/\-]{2,20})",
    re.I,
)
_STOP = frozenset(
    "the a an of and to for in on by with this that certain as amended restated hereto its".split()
)
# Words a title may start with that belong to the sentence, not to the title; and the part of
# an instrument an amendment may name first ("Section 2, Part B of the Co-Branding Agreement").
_LEAD = re.compile(
    r"^(?:(?:this|the|that|certain|such|said|fully|executed)\s+|(?:section|article|part|"
    r"clause|schedule|exhibit)\s+[\w.()]+,?\s+(?:(?:part|section)\s+[\w.()]+\s+)?(?:of|to)\s+)+",
    re.I,
)
# The document says it changes or belongs to another instrument (not merely "as amended").
_CHANGES = re.compile(
    r"\b(?:amendment|addendum|supplement|schedule|side\s+letter|attachment\s+\w+)\b"
    r"(?:\s+(?:no\.?|number|n°|#)\s*[\w.]+|\s+[ivx0-9]+)?\s*(?:\([^)]{0,60}\)\s*)?(?:to|of)\b"
    r"|\bamends\b|\bamending\b|\battached\s+to\b|\bissued\s+pursuant\s+to\b"
    r"|\bagree\s+to\s+(?:further\s+)?amend\b|\breference\s+is\s+(?:hereby\s+)?made\s+to\b",
    re.I,
)
#: A title line is the document's own only this near its head (past a filing legend).
_TITLE_REACH = 900


@dataclass(frozen=True)
class Reference:
    """The instrument a document names as the one it changes or belongs to."""

    what: str  # "amendment", "addendum", "schedule", …
    title: str  # "Manufacturing and Supply Agreement"
    date: dt.date | None
    number: str  # an agreement number, "" when none is given
    words: str  # the words read, as written (whitespace made single)
    parties: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Candidate:
    """A document that may be the one amended, read once (its head only)."""

    key: str  # the caller's id for it (a document id)
    low: str  # the words of its head and title, lower case, single spaces
    top: str  # … of its title and its first lines only, where it names itself
    dates: frozenset[dt.date]
    own_title: str  # the instrument it itself amends, as a phrase ("" when it amends none)
    own_number: str

    @classmethod
    def of(
        cls, key: str, text: str, title: str = "", effective_date: dt.date | None = None
    ) -> Candidate:
        head = _flat(text[:HEAD_CHARS])
        low = " ".join(re.findall(r"[a-z0-9]+", (title + " " + head[:3000]).lower()))
        top = " ".join(re.findall(r"[a-z0-9]+", (title + " " + head[:_TITLE_REACH]).lower()))
        dates = {d.value for d in extract_dates(head[:2500])}
        if effective_date is not None:
            dates.add(effective_date)
        own = read_reference(text)
        return cls(
            key,
            f" {low} ",
            f" {top} ",
            frozenset(dates),
            _phrase(own.title) if own else "",
            own.number.lower() if own else "",
        )


@dataclass(frozen=True)
class Proposal:
    key: str
    score: float
    words: str
    reasons: tuple[str, ...]


def _flat(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _title_words(title: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", title.lower())
    return [w for w in words if w not in _STOP]


def _clean_title(raw: str) -> str:
    title = _LEAD.sub("", _flat(raw)).strip(" ,.")
    return title


def read_reference(text: str) -> Reference | None:
    """The instrument the head of ``text`` says it amends, supplements or belongs to."""
    head = _flat(text[:HEAD_CHARS])
    opening = re.split(
        r"\b(?:WHEREAS|R\s?E\s?C\s?I\s?T\s?A\s?L\s?S|W\s?I\s?T\s?N\s?E\s?S\s?S\s?E\s?T\s?H|"
        r"TABLE\s+OF\s+CONTENTS)\b",
        head[:_TITLE_REACH],
    )[0]
    title_form = _TITLE_FORM.search(opening)
    recital = None
    for m in _RECITAL_FORM.finditer(head):
        if m.start() < 40:
            continue
        recital = m
        break
    if title_form is None and recital is None:
        return None
    if title_form is None and not _CHANGES.search(head[:2500]):
        return None  # an agreement that merely mentions another one in its recitals
    what = _flat(title_form.group("what")).lower() if title_form else "amendment"
    title = _clean_title(title_form.group("title")) if title_form else ""
    start = title_form.start() if title_form else recital.start()  # type: ignore[union-attr]
    end = title_form.end() if title_form else recital.end()  # type: ignore[union-attr]
    if recital is not None:
        recital_title = _clean_title(recital.group("title"))
        # The recital's title is the instrument's own spelling; the title line may be an
        # abbreviation of it ("AMENDMENT NO. 1 TO STREMICK'S … MANUFACTURING AGREEMENT").
        if not title or len(_title_words(recital_title)) >= len(_title_words(title)):
            title = recital_title or title
        start, end = min(start, recital.start()), max(end, recital.end())
    tail = head[end : end + 260]
    date = None
    dated = re.match(
        r"[^.;]{0,120}?\b(?:dated|effective|entered\s+into|made|executed)\b[^.;]{0,20}?", tail, re.I
    )
    # The date is the named instrument's only when nothing comes between them that makes it
    # this document's own ("… Part B of the Co-Branding Agreement is made effective …").
    if dated and re.search(r"\b(?:is|are|was|were|shall|will|hereby)\b", dated.group(0), re.I):
        dated = None
    if dated:
        after = extract_dates(tail[dated.end() : dated.end() + 60])
        if after:
            date = after[0].value
            end += dated.end() + after[0].end
    number_m = _NUMBER.search(head[max(0, start - 200) : end + 200])
    number = number_m.group("n") if number_m else ""
    parties = extract_parties(head[:3000])
    names = tuple(p.name for p in parties.value) if parties else ()  # type: ignore[union-attr]
    words = head[start:end].strip()
    if len(words) > 320:
        words = words[:317] + "…"
    return Reference(what, title, date, number, words, names)


def _phrase(title: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", title.lower()))


def _party_key(name: str) -> str:
    words = [w for w in re.findall(r"[a-z0-9]+", name.lower()) if w not in _STOP]
    return words[0] if words else ""


def score(reference: Reference, candidate: Candidate) -> tuple[float, list[str]]:
    """How well ``candidate`` fits the instrument ``reference`` names, and why."""
    low = candidate.low
    reasons: list[str] = []
    total = 0.0
    phrase = _phrase(reference.title)
    words = _title_words(reference.title)
    title_hit = False
    if phrase and len(phrase) > 8 and f" {phrase} " in candidate.top:
        total += 3.0
        title_hit = True
        reasons.append(f"its title is “{reference.title}”")
    elif phrase and len(words) >= 2 and f" {phrase} " in low:
        total += 1.5
        title_hit = True
        reasons.append(f"it names itself “{reference.title}”")
    elif len(words) >= 2:
        share = sum(f" {w} " in low for w in words) / len(words)
        if share >= 0.75:
            total += 1.5 * share
            title_hit = True
            reasons.append("its title has the same words")
    number = reference.number.lower()
    if number and f" {' '.join(re.findall(r'[a-z0-9]+', number))} " in low:
        total += 2.5
        title_hit = True
        reasons.append(f"it bears the number {reference.number}")
    if not title_hit:
        return 0.0, []
    if reference.date is not None and reference.date in candidate.dates:
        total += 2.5
        reasons.append(f"it is dated {reference.date.isoformat()}")
    elif reference.date is not None and candidate.dates:
        total -= 1.5  # it bears dates, and not the one the amendment gives
    if reference.parties:
        keys = {_party_key(p) for p in reference.parties} - {""}
        found = [k for k in keys if f" {k}" in low]
        if keys and found:
            total += 1.5 * len(found) / len(keys)
            reasons.append("the same parties")
        elif keys:
            total -= 1.5  # none of the amendment's parties is named in it
    if candidate.own_title and (
        candidate.own_title == phrase or (number and candidate.own_number == number)
    ):
        # Itself a change to the same instrument (Amendment No. 1 beside No. 2): never the one
        # amended, whichever of them arrived first.
        return 0.0, []
    return total, reasons


def propose(text: str, candidates: Sequence[Candidate]) -> Proposal | None:
    """The document among ``candidates`` that ``text`` amends or belongs to, or None when the
    text names no instrument or no candidate is clearly it."""
    reference = read_reference(text)
    if reference is None or not (reference.title or reference.number):
        return None
    scored = []
    for c in candidates:
        s, reasons = score(reference, c)
        if s > 0:
            scored.append((s, c, reasons))
    if not scored:
        return None
    scored.sort(key=lambda x: -x[0])
    best, candidate, reasons = scored[0]
    second = scored[1][0] if len(scored) > 1 else 0.0
    if best < MIN_SCORE or best - second < MARGIN:
        return None
    return Proposal(candidate.key, round(best, 2), reference.words, tuple(reasons))
