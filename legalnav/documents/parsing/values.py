"""Typed extractors: a typed value (a date, a period, an amount, the parties, the governing law)
read from the quotation it rests on. The review grid's cells show them, and the offline
answerer puts one before its list of provisions when a question asks for it.

Each extractor is a pure function over a span's text that returns an ``Extracted`` (the typed
value, the string the grid shows, and where in the text it was read) or None when the text holds
no such value. They are deliberately plain regular expressions: contracts write dates, periods,
sums and governing-law choices in a handful of forms, and an extractor that returns None is
itself a signal (the filler's confidence uses it: a "Governing Law" sentence that names no
jurisdiction is probably the wrong sentence).

The same functions serve the offline answerer's one-line answers, so they take plain text and
know nothing of grids or documents.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation


@dataclass(frozen=True, slots=True)
class Extracted:
    value: object  # date, Duration, Amount, list[Party], str
    display: str
    start: int  # where in the text it was read, so a cell can point at it
    end: int


# --- numbers in words ------------------------------------------------------------------------

_UNITS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    w: 10 * n
    for n, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
    if w != "_"
}
_NUMBER_WORD = (
    r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four|"
    r"five|six|seven|eight|nine))?|(?:one|two|three|four|five|six|seven|eight|nine) hundred"
    r"(?: (?:and )?[a-z\- ]+?)?|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|a|an|single)"
)


def words_to_number(words: str) -> int | None:
    """'ninety', 'twenty-four', 'one hundred and eighty', 'a' -> 90, 24, 180, 1."""
    total = 0
    seen = False
    for w in re.split(r"[\s\-]+", words.lower().replace(" and ", " ")):
        if not w:
            continue
        if w in ("a", "an", "single"):
            total += 1
        elif w in _UNITS:
            total += _UNITS[w]
        elif w in _TENS:
            total += _TENS[w]
        elif w == "hundred":
            total = max(total, 1) * 100
        else:
            return None
        seen = True
    return total if seen else None


# --- dates -----------------------------------------------------------------------------------

_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        "january february march april may june july august september october november december".split()
    )
}
_MONTH_RX = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# OCR splits ordinals ("20t h day"); the day is 1-31 with an optional suffix.
# OCR also reads "31st" as "315t" (an s taken for a 5).
_DAY_RX = r"(?P<day>[0-3]?\d)\s?(?:[s5]\s?t|n\s?d|r\s?d|t\s?h)?"
_DATE_PATTERNS = [
    # the 1st day of January, 2020
    re.compile(
        _DAY_RX + r"\s+day\s+of\s+" + _MONTH_RX + r"\s*,?\s+(?:in the year\s+)?(?P<year>\d{4})",
        re.I,
    ),
    # January 1, 2020 / Jan. 1st 2020 / JUNE 1 , 2006
    re.compile(_MONTH_RX + r"\s+" + _DAY_RX + r"(?:\s*,\s*|\s+)(?P<year>\d{4})\b", re.I),
    # 1 January 2020
    re.compile(r"\b" + _DAY_RX + r"\s+" + _MONTH_RX + r",?\s+(?P<year>\d{4})\b", re.I),
    # 2020-01-31
    re.compile(r"\b(?P<year>\d{4})-(?P<mnum>\d{1,2})-(?P<day>\d{1,2})\b"),
    # 1/31/2020, 01-31-20, 11/15/12 (US order: CUAD's contracts are US filings)
    re.compile(r"\b(?P<mnum>\d{1,2})[/.\-](?P<day>\d{1,2})[/.\-](?P<year>\d{4}|\d{2})\b"),
    # January 2020 (a month without a day: shown as the month); "January ___, 2020" (a form
    # whose day was left blank) the same
    re.compile(_MONTH_RX + r"(?:\s*_{2,}\s*)?,?\s+(?P<year>\d{4})\b", re.I),
    # "this ____ day of ________, 2000", "dated as of [•], 2015": a form whose day and month were
    # left blank has only its year (shown as such, never as a day)
    re.compile(
        r"(?:_{2,}|\[\s*[•●\s]*\])(?:[\s,]*(?:day\s+of\s+)?(?:_{2,}|\[\s*[•●\s]*\]))?"
        r"\s*,?\s*(?P<year>(?:19|20)\d{2})\b",
        re.I,
    ),
]
YEAR_ONLY = " (day and month left blank)"


_FILING_STAMP_RX = re.compile(
    r"\bSource:\s*[^\n]{1,120}?,\s*(?:\d{1,2}-?[A-Z]{1,3}|[A-Z0-9/\-]{2,12}),\s*\d{1,2}/\d{1,2}/\d{2,4}"
)


def _month_number(name: str) -> int | None:
    name = name.lower().rstrip(".")
    for full, n in _MONTHS.items():
        if full.startswith(name[:3]) and full.startswith(name):
            return n
    return None


def extract_dates(text: str) -> list[Extracted]:
    """Every date written in the text, in order of appearance (overlapping readings dropped)."""
    found: list[Extracted] = []
    # An EDGAR filing stamp ("Source: ACME CORP, 10-K, 12/2/2019") dates the filing, not the
    # agreement: its dates are not read.
    taken: list[tuple[int, int]] = [(m.start(), m.end()) for m in _FILING_STAMP_RX.finditer(text)]
    for rx in _DATE_PATTERNS:
        for m in rx.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            parts = m.groupdict()
            if parts.get("month"):
                month = _month_number(parts["month"])
            else:
                month = int(parts["mnum"]) if parts.get("mnum") else None
            day_number = int(parts["day"]) if parts.get("day") else 1
            if month is not None and month > 12 >= day_number and parts.get("mnum"):
                # "29/3/18", "18/9/2008": no month 29, so the day comes first (a European form)
                month, day_number = day_number, month
            year = int(parts["year"])
            if year < 100:
                year += 2000 if year < 50 else 1900
            day = day_number
            try:
                value = dt.date(year, 1 if month is None else month, day)
            except ValueError:
                continue
            if month == 0 or not 1900 <= year <= 2100:
                continue
            # A month alone is not a day, nor a year alone a month.
            if month is None:
                display = f"{year}{YEAR_ONLY}"
            else:
                display = value.isoformat() if parts.get("day") else f"{value:%B %Y}"
            found.append(Extracted(value, display, m.start(), m.end()))
            taken.append((m.start(), m.end()))
    return sorted(found, key=lambda e: e.start)


def date_precision(display: str) -> str:
    """How much of a date ``extract_dates`` read, from its display: "day" (ISO), "month"
    ("July 2017") or "year" ("2000 (day and month left blank)")."""
    if display.endswith(YEAR_ONLY):
        return "year"
    return "day" if re.fullmatch(r"\d{4}-\d{2}-\d{2}", display) else "month"


def extract_date(text: str) -> Extracted | None:
    """The first date in the text."""
    dates = extract_dates(text)
    return dates[0] if dates else None


# A date that belongs to another instrument the text names: 'the First Amendment to the
# Development Agreement ("Development Agreement") entered into on April 15, 2010', 'as amended by
# Amendment No. 1 thereto, dated February 28, 2020'. Not where the text names itself between the
# two: 'This Amendment No. 2 to the Receivables Purchase Agreement (this "Amendment") is dated as
# of July 31, 2020' is the amendment's own date.
_DATED_TAIL = (
    r"\b(?:entered\s+into|dated|made|executed|signed)(?:\s+(?:on|as\s+of|effective))?\s*"
    r"(?:the\s+)?$"
)
# (a period that ends no sentence is read past: "Agreement ref. DS/C-3957/14 Issue 7 dated")
_NOT_ITSELF = r"(?:(?!\(\s*this\b)(?:[^.;]|(?<=\b[Rr]ef)\.|(?<=\b[Nn]o)\.|\.(?=\S)))"
_OTHER_INSTRUMENT_RX = re.compile(
    r"\b(?:to|of|under|into|amends?|amending|restat\w*|supplement\w*)\s+(?:the|that\s+certain|a|an)\s+"
    r"[^.;]{0,80}?\b(?:agreement|contract|lease|indenture|licen[cs]e)\b"
    + _NOT_ITSELF
    + r"{0,60}?"
    + _DATED_TAIL
    + r"|\b(?:amended|supplemented|modified)\s+by\s+(?:No\.|[^.;()]){0,80}?"
    + _DATED_TAIL,
    re.I,
)
# A date something falls due or ends on is not a date the instrument bears: 'Senior Notes due
# August 1, 2020' on a note purchase agreement's cover, 'the Term … is hereby extended to January
# 20, 2012' in an amendment.
_DUE_RX = re.compile(
    r"\b(?:due|matur\w*|expir\w*|extended\s+(?:to|until|through)|until)(?:\s+(?:on|as\s+of))?\s*"
    r"(?:the\s+)?$",
    re.I,
)


def _dates_with_lead(text: str, width: int) -> list[tuple[Extracted, str]]:
    """Every date of the text with the ``width`` characters written before it."""
    return [(d, text[max(0, d.start - width) : d.start]) for d in extract_dates(text)]


def own_dates(text: str) -> list[Extracted]:
    """The text's dates less those of another instrument it names."""
    return [d for d, lead in _dates_with_lead(text, 160) if not _OTHER_INSTRUMENT_RX.search(lead)]


