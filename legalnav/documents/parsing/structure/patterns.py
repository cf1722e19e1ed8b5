"""The line patterns of the structure parser: what a label, a heading or a contents line looks
like, and whether a line reads as a title or as running text."""

from __future__ import annotations

import re

from legalnav.documents.parsing.layout import Line

TOC_TITLE = re.compile(
    r"^(?:TABLE\s+OF\s+CONTENTS|CONTENTS|INDEX|INDEX\s+OF\s+(?:DEFINED\s+TERMS|DEFINITIONS|TERMS)|"
    r"DEFINED\s+TERMS\s+INDEX|LIST\s+OF\s+DEFINED\s+TERMS)\s*(?:\((?:continued|cont\.?)\))?\s*:?$",
    re.IGNORECASE,
)
ARTICLE = re.compile(
    r"^(ARTICLE|Article|ART\.)\s+([IVXLC]+|\d{1,3}|[A-Z])(?![\w.]*\d)\b\.?\s*(?:[:\-–—.]\s*)?(.*)$"
)
# How a contents or defined-terms index line ends: a page number, or the section it points to.
TOC_LINE_END = re.compile(
    r"(?:(?:\s|\.{2,}|…)\d{1,3}|\s\d{1,3}(?:\.\d{1,3})+(?:\([a-zA-Z0-9]{1,4}\))*|\s(?:Recitals?|Preamble)"
    r"|[-–]\s*\d{1,3}\s*[-–])$"
)
# A contents page flattened into one line: "1.1 Affiliate 7 1.2 Agreement 7 1.3 …".
TOC_RUN = re.compile(r"\b\d{1,3}(?:\.\d{1,3})*\.?\s+[A-Z\[][^\d]{1,80}?\s\d{1,3}\b")
INLINE_SECTION = re.compile(r"\s(?:SECTION|Section)\s+\d{1,3}\.\d")
ROMAN_ARTICLE = re.compile(r"^([IVX]{1,5})\.\s+([A-Z][A-Z0-9 ,;:&'’\-–—]{2,80})$")
# A label may be glued to its heading where a tab was lost in conversion: "Section 1.1Amounts".
SECTION = re.compile(
    r"^(SECTION|Section|Sec\.|§)\s*(\d{1,3}(?:\.\d{1,3}){0,3}[A-Za-z]?)(?:\s*\.)?(?=[\s:“\"]|[A-Z][a-z]|$)\s*:?\s*(.*)$"
)
DECIMAL = re.compile(r"^(\d{1,3}(?:\.\d{1,3}){1,3})\.?(?=[\s“\"]|[A-Z][a-z]|$)\s*(.*)$")
TOP_NUMBER = re.compile(r"^(\d{1,3})\.(?=\s|$|[A-Z][a-z])\s*(.*)$")
PAREN = re.compile(r"^\(([a-z]{1,5}|[A-Z]{1,5}|\d{1,3})\)\s*(.*)$")
LETTER_DOT = re.compile(r"^([A-Z])\.\s+(?=[A-Z“\"(])(.*)$")
DEFINITION = re.compile(
    r"^[“\"]([^”\"\n]{1,100}?)[”\"](?:\s*(?:and|or)\s*[“\"][^”\"\n]{1,80}[”\"])?\s*"
    r"(?:\([^)\n]{0,80}\)\s*)?[:,]?\s*"
    r"(?:means|shall\s+mean|mean|has\s+the\s+meaning|shall\s+have\s+the\s+meaning|have\s+the\s+meaning|"
    r"is\s+defined|shall\s+include|includes|refers\s+to|shall\s+refer|as\s+used|:)"
)
ATTACHMENT = re.compile(
    r"^(SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex|APPENDIX|Appendix)\s+"
    r"([A-Z]{1,3}(?:-\d{1,3})?|\d{1,3}(?:\.\d{1,3})*(?:\([a-z0-9]{1,4}\))?|[IVXLC]{1,6})"
    r"(?![\w])\.?\s*(.*)$"
)
RECITALS_TITLE = re.compile(
    r"^(?:RECITALS?|Recitals?|W\s*I\s*T\s*N\s*E\s*S\s*S\s*E\s*T\s*H|WITNESSETH|Witnesseth|"
    r"BACKGROUND|Background|PRELIMINARY\s+STATEMENTS?|Preliminary\s+Statements?)\s*[:.]?$"
)
WHEREAS = re.compile(r"^WHEREAS\b|^Whereas,")
NOW_THEREFORE = re.compile(r"^NOW,?\s+THEREFORE\b|^Now,?\s+[Tt]herefore\b")
SIGNATURES = re.compile(r"^IN\s+WITNESS\s+WHEREOF|^In\s+Witness\s+Whereof")
EDGAR_EXHIBIT = re.compile(r"^(?:EXHIBIT|Exhibit|EX-)\s*\d+(?:\.\d+)*\b")

NOT_TEXT = re.compile(r"[\s.:\-–—]")
_SMALL_WORDS = {
    "of",
    "and",
    "the",
    "to",
    "for",
    "in",
    "on",
    "or",
    "a",
    "an",
    "by",
    "with",
    "at",
    "as",
    "upon",
    "under",
    "from",
    "its",
    "their",
    "into",
    "than",
    "other",
    "vs",
    "not",
    "no",
}
_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*")


def looks_like_title(s: str, max_words: int = 14) -> bool:
    words = _WORD.findall(s)
    if not words or len(words) > max_words:
        return False
    if not words[0][0].isupper():
        return False
    big = [w for w in words if w.lower() not in _SMALL_WORDS]
    if not big:
        return False
    caps = sum(1 for w in big if w[0].isupper())
    return caps / len(big) >= 0.75


def is_prose(s: str) -> bool:
    """A line of running text rather than a title: long, with many lower-case words."""
    if len(s) < 50:
        return False
    words = [w for w in _WORD.findall(s) if w.lower() not in _SMALL_WORDS]
    if len(words) < 5:
        return False
    lower = sum(1 for w in words if w[0].islower())
    return lower / len(words) >= 0.35


def split_heading(rest: str) -> tuple[str, bool]:
    """Split a heading off the text that follows a label.

    Returns (heading, whole_rest_is_heading). "Definitions. The following terms…" gives
    ("Definitions", False); "ORGANIZATIONAL MATTERS" gives ("ORGANIZATIONAL MATTERS", True).
    """
    rest = rest.strip()
    if not rest:
        return "", True
    m = re.match(r"^([A-Z“\"\[][^.:]{0,110}?)[.:]\s+(?=\S)", rest)
    if m and looks_like_title(m.group(1)):
        return m.group(1).strip(), False
    cand = rest.rstrip(".:").strip()
    if len(cand) <= 110 and looks_like_title(cand, max_words=16) and not cand.endswith(","):
        return cand, True
    if rest.isupper() and len(rest) <= 110:
        return rest.rstrip(".:"), True
    return "", False


def is_label_line(s: str) -> bool:
    return bool(
        ARTICLE.match(s)
        or SECTION.match(s)
        or DECIMAL.match(s)
        or PAREN.match(s)
        or TOP_NUMBER.match(s)
        or ATTACHMENT.match(s)
        or DEFINITION.match(s)
    )


def next_content(lines: list[Line], i: int) -> int | None:
    """The index of the first line from i on that has text and is not page furniture."""
    while i < len(lines):
        ln = lines[i]
        if ln.text and not ln.artifact:
            return i
        i += 1
    return None
