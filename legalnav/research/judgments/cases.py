"""Cases cited: the earlier decisions a judgment cites, how it treats each, and matching a cited
case name to a judgment of the matter."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from legalnav.research.judgments.header import MONTHS
from legalnav.research.judgments.paragraphs import (
    Paragraph,
    paragraph_at,
    paragraphs,
    sentences,
)
from legalnav.research.judgments.parties import split_case_name
from legalnav.research.judgments.treatment import Treatment, treatment_of


@dataclass(slots=True)
class CitedCase:
    name: str  # "State of Bombay v. Kathi Kalu Oghad"
    citation: str = ""  # "(1962) 3 SCR 10", "[2002] EWCA Civ 1825"
    treatment: str = "neutral"  # supporting | adverse | neutral
    cue: str = ""  # "distinguished", "followed" …
    paragraphs: list[int] = field(default_factory=list)
    sentence: str = ""  # the first sentence that cites it, verbatim (trimmed)
    document_id: int | None = None  # set when linked to a judgment of the same matter


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
    r"^(?:AIR|SCC|SCR|Indlaw|\(?supra\)?|\(\d{4}\)|\[\d{4}\]|\d.*|" + MONTHS + r")$", re.I
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
