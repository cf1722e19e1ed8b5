"""Deterministic enrichment: cross-references, defined terms, the nine flags, summaries and
keywords. Same input, same output; no model is called.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from legalnav.documents.parsing.numbering import article_number, decimal_tuple
from legalnav.documents.parsing.structure.nodes import ATTACHMENT_KINDS, ParsedNode
from legalnav.documents.parsing.trie import phrase_regex

FLAG_NAMES = (
    "isDefinition",
    "hasMoney",
    "hasDate",
    "hasPercentage",
    "hasLiabilityLimit",
    "hasCondition",
    "hasParty",
    "isTocEntry",
)

# --- flags ------------------------------------------------------------------------------------

_MONTHS = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan\.|Feb\.|Mar\.|Apr\.|Jun\.|Jul\.|Aug\.|Sept?\.|Oct\.|Nov\.|Dec\.)"
)
_NUMBER_WORDS = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|forty-five|fifty|sixty|ninety|hundred|\d{1,4})"
)
_MONEY = re.compile(
    r"[$€£¥]\s?\d|\bU\.?S\.?\s?\$|\b(?:USD|EUR|GBP|CHF|JPY)\s?\d|\b\d[\d,.]*\s?(?:million|billion)\b"
    r"|\b(?:[Dd]ollars|[Ee]uros|[Pp]ounds [Ss]terling)\b"
)
_DATE = re.compile(
    rf"\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?{_MONTHS}"
    rf"|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b"
    rf"|\b{_NUMBER_WORDS}\s*(?:\(\d+\)\s*)?(?:[Bb]usiness\s+|[Cc]alendar\s+|[Ww]orking\s+)?(?:[Dd]ays?|[Mm]onths?|[Yy]ears?|[Ww]eeks?)\b"
    rf"|\banniversary\b|\bdeadline\b|\bno later than\b|\bnot later than\b|\bMaturity Date\b|\bTermination Date\b",
    re.IGNORECASE,
)
_PERCENT = re.compile(r"\d\s?%|\bper\s?cent\b|\bpercent(?:age)?\b|\bbasis points?\b", re.IGNORECASE)
_LIABILITY = re.compile(
    r"\blimitations?\s+(?:of|on)\s+liability|\bin no event\b[^.]{0,120}\bliable|"
    r"\b(?:aggregate|maximum|total|cumulative)\s+liability\b|\bliability\b[^.]{0,80}\b(?:shall not exceed|limited to|capped)|"
    r"\bshall not be liable\b|\bconsequential,?\s+(?:or\s+)?(?:incidental,?\s+|special,?\s+|punitive,?\s+|indirect,?\s+|or\s+)*damages|"
    r"\bcap on liability\b|\bexclusive remedy\b",
    re.IGNORECASE,
)
_CONDITION = re.compile(
    r"\bconditions?\s+precedent\b|\bconditions?\s+to\b|\bsubject to the (?:satisfaction|fulfil?lment)\b|"
    r"\bprovided,?\s+(?:however,?\s+)?that\b|\bin the event (?:that|of)\b|\bupon the occurrence\b|"
    r"\bunless\b|\bif and only if\b|\bshall have been (?:satisfied|received|delivered|obtained)\b|"
    r"\bcontingent (?:up)?on\b|\bon condition that\b",
    re.IGNORECASE,
)
_ROLE_WORDS = re.compile(
    r"\b(?:Borrowers?|Lenders?|Administrative Agent|Collateral Agent|Agent|Guarantors?|Sellers?|Buyers?|"
    r"Purchasers?|Licensors?|Licensees?|Landlord|Tenant|Lessor|Lessee|Company|Parent|Merger Sub|"
    r"Partnership|General Partner|Limited Partners?|Members?|Manager|Distributor|Supplier|Customer|"
    r"Consultant|Contractor|Employee|Executive|Franchisor|Franchisee|Issuer|Trustee|Servicer|Depositor|"
    r"Investors?|Holders?|Parties|Party)\b"
)

# --- cross-references -------------------------------------------------------------------------

_LABEL = (
    r"(?:\d{1,4}(?:\.\d{1,3}){0,3}(?![\d.]\d)(?:[A-Za-z](?![\w]))?(?:\([a-zA-Z0-9]{1,5}\)){0,4}"
    r"|\([a-zA-Z0-9]{1,5}\)(?:\([a-zA-Z0-9]{1,5}\)){0,3}"
    r"|[IVXL]{1,6}(?![\w])|[A-Z](?:-\d{1,2})?(?![\w]))"
)
_SEP = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|and/or|through|to)\s+)"
_KEYWORDS = {
    "section": "section",
    "sections": "section",
    "subsection": "section",
    "subsections": "section",
    "§": "section",
    "§§": "section",
    "article": "article",
    "articles": "article",
    "clause": "clause",
    "clauses": "clause",
    "paragraph": "clause",
    "paragraphs": "clause",
    "sub-clause": "clause",
    "subclause": "clause",
    "schedule": "schedule",
    "schedules": "schedule",
    "exhibit": "exhibit",
    "exhibits": "exhibit",
    "annex": "annex",
    "annexes": "annex",
    "appendix": "appendix",
    "appendices": "appendix",
}
_REF = re.compile(
    r"(?<![\w])(?P<kw>[Ss]ections?|SECTIONS?|[Ss]ubsections?|§§?|Articles?|ARTICLES?|article|"
    r"[Cc]lauses?|[Pp]aragraphs?|[Ss]ub-?clauses?|Schedules?|SCHEDULES?|Exhibits?|EXHIBITS?|"
    r"Annex(?:es)?|ANNEX(?:ES)?|Appendi(?:x|ces)|APPENDI(?:X|CES))\s*"
    rf"(?P<labels>{_LABEL}(?:{_SEP}{_LABEL})*)"
    r"(?P<qual>\s+(?:of|to|in|under)\s+(?P<det>the\s+|this\s+|such\s+|that\s+|said\s+)?"
    r"(?P<qname>[A-Z][\w\-’'.]*(?:\s+(?:[A-Z][\w\-’'.]*|of|and|the|on)){0,6}))?"
)
_CLAUSE_OF_SECTION = re.compile(
    r"(?<![\w])(?:[Cc]lauses?|[Pp]aragraphs?|[Ss]ub-?clauses?|[Ss]ubsections?)\s+"
    r"(?P<sub>\([a-zA-Z0-9]{1,5}\)(?:\([a-zA-Z0-9]{1,5}\))*)\s+of\s+(?:this\s+)?"
    r"(?:[Ss]ection|SECTION)\s+(?P<sec>\d{1,3}(?:\.\d{1,3}){0,3}(?:\([a-zA-Z0-9]{1,5}\))*)"
)
_LABEL_ITEM = re.compile(_LABEL)
_STATUTE = re.compile(
    r"\b(?:Act|Code|Regulations?|Rules?|U\.S\.C|Bankruptcy|Statute|Law|Directive|Treaty|Convention)\b"
)
_SELF = re.compile(r"^(?:Agreement|Amendment|Lease|Note|Guarant[ey]|Indenture|Plan)$")


@dataclass(slots=True)
class ParsedRef:
    source: int  # node index
    kind: str  # section | article | clause | schedule | exhibit | annex | appendix
    text: str  # the referring text as printed
    target_ref: str  # "5.17(b)", "7", "A", "(b)"
    start: int
    end: int
    qualifier: str = ""  # "Credit Agreement": another instrument named after the reference
    external: bool = False  # a statute, or another instrument this document does not amend
    target: int | None = None  # node index, when resolved in this document


@dataclass(slots=True)
class ParsedTerm:
    term: str
    node: int  # defining node index
    uses: list[int] = field(default_factory=list)
    strength: int = 0  # 3 "means", 2 parenthetical, 1 "has the meaning set forth in"


_SUB = re.compile(r"\(([a-zA-Z0-9]{1,5})\)")


def _split_label(label: str) -> tuple[str, list[str]]:
    """ "5.17(b)(ii)" -> ("5.17", ["b", "ii"]); "(b)" -> ("", ["b"])."""
    head = label.split("(", 1)[0]
    return head, _SUB.findall(label[len(head) :])


def extract_references(nodes: list[ParsedNode], text: str) -> list[ParsedRef]:
    refs: list[ParsedRef] = []
    for idx, nd in enumerate(nodes):
        if nd.kind == "toc" or nd.end <= nd.start:
            continue
        chunk = text[nd.start : nd.end]
        taken: list[tuple[int, int]] = []
        for m in _CLAUSE_OF_SECTION.finditer(chunk):
            target = m.group("sec") + m.group("sub")
            refs.append(
                ParsedRef(
                    idx, "section", m.group(0), target, nd.start + m.start(), nd.start + m.end()
                )
            )
            taken.append((m.start(), m.end()))
        for m in _REF.finditer(chunk):
            if any(a <= m.start() < b for a, b in taken):
                continue
            if m.start() == 0 and nd.kind in ("article", "section") | ATTACHMENT_KINDS.keys():
                continue  # the provision's own label, not a reference
            kw = m.group("kw").lower()
            kind = _KEYWORDS.get(kw, _KEYWORDS.get(kw.rstrip("s"), "section"))
            qualifier, external = "", False
            qname = (m.group("qname") or "").strip()
            det = (m.group("det") or "").strip().lower()
            if qname:
                qname = re.sub(r"\s+(?:of|and|the|on)$", "", qname).rstrip(".,;:’'")
                if det == "this" or (det in ("", "such", "said") and _SELF.match(qname)):
                    qualifier = ""
                elif _STATUTE.search(qname) and not re.search(r"Agreement|Amendment|Lease", qname):
                    qualifier, external = qname, True
                elif det in ("the", "that", "such", "said") and re.search(r"[A-Z]", qname):
                    qualifier = qname
            labels_text = m.group("labels")
            base = nd.start + m.start("labels")
            previous = ""
            for lm in _LABEL_ITEM.finditer(labels_text):
                label = lm.group(0)
                if label.startswith("(") and previous and not previous.startswith("("):
                    # "Section 2.07(b)(ii) and (iii)": the bare sub-clause continues the last one.
                    head = previous[: previous.rfind("(")] if "(" in previous else previous
                    label = head + label
                previous = label
                if kind in ("schedule", "exhibit", "annex", "appendix"):
                    if not (label[0].isupper() or label[0].isdigit()):
                        continue
                elif kind == "article":
                    if article_number(label.split("(")[0]) is None:
                        continue
                elif kind == "section":
                    if not label[0].isdigit() and not label.startswith("("):
                        continue
                s = base + lm.start()
                refs.append(
                    ParsedRef(
                        idx,
                        kind,
                        text[nd.start + m.start() : base + lm.end()] if lm.start() == 0 else label,
                        label,
                        s if lm.start() else nd.start + m.start(),
                        base + lm.end(),
                        qualifier,
                        external,
                    )
                )
    return refs


class RefIndex:
    """Where each numbered provision of one document is, by scope (main body or attachment)."""

    def __init__(self, nodes: list[ParsedNode]) -> None:
        self.nodes = nodes
        self.sections: dict[tuple[str, tuple[int, ...]], int] = {}
        self.articles: dict[tuple[str, int], int] = {}
        self.attachments: dict[tuple[str, str], int] = {}
        for idx, nd in enumerate(nodes):
            if nd.kind == "section":
                self.sections.setdefault((nd.scope, decimal_tuple(nd.label)), idx)
            elif nd.kind == "article":
                num = article_number(nd.label)
                if num is not None:
                    self.articles.setdefault((nd.scope, num), idx)
            elif nd.kind in ATTACHMENT_KINDS:
                self.attachments.setdefault((nd.kind, nd.label.upper()), idx)

    def _descend(self, idx: int, subs: list[str]) -> tuple[int, bool]:
        exact = True
        for sub in subs:
            nxt = next((c for c in self.nodes[idx].children if self.nodes[c].label == sub), None)
            if nxt is None:
                exact = False
                break
            idx = nxt
        return idx, exact

    def resolve(self, kind: str, target: str, scope: str, source: int | None = None) -> int | None:
        scopes = [scope, ""] if scope else [""]
        head, subs = _split_label(target)
        if kind == "clause" or (kind == "section" and not head):
            return self._resolve_relative(subs, source) if source is not None else None
        if kind in ATTACHMENT_KINDS:
            return self.attachments.get((kind, target.upper()))
        for sc in scopes:
            if kind == "article":
                num = article_number(head)
                if num is not None and (sc, num) in self.articles:
                    return self._descend(self.articles[(sc, num)], subs)[0]
                continue
            numbers = decimal_tuple(head)
            if not numbers:
                continue
            hit = self.sections.get((sc, numbers))
            if hit is None and len(numbers) == 1:
                hit = self.articles.get((sc, numbers[0]))  # "Section 5" where articles are meant
            if hit is not None:
                return self._descend(hit, subs)[0]
        return None

    def _resolve_relative(self, subs: list[str], source: int) -> int | None:
        """ "clause (b)" means a sibling or a nearby sub-clause of the provision it is in."""
        if not subs:
            return None
        idx: int | None = source
        while idx is not None:
            nd = self.nodes[idx]
            child = next((c for c in nd.children if self.nodes[c].label == subs[0]), None)
            if child is not None:
                found, _ = self._descend(child, subs[1:])
                return found
            if nd.kind in ("section", "article") or nd.kind in ATTACHMENT_KINDS:
                return None
            idx = nd.parent
        return None


def resolve_references(nodes: list[ParsedNode], refs: list[ParsedRef], index: RefIndex) -> None:
    for ref in refs:
        if ref.external or ref.qualifier:
            continue
        ref.target = index.resolve(ref.kind, ref.target_ref, nodes[ref.source].scope, ref.source)


# --- defined terms ----------------------------------------------------------------------------

_DEF_MEANS = re.compile(
    r"[“\"]([^”\"\n]{1,80}?)[”\"]\s*(?:\([^)\n]{0,80}\)\s*)?[,:]?\s*"
    r"(?P<verb>means|shall\s+mean|mean|shall\s+include|includes|refers\s+to|shall\s+refer\s+to|"
    r"has\s+the\s+meaning|shall\s+have\s+the\s+(?:respective\s+)?meaning|have\s+the\s+(?:respective\s+)?meanings?|"
    r"is\s+defined|as\s+defined)\b"
)
_PAREN = re.compile(r"\(([^()]{0,240})\)")
_QUOTED = re.compile(r"[“\"]([^”\"\n]{1,80}?)[”\"]")
_PAREN_LEAD = re.compile(
    r"(?:^|,|;|\bthe|\ba|\ban|\bas|\beach|\bcollectively|\bindividually|\btogether|\bhereinafter|"
    r"\bherein|\bcalled|\band|\bor|\breferred\s+to|\bhereafter)\s*$",
    re.IGNORECASE,
)


def _valid_term(term: str) -> bool:
    term = term.strip()
    if not term or len(term) > 80 or len(term.split()) > 8:
        return False
    if not (term[0].isupper() or term[0].isdigit()):
        return False
    return not term.endswith((",", ";", ":"))


def extract_terms(nodes: list[ParsedNode]) -> list[ParsedTerm]:
    found: dict[str, ParsedTerm] = {}

    def add(term: str, idx: int, strength: int) -> None:
        term = re.sub(r"\s+", " ", term.strip().rstrip("."))
        if not _valid_term(term):
            return
        cur = found.get(term)
        if cur is None or strength > cur.strength:
            found[term] = ParsedTerm(term, idx, strength=strength)

    for idx, nd in enumerate(nodes):
        if nd.kind == "toc":
            continue
        text = nd.text
        for m in _DEF_MEANS.finditer(text):
            verb = m.group("verb")
            strength = 1 if ("meaning" in verb or "defined" in verb) else 3
            add(m.group(1), idx, strength)
        if "(" not in text:
            continue
        for pm in _PAREN.finditer(text):
            inner = pm.group(1)
            for qm in _QUOTED.finditer(inner):
                lead = inner[: qm.start()]
                tail = lead[-40:]
                if _PAREN_LEAD.search(tail):
                    add(qm.group(1), idx, 2)
    return list(found.values())


def attach_term_uses(nodes: list[ParsedNode], terms: list[ParsedTerm]) -> None:
    """Record, for each term, the nodes other than its definition that use it."""
    by_term = {t.term: t for t in terms}
    rx = phrase_regex(list(by_term))
    if rx is None:
        return
    for idx, nd in enumerate(nodes):
        if nd.kind == "toc" or not nd.text:
            continue
        seen = set(rx.findall(nd.text))
        for term in seen:
            t = by_term.get(term)
            if t is not None and t.node != idx:
                t.uses.append(idx)


# --- flags, summaries, keywords ---------------------------------------------------------------

_STOP = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each either few for
    from further had has have having he her here hereby herein hereof hereto hereunder his how i if
    in into is it its itself may might more most must no nor not now of off on once only or other
    our out over own per provided same shall she should so some such than that the their them then
    there thereof these they this those through thus to under until up upon very was we were what
    when where whether which while who whom why will with within without would you your
    agreement section article clause respect including applicable time date party parties
    pursuant hereinafter thereto therein foregoing following otherwise set forth extent terms
    term made make without limitation subject reasonable reasonably meaning means reserved
    hereunder thereunder described""".split()
)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z\-]{3,}")
_SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z(“\"])")