# A date a signature block gives ("Date: January 27, 2020", "Dated: 12/14/15") ...
_SIGNED_AT_RX = re.compile(r"\b(?:date|dated|date signed)\s*:\s*$", re.I)
# ... and not a date a term runs to or from ("Termination Date: 12/31/2023")
_TERM_DATE_RX = re.compile(
    r"\b(?:effective|termination|expiration|expiry|commencement|start|end|due|closing|delivery|"
    r"renewal|launch|payment|invoice)\s+date\s*:\s*$",
    re.I,
)


def signed_dates(text: str) -> list[Extracted]:
    """The full dates written after a "Date:" label: a signature block's."""
    return [
        d
        for d, lead in _dates_with_lead(text, 60)
        if date_precision(d.display) == "day"
        and _SIGNED_AT_RX.search(lead)
        and not _TERM_DATE_RX.search(lead)
    ]


def extract_agreement_date(text: str, *, full: bool = False) -> Extracted | None:
    """The date the instrument itself bears: its first date that is not the date of an
    agreement it amends or refers to (``full``: its first with a day, past a form's blank
    "this ____ day of ________, 2012")."""
    dates = [d for d in own_dates(text) if not _DUE_RX.search(text[max(0, d.start - 30) : d.start])]
    if full:
        dates = [d for d in dates if date_precision(d.display) == "day"]
    return dates[0] if dates else None


_EFFECTIVE_BEFORE_RX = re.compile(
    r"\beffective(?:\s+(?:as\s+of|on|from|date))?\s*[:,]?\s*(?:the\s+)?$", re.I
)
_EFFECTIVE_AFTER_RX = re.compile(r"^[\s,]*\(?\s*(?:the\s+)?[\"“]?effective\s*date", re.I)
_TAKES_EFFECT_RX = re.compile(
    r"\b(?:effective|effect|commenc\w*|begin\w*|start\w*|in\s+force)\b", re.I
)


def extract_effective_date(text: str) -> Extracted | None:
    """The date an agreement takes effect: the one written after 'effective as of' or named
    'the "Effective Date"' ('entered into on October 1, 2019 and made effective as of November
    1, 2019 (the "Effective Date")' -> 2019-11-01), else the first date of a text that speaks of
    taking effect or commencing. A date the text only says the agreement was made or dated on
    ('made and entered into this 30th day of November, 2017') is its Agreement Date: it has no
    effective date of its own to read there."""
    dates = own_dates(text)
    for d in dates:
        if _EFFECTIVE_BEFORE_RX.search(
            text[max(0, d.start - 30) : d.start]
        ) or _EFFECTIVE_AFTER_RX.match(text[d.end : d.end + 30]):
            return d
    if not _TAKES_EFFECT_RX.search(text):
        return None
    return dates[0] if dates else None


# --- durations -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Duration:
    number: int
    unit: str  # day, business day, week, month, year
    renews: bool = False  # "successive", "automatically renew", "year to year"

    def __str__(self) -> str:
        unit = self.unit + ("s" if self.number != 1 else "")
        text = f"{self.number} {unit}"
        return f"{text}, renewing" if self.renews else text


_PERIOD_RX = re.compile(
    r"\b(?:(?P<words>" + _NUMBER_WORD + r")[\s\-]*(?:\(\s*(?P<paren>\d{1,4})\s*\)[\s\-]*)?|"
    r"(?P<digits>\d{1,4})[\s\-]*)"
    r"(?P<business>(?:business|calendar|working)\s+)?"
    r"(?P<unit>days?|weeks?|months?|years?|yrs?\.?|mos?\.?)\b",
    re.I,
)
_YEARLY_RX = re.compile(
    r"\b(?:year[- ]to[- ]year|yearly|annually|annual (?:basis|renewal)|month[- ]to[- ]month)\b",
    re.I,
)
_RENEWS_RX = re.compile(
    r"\b(?:successive|automatic(?:ally)?\s+(?:be\s+)?(?:renew|extend)|auto-?renew|"
    r"renew\w*\s+automatically|evergreen|year[- ]to[- ]year|month[- ]to[- ]month)",
    re.I,
)
_UNIT_NAMES = {"d": "day", "w": "week", "m": "month", "y": "year"}


