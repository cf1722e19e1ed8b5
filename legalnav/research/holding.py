"""Does a judgment decide the issue the user asks about, and in which words?

A judgment's case card keeps its holdings: the sentences of the court's own reasoning, told apart
from the facts, the arguments recited and the order (``judgments.findings``). Research
matches the question's issue against them. The holding nearest the issue is the judgment's
*holding on the issue*: the stance quotes it verbatim as its reason. A judgment none of whose
holdings comes near the issue does not decide it, whoever won: it is neutral, "does not decide
<issue>", and never supporting or adverse authority.

Nearness is the cosine of the sentence embeddings of the issue and each holding (the matter's
embedder), or, where a matter has no embedder, the share of the issue's content words the holding
uses. Near is not enough where the issue has words of its own: words few of the matter's
judgments use ("dying declaration", "unduly harsh"). A judgment none of whose holdings uses one
of them is off the issue however near its sentences sound ("the accused", "the conviction" are
everywhere in a criminal matter). The floors were tuned on the old stance sets only (``research_eval stance-sets --set tune``); a
question that states no issue of its own (a long statement of facts with only "prepare a brief")
is not matched: its stance stays with the outcome, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from legalnav.retrieval.bm25 import tokenize

# Below this cosine between the issue and a judgment's nearest holding, the judgment does not
# decide the issue. Tuned on the old sets (AILA stance pairs and the EWCA tuning set).
ON_ISSUE_MIN_COSINE = 0.50
# The same floor for the lexical match: the share of the issue's content words in the holding.
ON_ISSUE_MIN_SHARE = 0.15
# A word of the issue that fewer than this share of the matter's judgments use is the issue's own,
# in a matter of at least OWN_WORDS_MIN_JUDGMENTS judgments: in a smaller one the judgments were
# chosen for the issue, and a word one of them happens to use says nothing.
DISTINCTIVE_SHARE = 0.25
OWN_WORDS_MIN_JUDGMENTS = 20
# A holding this near the issue is on it whatever words it uses: a brief that tells its story
# first has many rare words of its own that no holding repeats (tuned on the 373 pairs of the
# tuning and spent sets; in-sample).
OWN_WORDS_WAIVED_AT = 0.60
# A question up to this long names its issue in its own words ("convicted on a dying declaration
# … can the conviction stand?"); a longer one is a statement of facts, whose issue is the
# proposition it states, if any (the facts are not the issue).
ISSUE_MAX_CHARS = 600
# A holding quoted as a reason: at most this many words, cut at a word (a verbatim prefix).
QUOTE_WORDS = 60

# Propositions a reader took from the question's own words (not a topic or the whole question).
_STATED = ("that-clause", "their case", "stated", "whether", "question, for the side")

_WORD = re.compile(r"[a-z][a-z'-]{2,}")
_STOP = frozenset(
    """the and for with that this was were has have had not but are from which who his her
    their they them been its any all into upon under said also such other there than then when
    where what would could should shall may might must will can did does done being more most
    some only very our your find authorities authority cases case court appeal judgment act
    acting client brief research please whether""".split()
)


class Embeds(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True, slots=True)
class HoldingMatch:
    """A judgment's holding nearest the issue."""

    quote: str  # verbatim from the judgment (a prefix of the sentence, cut at a word)
    start: int  # where the sentence lies in the judgment's text
    end: int
    paragraph: int
    score: float  # cosine, or the share of the issue's words
    by: str  # "embeddings" | "words"
    on_issue: bool


@dataclass(frozen=True, slots=True)
class Issue:
    text: str  # what holdings are matched against ("" when the question states no issue)
    words: str  # how the stance names it: "does not decide <words>"


# A sentence that only says whom the lawyer acts for ("I act for the accused."): not the issue.
_SIDE_ONLY = re.compile(
    r"(?:^|(?<=[.?!]\s))(?:i|we)\s+(?:act|appear)\s+for\s+(?:the\s+|my\s+|our\s+)?[\w' -]{2,40}?[.:]\s*",
    re.I,
)


def issue_of(question: str, proposition: str, proposition_from: str) -> Issue:
    """What a judgment must decide to be authority here: a short question as asked (its facts
    name the issue: "convicted on a dying declaration …"), less a sentence that only names the
    side, else the proposition it states; none when a long statement of facts states none."""
    q = _SIDE_ONLY.sub("", " ".join(question.split())).strip() or " ".join(question.split())
    if len(q) <= ISSUE_MAX_CHARS:
        # Named by the proposition where the question states one in so many words.
        # ("… whether the demand can be set aside": the question it asks names it best).
        said = (
            proposition
            if proposition_from in ("that-clause", "stated", "their case", "whether")
            else q
        )
        return Issue(q, issue_words(said))
    if proposition_from.startswith(_STATED) and _asked_for(q, proposition):
        return Issue(proposition, issue_words(proposition))
    return Issue("", "")


