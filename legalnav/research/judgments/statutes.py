"""Statutes cited: the Acts and Codes a judgment names, with the sections cited from each."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from legalnav.research.judgments.paragraphs import Paragraph, paragraph_at, paragraphs


@dataclass(slots=True)
class StatuteCited:
    name: str  # "Indian Penal Code, 1860", "Arms Act, 1959", "Constitution of India"
    sections: list[str] = field(default_factory=list)  # "302", "29(b)", "Article 21"
    paragraphs: list[int] = field(default_factory=list)


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
