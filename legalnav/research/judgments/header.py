"""The header of a reported judgment (court, date, case number, judges, the report's own
treatment flag) and the kind of proceeding; and whether a text reads as a judgment at all."""

from __future__ import annotations

import re
from datetime import date, datetime

from legalnav.research.judgments.parties import VERSUS

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
    if VERSUS.search(first) and len(first) < 300:
        signs.add("a case name opens the text")
    if len(signs) >= 2:
        return True
    parties = len(re.findall(r"\b(?:appellant|respondent|petitioner)s?\b", text[:40000], re.I))
    return bool(signs) and parties >= 5


MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATE_LINE = re.compile(
    rf"^\s*(?:Date:\s*)?(\d{{1,2}})(?:st|nd|rd|th)?\s+({MONTHS}),?\s+(\d{{4}})\s*$", re.I | re.M
)
_DATE_NUMERIC = re.compile(r"\bDate\s*:\s*(\d{1,2})/(\d{1,2})/(\d{4})\b")
_DATE_ANY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({MONTHS}),?\s+(\d{{4}})\b", re.I)
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
_CASE_NUMBER = re.compile(
    r"^\s*((?:Civil|Criminal|Cr|Crl|C|Writ|Special|Transfer|Contempt|Review|Election|Tax|Original|"
    r"S\.?L\.?P|W\.?P|Cr\.?A|C\.?A|Appeal|Petition|Reference|Case)[^\n]{0,160}?(?:No[s]?\.?|Nos?\b)?[^\n]{0,120}?\d{1,6}[^\n]{0,80}?(?:of|/)\s*\d{2,4}[^\n]{0,60})$",
    re.I | re.M,
)
_UK_CASE_NO = re.compile(r"Case No:?\s*([A-Z0-9/]+(?:\s*[,&]\s*[A-Z0-9/]+)*)")
_STATUS = re.compile(r"Status:\s*\n?\s*([A-Z][A-Za-z ]+Treatment)", re.I)


def neutral_citation(header: str) -> str:
    m = _NEUTRAL_CITATION.search(header)
    return m.group(1) if m else ""


def court(header: str, text: str) -> str:
    m = _COURT.search(header) or _COURT.search(text[:8000])
    return _court_name(m.group(0)) if m else ""


def decided(header: str) -> date | None:
    """The judgment's own date line first ("26 September 1973", "Date: 30/07/2020"), then any
    date in the header (which may be a hearing date)."""
    m = _DATE_LINE.search(header)
    day_decided = _to_date(m) if m else None
    numeric = _DATE_NUMERIC.search(header)
    if day_decided is None and numeric:
        try:
            day, month, year = (int(x) for x in numeric.groups())
            day_decided = date(year, month, day)
        except ValueError:
            day_decided = None
    if day_decided is None:
        m = _DATE_ANY.search(header)
        day_decided = _to_date(m) if m else None
    return day_decided


def judicial_treatment(header: str) -> str:
    """ "Negative Judicial Treatment" when the report flags it."""
    m = _STATUS.search(header)
    return " ".join(m.group(1).split()) if m else ""


def is_uk_transcript(header: str) -> bool:
    """Whether the header is a Court of Appeal transcript's ("Between:" the parties)."""
    if re.search(r"\b(?:Between|B E T W E E N)\s*:", header, re.I) or "- and -" in header:
        return True
    # "-and-" or "- v –" between the parties of a transcript that has no "Between:"
    return bool(
        re.search(r"^\s*[-–]\s*(?:and|v)\s*[-–]\s*$", header, re.M)
        and re.search(r"Royal Courts of Justice|Neutral Citation", header)
    )


def is_english_judgment(header: str) -> bool:
    """Whether the header is an English judgment's: a transcript, or one with an English neutral
    citation or the Royal Courts of Justice (a family appeal with no "Between:" the parties)."""
    return is_uk_transcript(header) or bool(
        re.search(r"\[\d{4}\]\s+(?:EWCA|EWHC|UKSC|UKUT)\b|Royal Courts of Justice", header)
    )


def case_number(header: str) -> str:
    m = _CASE_NUMBER.search(header)
    return " ".join(m.group(1).split())[:200] if m else ""


def uk_case_number(header: str) -> str:
    m = _UK_CASE_NO.search(header)
    return m.group(1).strip() if m else ""


def judges(header: str) -> list[str]:
    """The judges named in "The Judgment was delivered by: …"."""
    m = _DELIVERED.search(header)
    return _judge_names(m.group(1)) if m else []


def _court_name(raw: str) -> str:
    name = " ".join(raw.split())
    if name.isupper():
        name = name.title().replace(" Of ", " of ")
    return name


def _to_date(m: re.Match[str]) -> date | None:
    try:
        return datetime.strptime(f"{m.group(1)} {m.group(2)} {m.group(3)}", "%d %B %Y").date()
    except ValueError:
        return None


def _judge_names(raw: str) -> list[str]:
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


def uk_judges(header: str) -> list[str]:
    """The judges listed under "Before:" in a Court of Appeal transcript."""
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


def proceeding(case_number: str, text: str) -> tuple[str, bool]:
    """(kind of proceeding, whether it is criminal), from the case number and the text."""
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
    if re.search(r"COURT OF APPEAL\s*\(\s*CIVIL DIVISION\s*\)", head[:3000], re.I):
        criminal = False  # a Civil Division transcript, however much it says of a conviction
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