def tokens(text: str) -> list[str]:
    return [w for w in (t.lower() for t in _TOKEN.findall(text)) if w not in _STOP]


# Cheap substring tests run first: Python's regex engine cannot skip ahead to an alternation of
# word-bounded phrases, and these searches would otherwise dominate parsing time.
_MONEY_HINTS = (
    "$",
    "€",
    "£",
    "¥",
    "ollar",
    "USD",
    "EUR",
    "GBP",
    "CHF",
    "JPY",
    "illion",
    "uro",
    "terling",
)
_DATE_HINTS = (
    "day",
    "month",
    "year",
    "week",
    "/",
    "anniversary",
    "deadline",
    "later than",
    "maturity date",
    "termination date",
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "oct",
    "nov",
    "dec",
    "-",
)
_PERCENT_HINTS = ("%", "percent", "per cent", "basis point")
_LIABILITY_HINTS = ("liab", "damages", "exclusive remedy")
_CONDITION_HINTS = (
    "condition",
    "subject to",
    "provided",
    "in the event",
    "occurrence",
    "unless",
    "if and only if",
    "shall have been",
    "contingent",
)


def _hinted(
    rx: re.Pattern[str], text: str, lower: str, hints: tuple[str, ...], *, cased: bool = False
) -> bool:
    haystack = text if cased else lower
    return any(h in haystack for h in hints) and rx.search(text) is not None