def extract_durations(text: str) -> list[Extracted]:
    """Every period of time in the text ('three (3) years', "ninety (90) days' notice",
    '12 months'), each marked as renewing when the text speaks of successive or automatic
    renewal."""
    renews = bool(_RENEWS_RX.search(text))
    out = []
    for m in _PERIOD_RX.finditer(text):
        if m.group("paren"):
            number: int | None = int(m.group("paren"))
        elif m.group("digits"):
            number = int(m.group("digits"))
        else:
            number = words_to_number(m.group("words") or "")
        if number is None or number <= 0:
            continue
        # "a year" inside "each year" or "per year" is a rate, not a period.
        if m.group("words") and m.group("words").lower() in ("a", "an"):
            before = text[max(0, m.start() - 7) : m.start()].lower()
            if re.search(r"\b(?:per|each|every|once|twice)\s*$", before):
                continue
        word = m.group("unit").lower()
        unit = _UNIT_NAMES["m" if word.startswith("mo") else word[0]]
        if m.group("business") and unit == "day":
            unit = f"{m.group('business').split()[0].lower()} day"
        out.append(Extracted(Duration(number, unit, renews), "", m.start(), m.end()))
    if not out:
        yearly = _YEARLY_RX.search(text)
        if yearly:
            unit = "month" if "month" in yearly.group(0).lower() else "year"
            out.append(Extracted(Duration(1, unit, True), "", yearly.start(), yearly.end()))
    return [Extracted(e.value, str(e.value), e.start, e.end) for e in out]


def extract_duration(text: str) -> Extracted | None:
    """The first period of time in the text."""
    found = extract_durations(text)
    return found[0] if found else None


_PERPETUAL_RX = re.compile(
    r"\b(?:perpetu\w+|in perpetuity|indefinite(?:ly)?|until terminated|unless and until "
    r"terminated|until (?:such time as )?(?:it is |this agreement is )?terminated)\b",
    re.I,
)


_END_CUE_RX = re.compile(
    r"\b(?:expir\w*|terminat\w*|end(?:s|ing)?|until|through|thru|to|ending|lapse\w*)"
    r"(?:\s+(?:on|at|upon|as of|the close of business on|midnight on))?\s*[:,]?\s*$",
    re.I,
)
_START_CUE_RX = re.compile(
    r"\b(?:commenc\w*|begin\w*|began|start\w*|effective|from|dated|made|as of)\b", re.I
)
_ORDINALS = {
    w: n + 1
    for n, w in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
        "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split()
    )
}
_ANNIVERSARY_RX = re.compile(
    r"\b(?P<ord>"
    + "|".join(_ORDINALS)
    + r"|\d{1,2}(?:st|nd|rd|th))\s+(?:\(\d+(?:st|nd|rd|th)?\)\s+)?"
    r"anniversary\b",
    re.I,
)


def _anniversary(text: str) -> Extracted | None:
    m = _ANNIVERSARY_RX.search(text)
    if m is None:
        return None
    raw = m.group("ord").lower()
    n = _ORDINALS.get(raw) or int(re.sub(r"\D", "", raw))
    d = Duration(n, "year")
    return Extracted(d, str(d), m.start(), m.end())


def _term_period(text: str) -> Extracted | None:
    """The period a term runs for: not a notice period ('ninety (90) days prior'), nor a
    period of days too short to be a term."""
    for e in extract_durations(text):
        if _is_notice(text, e):
            continue
        d: Duration = e.value  # type: ignore[assignment]
        if d.unit in ("year", "month") or d.number >= 30:
            plain = Duration(d.number, d.unit)
            return Extracted(plain, str(plain), e.start, e.end)
    return None


_ALTERNATIVE_END_RX = re.compile(
    r"\b(?:earlier|later|sooner|longer|shorter)\s+(?:to\s+occur\s+)?of\b", re.I
)


def term_end_date(text: str) -> Extracted | None:
    """The date a term is said to end on: a date after 'expire on', 'until', 'through', 'to'
    ('from 1 January 2013 to 31 December 2013'), else the later of a start and an end date."""
    dates = extract_dates(text)
    for d in dates:
        if _END_CUE_RX.search(text[max(0, d.start - 45) : d.start]):
            return d
    if len(dates) >= 2 and _START_CUE_RX.search(text[max(0, dates[0].start - 45) : dates[0].start]):
        return max(dates[1:], key=lambda d: d.value)  # type: ignore[arg-type,return-value]
    return None


def extract_term_end(text: str) -> Extracted | None:
    """When a term ends: a date ('shall expire on July 22, 2016'), else a period ('five years
    from the Effective Date', 'the seventh anniversary of the date hereof') that the grid adds
    to the start date, else 'perpetual' for a term that runs until terminated. The expiration
    column is a date column, but contracts more often state the term as a period than as a
    date."""
    end = term_end_date(text)
    if end is not None:
        return end
    if _ALTERNATIVE_END_RX.search(text):
        # "the earlier of (a) twelve months from the Launch Date or (b) ...": the term ends on
        # an event, not on a date that can be computed.
        return None
    if re.search(r"\bin perpetuity\b|\bperpetual\b|\bindefinite(?:ly)?\b", text, re.I):
        m = _PERPETUAL_RX.search(text)
        if m:
            return Extracted("perpetual", "perpetual (until terminated)", m.start(), m.end())
    period = _anniversary(text) or _term_period(text)
    if period is not None:
        return period
    date = extract_date(text)
    if date is not None and re.search(r"\b(?:expir|terminat|end|until|through)\w*\b", text, re.I):
        return date
    m = _PERPETUAL_RX.search(text)
    if m:
        return Extracted("perpetual", "perpetual (until terminated)", m.start(), m.end())
    return None


# --- renewal terms and the notice that stops them ----------------------------------------------

_RENEWAL_WORDING_RX = re.compile(
    r"\b(?:renew\w*|extend\w*|extension|successive|evergreen|year[- ]to[- ]year|"
    r"month[- ]to[- ]month|additional (?:term|period)s?|further (?:term|period)s?)\b",
    re.I,
)
_NOTICE_AFTER_RX = re.compile(
    r"^[\s'’)]*(?:\(\d+\)\s*)?(?:s'|'s|’s|s’)?\s*(?:prior|before|in advance|advance|written notice|"
    r"notice|preceding|ahead)",
    re.I,
)
_NOTICE_BEFORE_RX = re.compile(
    r"(?:at least|not less than|no less than|no later than|not later than|minimum of|"
    r"upon|with|giving|gives|give|on|by)\s+(?:the\s+)?$",
    re.I,
)


