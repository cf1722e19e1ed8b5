"""Judge-free scoring of an answer against its reference: key facts, must-contain and
must-not-claim phrases, declination, and the validity of its citations.

Key facts are the things the study's judge weighs first: amounts, dates, percentages, periods,
clause numbers, jurisdictions and named parties. Each is normalised to a comparable key, so
"$30 million" in a reference matches "$30,000,000" in an answer, "thirty (30) days" matches
"30 days" and "July 3, 2031" matches "3 July 2031". The score is the share of the reference's
key facts that the answer states; it runs offline and gives the same result every time.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation

from legalnav.llm.prompts import SILENCE

_ONES = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000}
_NUMBER_WORD = "|".join(sorted([*_ONES, *_TENS, *_SCALES], key=len, reverse=True))
# "one hundred twenty", "forty-five", "sixty": a run of number words.
_WORDS = rf"(?:(?:{_NUMBER_WORD})(?:[\s-]+(?:and[\s-]+)?(?:{_NUMBER_WORD}))*)"

_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for m in names
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))

_US_STATES = """alabama alaska arizona arkansas california colorado connecticut delaware florida
georgia hawaii idaho illinois indiana iowa kansas kentucky louisiana maine maryland
massachusetts michigan minnesota mississippi missouri montana nebraska nevada new_hampshire
new_jersey new_mexico new_york north_carolina north_dakota ohio oklahoma oregon pennsylvania
rhode_island south_carolina south_dakota tennessee texas utah vermont virginia washington
west_virginia wisconsin wyoming district_of_columbia""".split()
_PLACES = """england_and_wales england scotland ireland northern_ireland canada ontario
british_columbia quebec alberta australia new_south_wales victoria queensland hong_kong
singapore india china japan germany france switzerland netherlands luxembourg cayman_islands
bermuda british_virgin_islands israel sweden norway denmark finland spain italy brazil mexico
korea taiwan""".split()
_JURISDICTIONS = sorted((p.replace("_", " ") for p in _US_STATES + _PLACES), key=len, reverse=True)
_JURISDICTION = re.compile(r"\b(" + "|".join(re.escape(j) for j in _JURISDICTIONS) + r")\b")
# "Washington" and "Georgia" are also names; a jurisdiction counts only in a law or venue phrase.
_JURISDICTION_CONTEXT = re.compile(
    r"\b(?:laws?|state|commonwealth|province|courts?|jurisdiction|governed|construed|venue|"
    r"arbitration|county|district)\b[^.;]{0,80}$"
)

_AMOUNT = re.compile(
    r"(?P<cur>US\s?\$|U\.S\.\s?\$|\$|USD|EUR|€|£|GBP|C\$|CAD|A\$|AUD|RMB|¥)\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>billion|million|thousand|bn|mm|m|b|k)\b)?"
    r"|(?P<num2>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?(?P<scale2>billion|million|thousand)?"
    r"\s?(?P<cur2>dollars|usd|euros?|pounds sterling)\b",
    re.I,
)
_SCALE = {
    "billion": 10**9, "bn": 10**9, "b": 10**9, "million": 10**6, "mm": 10**6, "m": 10**6,
    "thousand": 1000, "k": 1000,
}  # fmt: skip
_CURRENCY = {
    "$": "USD", "us$": "USD", "u.s.$": "USD", "usd": "USD", "dollars": "USD", "eur": "EUR",
    "€": "EUR", "euro": "EUR", "euros": "EUR", "£": "GBP", "gbp": "GBP",
    "pounds sterling": "GBP", "c$": "CAD", "cad": "CAD", "a$": "AUD", "aud": "AUD",
    "rmb": "CNY", "¥": "JPY",
}  # fmt: skip
_PERCENT = re.compile(
    rf"(?P<num>\d+(?:\.\d+)?|{_WORDS})(?:\s*\((?P<paren>\d+(?:\.\d+)?)\s*%?\))?\s*(?:%|percent\b|per\s?cent\b)",
    re.I,
)
_DURATION = re.compile(
    rf"(?P<num>\d+|{_WORDS})(?:\s*\((?P<paren>\d+)\))?[\s-]+(?:(?:business|calendar|banking|consecutive|full)\s+)?"
    r"(?P<unit>days?|weeks?|months?|years?)\b",
    re.I,
)
_DATE_MDY = re.compile(
    rf"\b(?P<m>{_MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s+(?P<y>\d{{4}})\b", re.I
)
_DATE_DMY = re.compile(
    rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?(?P<m>{_MONTH})\.?,?\s+(?P<y>\d{{4}})\b",
    re.I,
)
_DATE_NUM = re.compile(r"\b(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4}|\d{2})\b")
_DATE_ISO = re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")
_CLAUSE = re.compile(
    r"\b(?P<kind>sections?|clauses?|articles?|schedules?|exhibits?|§+)\s*"
    r"(?P<num>\d+(?:\.\d+)*(?:\([a-z0-9]{1,4}\))*|[IVXLC]+\b|[A-Z]\b(?:-\d+)?)",
    re.I,
)
_PARTY_SUFFIXES = frozenset(
    """inc incorporated corp corporation llc l.l.c ltd limited l.p lp llp n.a plc co company
    gmbh s.a ag n.v b.v bank trust partners holdings""".split()
)
_TOKEN = re.compile(r"[A-Za-z0-9&'.-]+|[,;:()]")
_CONNECTORS = frozenset({"of", "and", "&"})
_KIND = {
    "section": "s",
    "clause": "s",
    "§": "s",
    "article": "a",
    "schedule": "sch",
    "exhibit": "ex",
}


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return text.replace("’", "'").replace("“", '"').replace("”", '"').replace("\u00a0", " ")


def words_to_number(text: str) -> int | None:
    """ "one hundred twenty" -> 120, "forty-five" -> 45; None when it is not a number."""
    total = current = 0
    seen = False
    for word in re.split(r"[\s-]+", text.lower()):
        if word == "and" or not word:
            continue
        if word in _ONES:
            current += _ONES[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word == "thousand":
            total += max(current, 1) * 1000
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


def _number(raw: str, paren: str | None = None) -> Decimal | None:
    if paren:
        raw = paren  # "thirty (30)": the digits are the operative figure
    raw = raw.replace(",", "").strip()
    try:
        return Decimal(raw)
    except InvalidOperation:
        value = words_to_number(raw)
        return Decimal(value) if value is not None else None


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text


def _year(raw: str) -> int:
    y = int(raw)
    if len(raw) == 2:
        y += 2000 if y < 50 else 1900
    return y


@dataclass(frozen=True, slots=True)
class Fact:
    kind: str  # amount, date, percentage, duration, clause, jurisdiction, party
    key: str  # the normalised value compared
    text: str  # as written


def extract_facts(text: str, *, places_anywhere: bool = False) -> list[Fact]:
    """The key facts stated in ``text``, each once, in order of appearance.

    A place counts as a jurisdiction only after words such as "laws of" or "courts of", since
    "Washington" is also a name; ``places_anywhere`` drops that condition for a reference
    answer, where a bare "New York" (CUAD's governing-law answers) is the fact itself."""
    text = _fold(text or "")
    found: dict[tuple[str, str], Fact] = {}

    def add(kind: str, key: str, raw: str) -> None:
        found.setdefault((kind, key), Fact(kind, key, raw.strip()))

    taken: list[tuple[int, int]] = []
    for m in _AMOUNT.finditer(text):
        num = _number(m.group("num") or m.group("num2") or "")
        if num is None:
            continue
        scale = (m.group("scale") or m.group("scale2") or "").lower()
        if scale in ("m", "b", "k") and not m.group("cur"):
            continue
        cur = (m.group("cur") or m.group("cur2") or "").lower().replace(" ", "")
        currency = _CURRENCY.get(cur, _CURRENCY.get(cur.rstrip("s"), cur.upper()))
        value = num * _SCALE.get(scale, 1)
        add("amount", f"{currency}:{_plain(value)}", m.group(0))
        taken.append(m.span())
    for m in _PERCENT.finditer(text):
        num = _number(m.group("num"), m.group("paren"))
        if num is not None:
            add("percentage", _plain(num), m.group(0))
            taken.append(m.span())
    for m in _DURATION.finditer(text):
        num = _number(m.group("num"), m.group("paren"))
        if num is not None:
            unit = m.group("unit").lower().rstrip("s")
            add("duration", f"{_plain(num)}:{unit}", m.group(0))
    for rx, order in (
        (_DATE_MDY, "mdy"),
        (_DATE_DMY, "dmy"),
        (_DATE_NUM, "num"),
        (_DATE_ISO, "iso"),
    ):
        for m in rx.finditer(text):
            try:
                month = (
                    int(m.group("m")) if order in ("num", "iso") else _MONTHS[m.group("m").lower()]
                )
                day = date(_year(m.group("y")), month, int(m.group("d")))
            except (ValueError, KeyError):
                continue
            add("date", day.isoformat(), m.group(0))
    for m in _CLAUSE.finditer(text):
        kind = m.group("kind").lower().rstrip("s")
        kind = "§" if kind.startswith("§") else kind
        add("clause", f"{_KIND.get(kind, kind)}:{m.group('num').lower()}", m.group(0))
    lower = text.lower()
    for m in _JURISDICTION.finditer(lower):
        if places_anywhere or _JURISDICTION_CONTEXT.search(
            lower[max(0, m.start() - 90) : m.start()]
        ):
            add("jurisdiction", m.group(1), m.group(0))
    for name, raw in _parties(text):
        add("party", name, raw)
    return list(found.values())


def _is_suffix(word: str) -> bool:
    return word.lower().rstrip(".") in _PARTY_SUFFIXES


def _parties(text: str) -> list[tuple[str, str]]:
    """Named organisations: capitalised words ending in a corporate suffix ("Fulucai Productions
    Ltd.", "CONVERGTV, INC.", "Consolidated Edison Company of New York, Inc."). Read backwards
    from each suffix, through "of"/"and" inside a name, stopping at a lower-case word, at other
    punctuation, or at a suffix that closes an earlier name ("INC." or "Inc.,")."""
    tokens = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    out = []
    for i, (word, _, end) in enumerate(tokens):
        if not _is_suffix(word) or not word[:1].isupper():
            continue
        nxt = tokens[i + 1][0] if i + 1 < len(tokens) else ""
        if not word.endswith(".") and (nxt.lower() in _CONNECTORS or nxt[:1].isupper()):
            continue  # "Company of New York": the suffix is inside a longer name
        j = i - 1
        if j >= 0 and tokens[j][0] == ",":
            j -= 1
        words: list[tuple[str, int]] = []
        while j >= 0 and len(words) < 8:
            w, ws, _ = tokens[j]
            if w in _CONNECTORS and (words or w == "&"):
                words.append((w, ws))
            elif w[:1].isupper() or w[:1].isdigit():
                if _is_suffix(w) and (w.endswith(".") or tokens[j + 1][0] == ","):
                    break  # the end of another name
                words.append((w, ws))
            else:
                break
            j -= 1
        while words and (words[-1][0].lower() in _CONNECTORS or words[-1][0] in ("The", "THE")):
            words.pop()
        while words and words[0][0].lower() in _CONNECTORS:
            words.pop(0)
        if not words:
            continue
        key = " ".join(re.findall(r"[a-z0-9&]+", " ".join(w for w, _ in reversed(words)).lower()))
        if len(key) >= 3:
            out.append((key, text[words[-1][1] : end]))
    return out


def _normalised_text(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9$%&.]+", _fold(text).lower()))


def fact_in(fact: Fact, facts: set[tuple[str, str]], answer_text: str) -> bool:
    """Whether the answer states the fact: the same normalised key, or (names, places) the
    name itself in the answer's words."""
    if (fact.kind, fact.key) in facts:
        return True
    if fact.kind in ("party", "jurisdiction"):
        return f" {fact.key} " in f" {_normalised_text(answer_text)} "
    return False


@dataclass(slots=True)
class FactScore:
    facts: list[Fact]
    found: list[Fact]

    @property
    def missing(self) -> list[Fact]:
        return [f for f in self.facts if f not in self.found]

    @property
    def score(self) -> float | None:
        return len(self.found) / len(self.facts) if self.facts else None

    def as_dict(self) -> dict[str, object]:
        return {
            "score": None if self.score is None else round(self.score, 4),
            "total": len(self.facts),
            "found": [f"{f.kind}:{f.key}" for f in self.found],
            "missing": [f"{f.kind}:{f.key}" for f in self.missing],
        }


def key_fact_score(reference: str, answer: str) -> FactScore:
    """The reference's key facts and those of them the answer states."""
    wanted = extract_facts(reference, places_anywhere=True)
    have = {(f.kind, f.key) for f in extract_facts(answer)}
    return FactScore(wanted, [f for f in wanted if fact_in(f, have, answer)])


def states(answer: str, phrase: str) -> bool:
    """Whether the answer states ``phrase``: every key fact of the phrase when it has any,
    otherwise the phrase's words in order (case, spacing and punctuation aside)."""
    facts = extract_facts(phrase)
    if facts:
        have = {(f.kind, f.key) for f in extract_facts(answer)}
        return all(fact_in(f, have, answer) for f in facts)
    needle = _normalised_text(phrase)
    return bool(needle) and f" {needle} " in f" {_normalised_text(answer)} "


_DECLINE = re.compile(
    r"do(?:es)? not contain (?:the|an|any) answer|"
    r"(?:is|are) not (?:addressed|specified|stated|mentioned|found|covered|set out|provided)"
    r" (?:in|by|anywhere in) (?:the|these|any of the) (?:provided |supplied )?"
    r"(?:documents?|text|agreements?|extract|provisions?|materials?)|"
    r"(?:documents?|text|agreements?|extract|provisions?) (?:provided )?(?:do(?:es)? not|don't) "
    r"(?:address|say|mention|contain|specify|cover|deal with)|"
    r"no (?:provision|information|clause|mention)[^.]{0,60}(?:in|within) the (?:provided )?"
    r"(?:documents?|text|agreements?|extract)|^not applicable\b",
    re.I,
)


def is_declination(answer: str) -> bool:
    """Whether the answer declines (says the documents do not answer the question)."""
    text = " ".join((answer or "").split())
    if not text:
        return False
    if SILENCE.lower() in text.lower():
        return True
    return bool(_DECLINE.search(text[:600]))


@dataclass(slots=True)
class AnswerScore:
    key_facts: FactScore | None
    must_contain: dict[str, bool] = field(default_factory=dict)
    must_not_claim: dict[str, bool] = field(default_factory=dict)  # phrase -> claimed (bad)
    declined: bool = False
    out_of_scope: bool = False
    citations_ok: bool | None = None  # None: the answer cites nothing
    citation_problems: list[str] = field(default_factory=list)

    @property
    def declination_correct(self) -> bool:
        return self.declined == self.out_of_scope

    @property
    def contains_all(self) -> bool | None:
        return all(self.must_contain.values()) if self.must_contain else None

    @property
    def claims_none(self) -> bool | None:
        return not any(self.must_not_claim.values()) if self.must_not_claim else None

    def as_dict(self) -> dict[str, object]:
        return {
            "key_facts": self.key_facts.as_dict() if self.key_facts else None,
            "must_contain": self.must_contain,
            "contains_all": self.contains_all,
            "must_not_claim": self.must_not_claim,
            "claims_none": self.claims_none,
            "declined": self.declined,
            "out_of_scope": self.out_of_scope,
            "declination_correct": self.declination_correct,
            "citations_ok": self.citations_ok,
            "citation_problems": self.citation_problems,
        }


def score_answer(
    *,
    answer: str,
    reference: str = "",
    must_contain: list[str] | None = None,
    must_not_claim: list[str] | None = None,
    out_of_scope: bool = False,
    citation_problems: list[str] | None = None,
    citations: int = 0,
) -> AnswerScore:
    """Every judge-free check of one answer. On an out-of-scope control only declination (and
    not claiming what must not be claimed) matters; its reference's facts are not wanted."""
    declined = is_declination(answer)
    facts = None if out_of_scope or not reference else key_fact_score(reference, answer)
    return AnswerScore(
        key_facts=facts,
        must_contain={p: states(answer, p) for p in (must_contain or [])},
        must_not_claim={p: states(answer, p) for p in (must_not_claim or [])},
        declined=declined,
        out_of_scope=out_of_scope,
        citations_ok=(not citation_problems) if citations else None,
        citation_problems=list(citation_problems or []),
    )