def compute_flags(
    nd: ParsedNode, defines: bool, party_rx: re.Pattern[str] | None
) -> dict[str, bool]:
    text = nd.text
    lower = text.lower()
    is_toc = nd.kind == "toc"
    return {
        "isDefinition": nd.kind == "definition" or defines,
        "hasMoney": _hinted(_MONEY, text, text, _MONEY_HINTS, cased=True),
        "hasDate": _hinted(_DATE, text, lower, _DATE_HINTS),
        "hasPercentage": _hinted(_PERCENT, text, lower, _PERCENT_HINTS),
        "hasLiabilityLimit": _hinted(_LIABILITY, text, lower, _LIABILITY_HINTS),
        "hasCondition": _hinted(_CONDITION, text, lower, _CONDITION_HINTS),
        "hasParty": not is_toc
        and bool((party_rx and party_rx.search(text)) or _ROLE_WORDS.search(text)),
        "isTocEntry": is_toc,
    }


def summarise(nd: ParsedNode, limit_words: int = 28) -> str:
    """A short extractive summary: the heading and the provision's first sentence."""
    body = nd.text
    if nd.ref and body.startswith(nd.ref):
        body = body[len(nd.ref) :].lstrip(" .:-–—")
    if nd.heading and body.startswith(nd.heading):
        body = body[len(nd.heading) :].lstrip(" .:-–—")
    first = _SENTENCE.split(body.replace("\n", " "), maxsplit=1)[0] if body else ""
    words = first.split()
    if len(words) > limit_words:
        first = " ".join(words[:limit_words]) + "…"
    if nd.kind == "definition":
        return first[:240]
    if nd.heading and first:
        return f"{nd.heading}: {first}"[:240]
    return (nd.heading or first)[:240]