def _is_notice(text: str, e: Extracted) -> bool:
    """Whether a period in the text is written as notice ("sixty (60) days' notice", "at least
    90 days prior")."""
    return bool(
        _NOTICE_AFTER_RX.match(text[e.end : e.end + 30])
        or _NOTICE_BEFORE_RX.search(text[max(0, e.start - 20) : e.start])
    )


def extract_renewal(text: str) -> Extracted | None:
    """The length of a renewal term: 'shall automatically renew for successive one (1) year
    periods unless either party gives sixty (60) days' notice' -> successive 1-year terms. Only
    text that speaks of renewal or extension has one; the notice period in the same sentence is
    not the renewal term."""
    wording = _RENEWAL_WORDING_RX.search(text)
    if wording is None:
        return None
    periods = [e for e in extract_durations(text) if not _is_notice(text, e)]
    if not periods:
        return None
    # The period written after the renewal wording, else the one closest before it.
    after = [e for e in periods if e.start >= wording.start()]
    chosen = after[0] if after else periods[-1]
    d: Duration = chosen.value  # type: ignore[assignment]
    successive = bool(_RENEWS_RX.search(text)) or bool(
        re.search(r"\b(?:each|further|additional|successive)\b", text, re.I)
    )
    display = (
        f"successive {d.number}-{d.unit} terms"
        if successive
        else f"renewal for {Duration(d.number, d.unit)}"
    )
    return Extracted(Duration(d.number, d.unit, True), display, chosen.start, chosen.end)


_TERM_END_WORDING_RX = re.compile(
    r"\b(?:renew\w*|expir\w*|extend\w*|extension|end of the|then[- ]current|successive|"
    r"non-?renewal)\b",
    re.I,
)


def extract_notice_period(text: str) -> Extracted | None:
    """The notice needed to stop a renewal: the period written as notice ('at least ninety (90)
    days prior to the end of the then-current term', "sixty (60) days' written notice"), in text
    that speaks of renewal, expiry or the end of a term."""
    if not _TERM_END_WORDING_RX.search(text):
        return None
    for e in extract_durations(text):
        if _is_notice(text, e):
            d: Duration = e.value  # type: ignore[assignment]
            plain = Duration(d.number, d.unit)
            return Extracted(plain, f"{plain}' notice before the term ends", e.start, e.end)
    return None


# --- amounts ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Amount:
    value: Decimal | None  # None for a relative amount ("twice the fees paid")
    currency: str  # ISO-like code, "" when unknown
    basis: str = ""  # what a relative amount is measured against

    def __str__(self) -> str:
        if self.value is None:
            return self.basis
        n = self.value
        shown = f"{n:,.2f}".removesuffix(".00")
        return f"{self.currency} {shown}".strip()


_CURRENCY_SIGNS = {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "C$": "CAD"}
_CURRENCY_CODES = r"USD|EUR|GBP|CAD|AUD|JPY|CHF|CNY|RMB|HKD|INR|US\s?Dollars?|dollars?"
_SCALE = {"thousand": 1000, "million": 10**6, "billion": 10**9, "k": 1000, "m": 10**6}
_AMOUNT_RX = re.compile(
    r"(?:(?P<sign>US\$|C\$|\$|€|£|¥)\s?|(?P<code>" + _CURRENCY_CODES + r")\s?)"
    r"(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>thousand|million|billion|[km])\b)?",
    re.I,
)
_AMOUNT_AFTER_RX = re.compile(
    r"(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>thousand|million|billion))?\s+(?P<code>" + _CURRENCY_CODES + r")\b",
    re.I,
)
_RELATIVE_RX = re.compile(
    r"\b(?P<times>(?:one|two|three|four|five|ten|twice|double|triple|\d+(?:\.\d+)?)"
    r"(?:\s*\(\d+(?:\.\d+)?\))?\s*(?:times|x)?|\d+(?:\.\d+)?\s?%|[a-z\-]+ percent(?:\s\(\d+%\))?)"
    r"\s+(?:of\s+)?(?:the\s+)?(?:(?:total|aggregate|amount of(?: the)?)\s+)?"
    r"(?P<basis>(?:fees?|amounts?|charges?|sums?|price|consideration|payments?)\s+"
    r"(?:paid|payable|received|actually paid|due)[^.;]{0,80})",
    re.I,
)


def _code(raw: str) -> str:
    raw = raw.upper().replace(" ", "")
    if raw.startswith("US") or raw.startswith("DOLLAR"):
        return "USD"
    return "CNY" if raw == "RMB" else raw


def extract_amounts(text: str) -> list[Extracted]:
    """Sums of money ('$5,000,000', 'USD 1 million', '250,000 dollars') and amounts stated
    relative to another ('twice the fees paid in the preceding twelve months')."""
    out: list[Extracted] = []
    for rx in (_AMOUNT_RX, _AMOUNT_AFTER_RX):
        for m in rx.finditer(text):
            if any(e.start < m.end() and m.start() < e.end for e in out):
                continue
            parts = m.groupdict()
            try:
                value = Decimal(parts["number"].replace(",", ""))
            except InvalidOperation:
                continue
            scale = (parts.get("scale") or "").lower()
            value *= _SCALE.get(scale, 1)
            sign = parts.get("sign")
            currency = _CURRENCY_SIGNS.get(sign, "") if sign else _code(parts.get("code") or "")
            amount = Amount(value, currency)
            out.append(Extracted(amount, str(amount), m.start(), m.end()))
    for m in _RELATIVE_RX.finditer(text):
        if any(e.start < m.end() and m.start() < e.end for e in out):
            continue
        basis = " ".join(m.group(0).split()).rstrip(" ,")
        amount = Amount(None, "", basis)
        out.append(Extracted(amount, basis, m.start(), m.end()))
    return sorted(out, key=lambda e: e.start)


def extract_amount(text: str) -> Extracted | None:
    """The largest fixed sum in the text (a cap is usually the largest figure in its clause),
    else the first relative amount."""
    found = extract_amounts(text)
    fixed = [e for e in found if e.value.value is not None]  # type: ignore[attr-defined]
    if fixed:
        return max(fixed, key=lambda e: (e.value.value, -e.start))  # type: ignore[attr-defined]
    return found[0] if found else None


# --- parties ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Party:
    name: str
    role: str  # the short name the agreement gives it ("Company"), "" when none


