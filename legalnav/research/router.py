"""Routing a research question: simple (a lookup), clarify (too ambiguous: ask back with concrete
options) or deep (a brief: supporting and adverse precedent, risk, strategy).

Offline the route comes from rules over the question's wording, and every decision says which
rule fired. With Claude, one call returns the route, the reason and (for clarify) the options;
an unreadable or invalid reply falls back to the rules, and the trace says so.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from legalnav.answers.routing import SIDE_CHOICE_OPENING
from legalnav.research.reading import is_fact_pattern, read_question
from legalnav.retrieval.bm25 import tokenize

SIMPLE, CLARIFY, DEEP = "simple", "clarify", "deep"
ROUTES = (SIMPLE, CLARIFY, DEEP)


@dataclass(slots=True)
class Route:
    route: str
    reason: str
    options: list[str] = field(default_factory=list)  # clarify: what the user could mean
    routed_by: str = "rules"
    proposition: str = ""  # deep: what the user wants supported (Claude may fill it in)
    side: str = ""
    asks_for: str = ""  # clarify: "side" when only the side is missing (the options name it)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


# A brief: advice, argument, both sides, risk, strategy, or a client's facts.
_BRIEF = re.compile(
    r"\b(?:my client|our client|we act for|i act for|we represent|i represent|on behalf of|"
    r"we are (?:defending|acting|appearing)|defending|should we (?:appeal|file|challenge)|"
    r"how likely|likelihood|both ways|line of authority|case law (?:on|both)|set out the|"
    r"advise|advice|brief|research note|memo(?:randum)?|strategy|strategies|legal risk|risk of|"
    r"the risk|prospects?|chances of success|likely outcome|how strong|assess|"
    r"argue|argument|arguments|submissions?|build the (?:case|argument)|"
    r"prepare|draft|support(?:ing)? and adverse|for and against|both sides|on both sides|"
    r"against us|cuts? against|contrary authorit|adverse (?:authorit|precedent|cases)|"
    r"precedents? (?:for|against|supporting|on)|authorities (?:for|against|that|on|which)|"
    r"leading cases|which decisions were (?:followed|distinguished)|compare how)\b",
    re.I,
)
# A lookup or a listing: enumerate, count, or read one judgment's metadata.
_LOOKUP = re.compile(
    r"^(?:which|list|show|find|how many|count|name|who|when|what (?:was|is|were) the "
    r"(?:outcome|result|date|citation|holding|court)|what does (?:paragraph|para|¶)|"
    r"in which|give me (?:the|all|a list)|are there any|is there any)\b|"
    r"\b(?:which (?:cases|judgments|decisions|appeals)|list (?:the|all)|how many|"
    r"judgments? (?:that|which|written|delivered|decided|citing)|cases? (?:that|which|involving|under|about|citing)|"
    r"delivered the judgment|decided (?:before|after|in|between)|outcome (?:in|of)|"
    r"statutes? (?:are |were )?cited|who (?:was|were) the (?:appellant|respondent|judge|petitioner))\b",
    re.I,
)
# Something the question is anchored to: a case name, a section, an Act, a year, a paragraph,
# a judge, or a quoted phrase.
_ANCHOR = re.compile(
    r"\b[A-Z][\w.'&-]+(?:\s+[A-Z][\w.'&-]+)*\s+v\.?\s+[A-Z]|"
    r"\b(?:section|sec\.|s\.|article|art\.|rule|order)\s*\d|\b\d{1,4}[A-Z]?\s+(?:IPC|CrPC|CPC)\b|"
    r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\s+(?:Act|Code)\b|\b(?:18|19|20)\d{2}\b|"
    r"\bparagraph\s+\d|¶\s*\d|\bjustice\s+[A-Z]|[“\"'][^”\"']{4,}[”\"']|"
    r"\b(?:IPC|Cr\.?P\.?C|Penal Code|Constitution|NDPS|TADA|Arms Act|Negotiable Instruments)\b"
)
# A request for law with no subject after it ("Need case law asap"); "judgments on bail" has one.
_ASKS_FOR_LAW = re.compile(
    r"\b(?:case law|authorit(?:y|ies)|precedents?|cases|judgments)\b(?!\s+(?:on|about|for|where|"
    r"that|which|under|involving|in|of|with|concerning|dealing|citing|decided|against|from)\b)",
    re.I,
)
# Words that stand for something the question never names.
_VAGUE = re.compile(
    r"\b(?:it|this|that|these|those|he|she|they|him|her|them|my case|the case|the appeal|"
    r"the law|this point|the point|the court|the matter|the issue|anything|something|"
    r"my chances|good law|valid)\b",
    re.I,
)
_FILLER = frozenset(
    """a an and any are as at be been by can could did do does for from has have how i if in into
    is it its may me my no not of on or our shall should so such than that the their them then
    there these they this those to up us was we were what when where which while who whom whose
    why will with would you your he she him her his tell help please about know need want get
    give show find cases case law court decide decided anything something point valid good
    chances""".split()
)


def route_offline(question: str) -> Route:
    """Route by rules. A brief (advice, both sides, risk, strategy, a client's facts) is deep;
    a question anchored to something specific, or phrased as a lookup or a listing, is simple;
    a short question that names nothing is sent back with options."""
    q = " ".join(question.split())
    words = re.findall(r"[A-Za-z0-9']+", q)
    content = [t for t in tokenize(q) if t not in _FILLER]
    anchor = _ANCHOR.search(q)
    brief = _BRIEF.search(q)
    lookup = _LOOKUP.search(q)
    vague = _VAGUE.search(q)

    reading = read_question(q)
    facts = is_fact_pattern(q)
    deep: Route | None = None
    if brief and (len(content) >= 5 or len(words) >= 15):
        deep = Route(DEEP, f"a brief: “{brief.group(0)}”, with enough facts to research")
    elif facts and not lookup:
        asked = facts.group(0)
        deep = Route(DEEP, f"facts, then whether a result holds (“{asked}”): researched as a brief")
    elif len(words) >= 30 and not lookup:
        deep = Route(DEEP, f"a statement of facts ({len(words)} words): researched as a brief")
    elif (
        reading.side.known
        and reading.side.evidence
        and reading.proposition_from.startswith("whether")
        and not lookup
    ):
        # "Acting for the defendant insurer, find authority on whether a claim can be refused
        # …": a side and a contested proposition make a brief, however short.
        deep = Route(
            DEEP, f"a side (“{reading.side.evidence}”) and whether a proposition holds: a brief"
        )
    if deep is not None:
        deep.proposition = reading.proposition
        if reading.side.known:
            deep.side = reading.side.role
            return deep
        return Route(
            CLARIFY,
            f"{deep.reason.split(':', 1)[0]}, but it does not say whose side you are on: "
            f"{' or '.join(reading.choices)}?",
            side_options(q, reading.choices),
            proposition=reading.proposition,
            asks_for="side",
        )
    if lookup and (anchor or len(content) >= 2):
        what = f"anchored to “{anchor.group(0)}”" if anchor else f"{len(content)} search terms"
        return Route(SIMPLE, f"a lookup or listing (“{lookup.group(0)}”), {what}")
    if anchor and len(content) >= 2:
        return Route(SIMPLE, f"a specific question, anchored to “{anchor.group(0)}”")
    asks = _ASKS_FOR_LAW.search(q)
    if asks and not anchor and len(content) <= 3:
        return Route(
            CLARIFY,
            f"asks for “{asks.group(0)}” but names no issue, facts or side",
            clarify_options(q),
        )
    if brief:
        return Route(
            CLARIFY,
            f"asks for a brief (“{brief.group(0)}”) but states no facts or proposition",
            clarify_options(q),
        )
    # A pronoun in a long question usually points inside the question itself ("how likely is
    # it that …"): vagueness only sends back a short question.
    if (vague and len(content) <= 6) or len(content) <= 2:
        why = f"“{vague.group(0)}” refers to nothing named" if vague else "too few terms"
        return Route(CLARIFY, f"too ambiguous to research: {why}", clarify_options(q))
    return Route(SIMPLE, f"a plain search ({len(content)} search terms)")


def side_options(question: str, choices: list[str]) -> list[str]:
    """The question again, once for each side it most likely means: each is a question the user
    can ask as it stands."""
    q = " ".join(question.split())
    return [f"{SIDE_CHOICE_OPENING} {choice}. {q}" for choice in choices]


def clarify_options(question: str, *, examples: dict[str, list[str]] | None = None) -> list[str]:
    """Concrete ways to sharpen the question, using the matter's own statutes and cases when
    they are given (``examples`` = {"statutes": [...], "cases": [...]})."""
    examples = examples or {}
    statutes = examples.get("statutes") or []
    cases = examples.get("cases") or []
    options = []
    if statutes:
        options.append(f"List the judgments that apply the {statutes[0]}.")
    else:
        options.append("List the judgments on a named statute or section (e.g. “section 302 IPC”).")
    if cases:
        options.append(
            f"Ask about one judgment by name, e.g. “What was the outcome in {cases[0]}?”"
        )
    else:
        options.append("Ask about one judgment by name (its parties, date, outcome or judges).")
    options.append(
        "State the proposition you need authority for and the side you act for, e.g. "
        "“We act for the accused: a dying declaration recorded by the police cannot alone "
        "sustain a conviction. Find supporting and adverse precedent.”"
    )
    return options