# In a long statement of facts, "that …" is as often the story ("the High Court held that …")
# as the lawyer's proposition; it is the proposition only in a sentence that asks for authority.
_ASKS = re.compile(
    r"\b(?:find|give|research|brief|authorit\w*|precedents?|cases|argue|argument|submit|"
    r"contend|establish|support\w*|whether)\b",
    re.I,
)


def _asked_for(question: str, proposition: str) -> bool:
    head = " ".join(proposition.split()[:6])
    at = question.lower().find(head.lower()) if head else -1
    if at < 0:
        return True  # reworded by the reader (a "whether" turned round for the side)
    start = max(question.rfind(". ", 0, at), question.rfind("? ", 0, at)) + 1
    return bool(_ASKS.search(question[start:at]))


def issue_words(issue: str) -> str:
    """The issue in a few words, for "does not decide <issue>"."""
    words = " ".join(issue.split())
    if len(words) <= 120:
        return words
    return words[:119].rsplit(" ", 1)[0] + "…"


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def distinctive_tokens(issue: str, share: Callable[[str], float]) -> set[str]:
    """The issue's own words, as index tokens: used by some but under DISTINCTIVE_SHARE of the
    matter's judgments (``share`` gives a token's share)."""
    out = set()
    for word in _content(issue):
        for token in tokenize(word):
            if 0 < share(token) < DISTINCTIVE_SHARE:
                out.add(token)
    return out


def quote_of(text: str, start: int, end: int) -> str:
    """The holding's words, verbatim: the sentence, or its first QUOTE_WORDS words."""
    words = text[start:end].split()
    return " ".join(words[:QUOTE_WORDS])


def _holding_spans(holdings: Sequence[object]) -> list[tuple[int, int, int]]:
    """(start, end, paragraph) of each holding (card rows are dicts, parser results objects)."""
    out = []
    for h in holdings:
        get = h.get if isinstance(h, dict) else lambda k, d=None, h=h: getattr(h, k, d)
        start, end = get("start"), get("end")
        if isinstance(start, int) and isinstance(end, int) and end > start:
            out.append((start, end, int(get("paragraph", 0) or 0)))
    return out


def match_holdings(
    issue: str,
    judgments: Sequence[tuple[str, Sequence[object]]],
    embedder: Embeds | None = None,
    share: Callable[[str], float] | None = None,
    judgments_in_matter: int = 0,
) -> list[HoldingMatch | None]:
    """For each (text, holdings) judgment, its holding nearest ``issue`` (None when the issue is
    empty or the judgment has no holding read). All holdings are embedded in one batch.
    ``share`` (a token's share of the matter's ``judgments_in_matter`` judgments) finds the
    issue's own words; a judgment whose holdings use none of them is off the issue."""
    spans = [_holding_spans(h) for _, h in judgments]
    if not issue.strip():
        return [None] * len(judgments)
    own = (
        distinctive_tokens(issue, share)
        if share is not None and judgments_in_matter >= OWN_WORDS_MIN_JUDGMENTS
        else set()
    )
    sentences = [
        " ".join(text[a:b].split())
        for (text, _), ss in zip(judgments, spans, strict=True)
        for a, b, _p in ss
    ]
    scores: list[float]
    if embedder is not None and sentences:
        vectors = embedder.encode([issue, *sentences])
        scores = [float(v) for v in vectors[1:] @ vectors[0]]
        by, floor = "embeddings", ON_ISSUE_MIN_COSINE
    else:
        wanted = _content(issue)
        scores = [len(wanted & _content(s)) / max(1, len(wanted)) for s in sentences]
        by, floor = "words", ON_ISSUE_MIN_SHARE
    out: list[HoldingMatch | None] = []
    i = 0
    for (text, _), ss in zip(judgments, spans, strict=True):
        best: HoldingMatch | None = None
        uses_own = not own or any(own & set(tokenize(text[a:b])) for a, b, _p in ss)
        for a, b, paragraph in ss:
            score = scores[i]
            i += 1
            if best is None or score > best.score:
                best = HoldingMatch(
                    quote_of(text, a, b),
                    a,
                    b,
                    paragraph,
                    round(score, 4),
                    by,
                    score >= floor
                    and (uses_own or (by == "embeddings" and score >= OWN_WORDS_WAIVED_AT)),
                )
        out.append(best)
    return out