_QUOTED = r"[\"“”'‘’]{1,2}"
_ROLE_RX = re.compile(
    r"\(\s*(?:(?:hereinafter|hereafter)\s+)?(?:(?:referred\s+to\s+)?(?:as|called)\s+)?"
    r"(?:the\s+)?" + _QUOTED + r"(?P<role>[^\"“”'’()]{1,60}?)" + _QUOTED + r"[^)]{0,80}\)",
    re.I,
)
_ENTITY_SUFFIX = (
    r"(?:Inc|Incorporated|Corp|Corporation|Co|Company|LLC|L\.L\.C|Ltd|Limited|LP|L\.P|LLP|PLC|"
    r"GmbH|AG|S\.A|SA|N\.V|B\.V|AB|SE|S\.p\.A|S\.A\.S|Pty|Pte|Trust|Partnership|Partners|Bank|N\.A)\.?"
)
_BETWEEN_RX = re.compile(r"\b(?:by\s+and\s+)?(?:between|among|amongst)\s*:?\s+", re.I)


def _clean_name(raw: str) -> str:
    raw = re.sub(r"\s+", " ", raw).strip(" ,;:\n\t")
    # Drop the description after the name: ", a Delaware corporation", ", with offices at ...".
    raw = re.sub(
        r"^(?:Party\s+[A-Z]|Gentlemen|Ladies and Gentlemen|Dear\s+[^:]{1,40})\s*:\s*", "", raw
    )
    m = re.match(
        # "Limited Partnership", "Co., Ltd.": every suffix word of the name
        r"(.+?\b" + _ENTITY_SUFFIX + r"(?:,?\s+" + _ENTITY_SUFFIX + r"(?=[\s,(]|$))*"
        r"(?:,?\s+(?:d/b/a|dba|doing business as|f/k/a)\s+[^,(]{2,60}?"
        r"(?=\s*[,(]|$))?)(?=[\s,(]|$)",
        raw,
        re.I,
    )
    name = m.group(1) if m else re.split(r",\s+(?:an?|the|with|having|whose|located)\b", raw)[0]
    # Enumerators and joining words a preamble puts before a name: "(1)", "- and -", "AND:".
    name = re.sub(
        r"^(?:\(?\d{1,2}\)|\(?[a-h]\)|[-\s]*and[-:\s]+|the\s+|[-:\s]+)+",
        "",
        name.strip(" ,;:"),
        flags=re.I,
    )
    # "for services of Arnold Schwarzenegger": lower-case words before the name are not it.
    name = re.sub(r"^(?:[a-z][\w'’\-]*\s+)+(?=[A-Z])", "", name.strip(" ,;:"))
    return name.strip(" ,;:")


# Where a preamble ends: the recitals, the operative words, the first article or the contents.
_PREAMBLE_END_RX = re.compile(
    r"\b(?:WHEREAS|W I T N E S S E T H|WITNESSETH|RECITALS?|BACKGROUND|PREAMBLE|"
    r"NOW,?\s+THEREFORE|TABLE OF CONTENTS|IN CONSIDERATION)\b|\n\s*(?:ARTICLE|SECTION)\s+(?:1|I)\b"
    r"|\n\s*1\.\s+[A-Z]",
)
_NOT_A_ROLE = {
    "agreement", "effective date", "parties", "party", "term", "original agreement", "territory",
    "products", "product", "services", "memorandum", "policies", "prc", "execution date",
    "agreement date", "commencement date", "confidential information", "affiliate", "affiliates",
}  # fmt: skip
# A company's name with its short name in parentheses and no quotation marks (quotes lost in the
# filing): "Great Lakes Gas Transmission Limited Partnership (Transporter) and ANR PIPELINE
# COMPANY (Shipper)"
_BARE_ROLE_RX = re.compile(
    r"(?P<name>(?-i:[A-Z])[^()\n;]{2,150}?\b" + _ENTITY_SUFFIX + r")\s*"
    r"\((?P<role>(?-i:[A-Z])[A-Za-z\-]+(?:\s+(?-i:[A-Z])[A-Za-z\-]+){0,2})\)",
    re.I,
)
_AS_ROLE_RX = re.compile(
    r"(?P<name>[A-Z][^\n;]{2,120}?),?\s+as\s+(?:the\s+)?(?P<role>[A-Z][\w\- ]{1,40}?)"
    r"(?=\s*(?:,|;|\n|$|\band\b))",
)
_LABELLED_RX = re.compile(r"\bParty\s+(?P<role>[A-Z])\s*:\s*(?P<name>[^\n]{3,160})")