def assign_keywords(nodes: list[ParsedNode], per_node: int = 5) -> None:
    """Top tf-idf words of each node against the rest of its document."""
    node_tokens = [tokens(nd.text) if nd.kind != "toc" else [] for nd in nodes]
    df: Counter[str] = Counter()
    for toks in node_tokens:
        df.update(set(toks))
    n = max(1, len(nodes))
    for nd, toks in zip(nodes, node_tokens, strict=True):
        if not toks:
            nd.keywords = []
            continue
        tf = Counter(toks)
        scored = sorted(tf.items(), key=lambda kv: (-(kv[1] * math.log(1 + n / df[kv[0]])), kv[0]))
        nd.keywords = [w for w, _ in scored[:per_node]]


_GOVERNING = re.compile(
    r"governed\s+by,?\s+(?:and\s+(?:shall\s+be\s+)?)?(?:construed|interpreted|enforced)?[^.]{0,80}?\blaws?\s+of\s+"
    r"(?:the\s+)?(?:State\s+of\s+|Commonwealth\s+of\s+|Province\s+of\s+)?"
    r"(?P<j>[A-Z][a-zA-Z]+(?:\s+(?!and\b|without\b|applicable\b)[A-Z][a-zA-Z]+){0,3})",
)


def document_tags(nodes: list[ParsedNode], text: str) -> dict[str, object]:
    m = _GOVERNING.search(text)
    topics: Counter[str] = Counter()
    for nd in nodes:
        topics.update(nd.keywords[:3])
    return {
        "jurisdiction": m.group("j") if m else "",
        "topics": [w for w, _ in topics.most_common(8)],
    }