def _looks_like_a_name(name: str) -> bool:
    """A party's name is short and written in capitals, not a clause of the recitals ('are
    parties to an arrangement agreement dated ...', '(iii) policies, guidelines ...')."""
    words = re.findall(r"[A-Za-z][\w'’.&\-]*", name)
    if not words or len(words) > 14 or not re.match(r"[A-Z0-9\[]", name):
        return False
    small = {"and", "of", "the", "for", "de", "a", "an", "d/b/a", "dba", "as", "in", "on", "&"}
    lower = [w for w in words if w[0].islower() and w.lower() not in small and w != "d"]
    return len(lower) <= max(1, len(words) // 4)


def extract_parties(text: str) -> Extracted | None:
    """The parties named in a preamble: 'between X, a Delaware corporation ("Company"), and Y
    ("Supplier")' -> [Party('X', 'Company'), Party('Y', 'Supplier')]. Each party is read as the
    words before the parenthesis that gives its short name; else 'X, as Issuer' lists and
    'Party A: X' labels; without any of these, the two sides of 'between X and Y'. The preamble
    ends at the recitals ('WHEREAS'), so defined terms of the body are not taken for parties."""
    between = _BETWEEN_RX.search(text)
    origin = between.end() if between else 0
    end = _PREAMBLE_END_RX.search(text, origin)
    body = text[origin : end.start() if end else len(text)]
    parties: list[Party] = []
    cursor = 0
    for m in _ROLE_RX.finditer(body):
        role = " ".join(m.group("role").split())
        chunk = body[cursor : m.start()]
        # The name is the last clause before the parenthesis: after a preceding "and" or ";".
        pieces = re.split(r"(?:;|\band\b,?(?=\s+[A-Z0-9])|\n\s*\n|\([a-h]\)\s)", chunk)
        pieces = [p for p in pieces if p.strip(" ,;:\n-")] or [""]
        name = _clean_name(pieces[-1])
        cursor = m.end()
        if not name or name.lower() == role.lower() or len(name) > 120:
            continue
        if role.lower() in _NOT_A_ROLE or not _looks_like_a_name(name):
            continue
        if any(p.name.lower() == name.lower() for p in parties):
            continue
        parties.append(Party(name, role))
        if len(parties) >= 8:
            break
    if len(parties) < 2:
        for rx in (_LABELLED_RX, _AS_ROLE_RX, _BARE_ROLE_RX):
            found = [
                Party(_clean_name(m.group("name")), " ".join(m.group("role").split()))
                for m in rx.finditer(body[:3000])
            ]
            found = [p for p in found if p.name and _looks_like_a_name(p.name)]
            if len(found) >= 2:
                known = {p.name.lower() for p in parties}
                parties += [p for p in found if p.name.lower() not in known]
                break
    if not parties and between:
        m = re.match(
            r"(.{3,150}?)\s+and\s+(.{3,150}?)(?:[.;]|\s+(?:whereas|recitals)\b|$)",
            body,
            re.I | re.S,
        )
        if m:
            parties = [Party(_clean_name(m.group(1)), ""), Party(_clean_name(m.group(2)), "")]
            parties = [p for p in parties if p.name and _looks_like_a_name(p.name)]
    if not parties:
        return None
    display = "; ".join(f"{p.name} ({p.role})" if p.role else p.name for p in parties)
    return Extracted(parties, display, origin, len(text))


# --- jurisdictions ---------------------------------------------------------------------------

_US_STATES = (
    "Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Georgia "
    "Hawaii Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts "
    "Michigan Minnesota Mississippi Missouri Montana Nebraska Nevada Ohio Oklahoma Oregon "
    "Pennsylvania Tennessee Texas Utah Vermont Virginia Washington Wisconsin Wyoming"
).split() + [
    "New Hampshire",
    "New Jersey",
    "New Mexico",
    "New York",
    "North Carolina",
    "North Dakota",
    "Rhode Island",
    "South Carolina",
    "South Dakota",
    "West Virginia",
    "District of Columbia",
]
_PLACES = _US_STATES + [
    "England and Wales",
    "England",
    "Scotland",
    "Ireland",
    "Northern Ireland",
    "Ontario",
    "Quebec",
    "British Columbia",
    "Alberta",
    "Canada",
    "Hong Kong",
    "Singapore",
    "Switzerland",
    "Germany",
    "France",
    "the Netherlands",
    "Netherlands",
    "Sweden",
    "Israel",
    "Japan",
    "Korea",
    "India",
    "Australia",
    "New South Wales",
    "Victoria",
    "the People's Republic of China",
    "People's Republic of China",
    "China",
    "Taiwan",
    "Luxembourg",
    "Belgium",
    "Spain",
    "Italy",
    "Denmark",
    "Norway",
    "Finland",
    "Bermuda",
    "the Cayman Islands",
    "Cayman Islands",
    "the British Virgin Islands",
    "Puerto Rico",
    "the United States",
    "United States",
    "PRC",
]
# "Swiss law", "English law": the adjective names the place.
_ADJECTIVES = {
    "swiss": "Switzerland",
    "english": "England",
    "german": "Germany",
    "french": "France",
    "dutch": "the Netherlands",
    "israeli": "Israel",
    "japanese": "Japan",
    "chinese": "China",
    "canadian": "Canada",
    "irish": "Ireland",
    "singapore": "Singapore",
    "hong kong": "Hong Kong",
}
_ADJECTIVE_RX = re.compile(
    r"\b(?P<place>" + "|".join(_ADJECTIVES) + r")\s+(?:substantive\s+)?law\b", re.I
)
_PLACE_RX = "|".join(re.escape(p) for p in sorted(_PLACES, key=len, reverse=True))
_LAW_RX = re.compile(
    r"\blaws?\s+(?:in\s+force\s+in\s+|of\s+)(?:the\s+)?"
    r"(?:(?:State|Commonwealth|Province|Republic|Kingdom|Federal Republic|Canton)\s+of\s+)?"
    r"(?:the\s+)?(?P<place>" + _PLACE_RX + r")\b",
    re.I,
)
_ANY_PLACE_RX = re.compile(
    r"(?:(?:State|Commonwealth|Province)\s+of\s+)?(?P<place>" + _PLACE_RX + r")\b", re.I
)
_CANONICAL = {p.lower(): p for p in _PLACES}
_GOVERNING_RX = re.compile(r"\b(?:govern|constru|interpret|laws? of)\w*", re.I)


# "a corporation organized under the laws of Colorado" says where a party was formed, not which
# law governs the agreement: a preamble names both parties' states this way.
_INCORPORATION_RX = re.compile(
    r"\b(?:organi[sz]ed|incorporated|existing|formed|registered|chartered|domiciled)\b[^.;]{0,40}$",
    re.I,
)


def _incorporation(text: str, at: int) -> bool:
    return bool(_INCORPORATION_RX.search(text[max(0, at - 70) : at]))


# A province or state outside the United States is shown with its country ("Ontario, Canada").
_COUNTRY_OF = {
    "Ontario": "Canada",
    "Quebec": "Canada",
    "British Columbia": "Canada",
    "Alberta": "Canada",
    "New South Wales": "Australia",
    "Victoria": "Australia",
    "England": "United Kingdom",
    "England and Wales": "United Kingdom",
    "Scotland": "United Kingdom",
    "Northern Ireland": "United Kingdom",
}


def extract_jurisdiction(text: str) -> Extracted | None:
    """The law a governing-law clause chooses: 'the laws of the State of New York' -> 'New
    York'. Prefers a place named right after 'laws of'; else the first place in a sentence
    that speaks of governing or construing (courts of one place may sit beside the law of
    another, so 'laws of' wins)."""
    m = next((m for m in _LAW_RX.finditer(text) if not _incorporation(text, m.start())), None)
    if m is None:
        adjective = _ADJECTIVE_RX.search(text)
        if adjective:
            place = _ADJECTIVES[adjective.group("place").lower()]
            return Extracted(place, place, adjective.start("place"), adjective.end("place"))
    if m is None and _GOVERNING_RX.search(text):
        m = next(
            (m for m in _ANY_PLACE_RX.finditer(text) if not _incorporation(text, m.start())), None
        )
    if m is None:
        return None
    found = " ".join(m.group("place").split())
    place = re.sub(r"^the\s+", "", _CANONICAL.get(found.lower(), found), flags=re.I)
    shown = f"{place}, {_COUNTRY_OF[place]}" if place in _COUNTRY_OF else place
    return Extracted(place, shown, m.start("place"), m.end("place"))


# --- the document's own title -----------------------------------------------------------------

_TITLE_WORD = (
    r"(?:AGREEMENT|CONTRACT|LICEN[CS]E|AMENDMENT|LEASE|ARRANGEMENT|PLAN|MEMORANDUM|"
    r"UNDERSTANDING|ADDENDUM|DEED|INDENTURE|NOTE|GUARANTY|GUARANTEE|TERMS|PROTOCOL|CHARTER)"
)
# An exhibit banner or filing stamp above the title: "EXHIBIT 10.34", "Exhibit 4.25",
# "*** Text Omitted and Filed Separately", "[CONFIDENTIAL TREATMENT REQUESTED]", "Source: ...".
_BANNER_RX = re.compile(  # matched at a position: no "^", which would hold at 0 alone
    r"\s*(?:ex(?:hibit|h\.?)\s*[\dA-Z][\w.\-()]*|schedule\s+[\dA-Z][\w.\-]*|annex\s+[\dA-Z]\w*|"
    r"appendix\s+[\dA-Z]\w*|execution (?:version|copy)|confidential\w*|"
    r"\*+[^*\n]{0,200}?\*+|\[[^\]\n]{0,200}\]|text omitted[^.\n]{0,120}?(?=\.|\s{2,}|\n|$)\.?|"
    r"certain (?:identified )?information[^.]{0,400}\.|"
    # a sentence of the SEC's confidential-treatment legend ("Portions … have been omitted and
    # filed separately with the Securities and Exchange Commission pursuant to Rule 24b-2.")
    # or the legend of 2019 on ("… IS CONFIDENTIAL AND HAS BEEN EXCLUDED BECAUSE IT IS BOTH (I) NOT
    # MATERIAL AND (II) WOULD LIKELY CAUSE COMPETITIVE HARM …")
    r"(?:[^.\n]|\n(?!\s*\n)|\.(?=\S)){0,400}?\b(?:omitted|filed\s+separately|redacted|"
    r"confidential\s+treatment|rule\s+24b-2|regulation\s+s-k|has\s+been\s+excluded)\b"
    r"(?:\b(?:INC|Inc|LTD|Ltd|CORP|Corp|CO|Co|NO|No)\.|[^.\n]|\n(?!\s*\n)|\.(?=\S)){0,400}?"
    r"(?:\.(?=\s)|(?=\n\s*\n)))"
    r"[\s:.\-–—]*",
    re.I,
)
_TITLE_LINE_RX = re.compile(
    # Greedy up to the last title word of the capitals ("LICENSE AND RESELLER AGREEMENT", not
    # "LICENSE").
    r"(?-i:(?P<title>[A-Z](?:(?!\s(?:THIS|This)\b)[A-Z0-9 ,.&'’/\-]){0,100}\b"
    + _TITLE_WORD
    + r"S?\b"
    r"(?:[ \t]+(?:OF|FOR|AND|TO|ON)[ \t]+[A-Z0-9][A-Z0-9 ,.&'’/\-]{0,60}?(?=\s{2,}|\n|$|[ \t]+(?:THIS|This)\b))?))"
)
_THIS_TITLE_RX = re.compile(
    r"\b[Tt]h(?:is|e)\s+(?P<title>(?:(?:(?!Th(?:is|e)\b)[A-Z][\w&,'’\-]*|and|of|for|to|the|#\s?\d+|No\.\s?\d+)\s+)"
    r"{0,12}?(?:Agreement|"
    r"Contract|Licen[cs]e|"
    r"Amendment|Lease|Memorandum of Understanding|Addendum))\b(?:\s*\((?:(?:the|this)\s+)?[\"“])",
)
# The same words as a title writes them in capitals or in title case ("LICENSE", "License")
_TITLE_WORD_ANY_CASE = r"(?i:" + _TITLE_WORD + r"S?)"
# A title on a line of its own further down the cover, past a long confidential-treatment
# legend: in capitals ("LICENSE, DEVELOPMENT AND COMMERCIALIZATION AGREEMENT") or in title case
# ("Reseller Agreement", "e-business Hosting Agreement"), at most 18 words, the whole line.
_OWN_LINE_TITLE_RX = re.compile(
    r"(?-i:(?:[A-Z0-9][A-Z0-9,.&'’/\-]*(?:[ \t]+[A-Z0-9,.&'’/\-]+){0,15}?"
    r"|[A-Za-z0-9][\w,.&'’/\-]*(?:[ \t]+(?:[A-Z0-9][\w,.&'’/\-]*|of|for|and|to|on|the|in)){0,15}?)"
    r"[ \t]+" + _TITLE_WORD_ANY_CASE + r"(?:[ \t]+(?:NO\.|No\.)[ \t]*\d+)?)"
)
# An amendment's title is "AMENDMENT NO. 2" as often as "SECOND AMENDMENT"
_NUMBERED_TITLE_RX = re.compile(
    r"(?-i:(?:AMENDMENT|ADDENDUM|Amendment|Addendum)[ \t]+(?:NO\.|No\.|#|n°)[ \t]*\d+)"
)
# ... and at the head of a text, with what it amends where the same words name it: "Amendment No.
# 4 to the Supply Agreement (this …"
_NUMBERED_LEAD_RX = re.compile(
    _NUMBERED_TITLE_RX.pattern
    + r"(?-i:(?:[ \t]+(?:TO|to)[ \t]+(?:(?:THE|the)[ \t]+)?(?:[A-Z][\w&,'’\-]*[ \t]+){0,8}?"
    + _TITLE_WORD_ANY_CASE
    + r"\b)?)"
)
_RUN_IN_TITLE_RX = re.compile(
    r"(" + _OWN_LINE_TITLE_RX.pattern + r")(?=[ \t]{2,}|\s*\n|[ \t]+(?:This|THIS)\b)"
)
_DATE_PREFIX_RX = re.compile(
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December)\s+\d{1,2},?\s+\d{4}\s+",
    re.I,
)
# A title broken over two lines after a joining word ("AMENDMENT NO. 2 TO\nFOURTH AMENDED AND
# RESTATED RECEIVABLES PURCHASE AGREEMENT", "AMENDED AND RESTATED\n\nLIMITED PARTNERSHIP
# AGREEMENT"): the line breaks read as spaces (same length).
_TITLE_JOIN_RX = re.compile(
    r"(?-i:\b(?:TO|OF|FOR|AND|ON|THE|RESTATED|Of|For|And|To|On)[ \t]*\n(?:[ \t]*\n)?(?=[ \t]*[A-Z])"
    # ... or set apart with its joining word on a line of its own: "AMENDMENT AND TERMINATION\n\n
    # OF\n\nJOINT VENTURE AGREEMENT"
    r"|(?<=[A-Z])[ \t]*\n[ \t]*\n?[ \t]*(?:OF|TO|FOR|AND)[ \t]*\n[ \t]*\n?(?=[ \t]*[A-Z]))"
)
# A company's name printed before the title on its line ("GLOBAL MUSIC INTERNATIONAL, INC. DBA
# IMNTV CONTENT LICENSE AGREEMENT", a cover's "EKR THERAPEUTICS, INC.    AMENDED AND RESTATED …"):
# the name ends at its company-form word.
_COMPANY_END_RX = re.compile(
    r"(?-i:\b(?:INC|CORP|CORPORATION|LTD|LIMITED|LLC|L\.L\.C|L\.P|LP|PLC|CO|N\.V|B\.V|S\.A|AG|"
    r"GMBH)\b\.?,?)"
)
_TITLE_SCAN_CHARS = 3000


def _title_case(title: str) -> str:
    words = title.split()
    half = len(words) // 2
    if half and len(words) == 2 * half and words[:half] == words[half:]:
        words = words[:half]  # a cover that prints its title twice on one line
    return " ".join(words).strip(" ,.:-")


def _own_line_title(cover: str, at: int) -> Extracted | None:
    """The first line of the cover (from ``at``) that is a title and nothing else."""
    pos = at
    for raw in cover[at:].split("\n"):
        # a rule drawn before the title ("- -------- CO-BRANDING AGREEMENT") is not part of it
        line = raw.strip().lstrip("-_=*~ \t\xa0")
        start = pos + len(raw.rstrip()) - len(line)
        pos += len(raw) + 1
        if not line or len(line.split()) > 18:
            continue
        m = _OWN_LINE_TITLE_RX.fullmatch(line) or _NUMBERED_TITLE_RX.fullmatch(line)
        if m is None:
            continue
        title = _title_case(line)
        if _not_a_title(title):
            continue
        return Extracted(title, title, start, start + len(line))
    return None


def _named_before(cover: str, start: int, end: int) -> int:
    """Where a title line's title starts when a company's name comes first on the line: past the
    name where the preamble names the instrument by the words after it ('This Content License
    Agreement ("Agreement")'), or where a wide gap follows the name (a cover that prints the
    parties, then the title); 0 when no name comes first."""
    ends = [m.end() for m in _COMPANY_END_RX.finditer(cover, start, end)]
    if not ends:
        return 0
    rest = cover[ends[-1] : end]
    gap = re.match(r"[ \t]{2,}", rest)
    if gap is not None and re.search(_TITLE_WORD, rest):
        return ends[-1] + gap.end()
    preamble = _THIS_TITLE_RX.search(cover, end)
    if preamble is None:
        return 0
    own = " ".join(preamble.group("title").split()).lower()
    line = " ".join(cover[start:end].split()).lower()
    if len(own.split()) >= 2 and line.endswith(" " + own):
        return start + _tail_start(cover[start:end], own)
    return 0


def _tail_start(line: str, own: str) -> int:
    """The offset in ``line`` where its last words, ``own`` (spaces collapsed, lower case),
    begin."""
    words = own.split()
    found = list(re.finditer(r"\S+", line))[-len(words) :]
    return found[0].start()


def _not_a_title(title: str) -> bool:
    """A heading that reads like a title but names an attachment, a section ("2. AMENDMENT") or
    only the kind of instrument ("AGREEMENT")."""
    return bool(
        re.match(r"^(?:EXHIBIT|SCHEDULE|ANNEX|TABLE\b|\(?[\dA-Z]{1,3}[.)]\s)", title, re.I)
        or re.fullmatch(_TITLE_WORD + r"S?", title, re.I)
    )


def extract_title(text: str) -> Extracted | None:
    """The title an instrument gives itself: the capitalised title line at its head, past any
    exhibit banner or filing stamp ('Exhibit 10.34 *** Text Omitted ...'), else the name its
    preamble uses ('This Supply Agreement (the "Agreement")')."""
    at = 0
    while True:
        m = _BANNER_RX.match(text, at)
        if m is None or m.end() == at:
            break
        at = m.end()
    # the cover, with a title broken after a joining word read as one line (offsets unchanged)
    cover = _TITLE_JOIN_RX.sub(lambda m: m.group(0).replace("\n", " "), text[:_TITLE_SCAN_CHARS])
    head = cover[at : at + 400]
    line = _TITLE_LINE_RX.search(head)
    if line is not None and line.start() < 200:
        start = at + line.start("title")
        named = _named_before(cover, start, at + line.end("title"))
        if named:
            start = named
        title = re.sub(r"^THIS\s+", "", _title_case(cover[start : at + line.end("title")]))
        if (
            len(title.split()) <= 16
            and not re.match(r"^(?:EXHIBIT|SCHEDULE|ANNEX)\b", title)
            and not re.fullmatch(_TITLE_WORD + r"S?", title)
        ):
            return Extracted(title, title, start, at + line.end("title"))
    # a numbered amendment whose title is all of its first words: "AMENDMENT NO. 1 Dated as of …"
    lead = re.compile(r"\s*").match(cover, at).end()  # type: ignore[union-attr]
    numbered = _NUMBERED_LEAD_RX.match(cover, lead)
    if numbered is not None:
        title = _title_case(numbered.group(0))
        return Extracted(title, title, numbered.start(), numbered.end())
    # a title in title case run into the preamble it heads: "Strategic Alliance Agreement   This
    # agreement is made …"
    run_in = _RUN_IN_TITLE_RX.match(cover, lead)
    if run_in is not None:
        dated = _DATE_PREFIX_RX.match(run_in.group(1))  # "May 04, 2017 Strategic Alliance …"
        start = run_in.start(1) + (dated.end() if dated else 0)
        title = _title_case(cover[start : run_in.end(1)])
        if not _not_a_title(title):
            return Extracted(title, title, start, run_in.end(1))
    own_line = _own_line_title(cover, at)
    if own_line is not None:
        return own_line
    for m2 in _THIS_TITLE_RX.finditer(text):
        title = _title_case(m2.group("title"))
        if not re.fullmatch(_TITLE_WORD + r"S?", title, re.I):  # not 'This Agreement ("Agreement")'
            return Extracted(title, title, m2.start("title"), m2.end("title"))
    return None


# --- by column type --------------------------------------------------------------------------

Extractor = Callable[[str], "Extracted | None"]

# Preset columns whose type needs a particular reading (an expiration date is often a period).
BY_KEY: dict[str, Extractor] = {
    "governing law": extract_jurisdiction,
    "expiration date": extract_term_end,
    "parties": extract_parties,
    "renewal term": extract_renewal,
    "notice period to terminate renewal": extract_notice_period,
    "document name": extract_title,
    "agreement date": extract_agreement_date,
    "effective date": extract_effective_date,
}
BY_TYPE: dict[str, Extractor] = {
    "date": extract_date,
    "duration": extract_duration,
    "amount": extract_amount,
    "party": extract_parties,
}


def extractor_for(key: str, type_: str) -> Extractor | None:
    """The extractor for a column, by its key when it is a known one, else by its answer type;
    None for clause, yes/no and free-text columns, whose value is the quotation itself."""
    return BY_KEY.get(key.lower()) or BY_TYPE.get(type_)
