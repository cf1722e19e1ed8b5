"""Document targeting: which document of a matter a question names.

In a data room of a hundred contracts a lawyer names the one they mean: "In the Supply
Agreement between Acme and Bolt: …", "Under D12, …". Retrieval then ranks inside that document
(and its family: the amendments of an agreement travel with it) instead of across all of them.

Each document has a *name field*: its key (D12), title, kind, parties, effective date and the
opening words of its text (the title block and preamble, where an agreement names its parties).
The question's words are matched against every name field with IDF over the documents, so that
"Agreement" or "Inc" counts for almost nothing while a party's name counts for a lot; a document
is taken as named only when its score clears an absolute threshold and beats the runner-up by a
clear margin. Anything less names nothing, and retrieval runs exactly as before.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from legalnav.retrieval.bm25 import tokenize

OPENING_CHARS = 1200  # the title block and preamble: where an agreement names its parties
# Thresholds in units of the weight of a word that only one family of documents holds (about 3.3
# among 40 contracts, 0.7 between two): a document is named when its name words found in the
# question weigh at least 1.5 such words (two distinctive words, a party's name and more, not a
# single stray one), at least 1.5 times the best other family and 0.9 of a word more than it.
NAMED_THRESHOLD = 0.95
NAMED_MARGIN = 1.5
NAMED_GAP = 0.9
# Documents within this share of the best score are named too (an agreement and a restatement
# between the same parties both match; both are searched).
NAMED_SHARE = 0.9

_KEY = re.compile(r"\b(D\d{1,7})\b")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’]*")
# Words that name a kind of document rather than one document.
_GENERIC = frozenset(
    """agreement contract amendment amend side letter document inc incorporated corporation corp
    llc ltd limited co company plc gmbh sa ag lp llp the and of between by among dated a an as at
    be for from in into is it its on or to this that what which who with under""".split()
)


@dataclass(frozen=True, slots=True)
class DocProfile:
    """What a question may name a document by."""

    key: str = ""  # "D12" in a matter; empty for an ad-hoc corpus
    title: str = ""
    kind: str = ""
    parties: tuple[str, ...] = ()
    effective_date: date | None = None
    opening: str = ""  # the first words of the text
    amends: int = -1  # corpus position of the document this one amends, -1 for none

    def name_text(self) -> str:
        dated = (
            f"{self.effective_date.year} {self.effective_date:%B}" if self.effective_date else ""
        )
        return " ".join(
            [self.title, self.kind.replace("_", " "), *self.parties, dated, self.opening]
        )


@dataclass(slots=True)
class Targeting:
    """The corpus positions the question names (with their families), best first."""

    documents: list[int] = field(default_factory=list)
    named: list[int] = field(default_factory=list)  # named directly, before family is added
    scores: dict[int, float] = field(default_factory=dict)
    by: str = ""  # "key", "name" or "title"; "" when nothing is named
    words: set[str] = field(default_factory=set)  # the question's tokens that named them

    def __bool__(self) -> bool:
        return bool(self.documents)

    def without_names(self, question: str) -> str:
        """The question without the words that named the document ("In the Supply Agreement
        between Acme and Bolt: what law governs?" -> "In the Agreement between and : what law
        governs?"). Inside the named document those words would only rank its title block
        first, where every one of them appears."""
        if not self.words:
            return question
        out = _WORD.sub(
            lambda m: "" if set(tokenize(m.group())) & self.words else m.group(), question
        )
        return " ".join(out.split())


def opening_text(passages: Sequence[object], limit: int = OPENING_CHARS) -> str:
    """The first ``limit`` characters of a document's passages (its title block and preamble)."""
    out, size = [], 0
    for p in passages:
        text = str(getattr(p, "text", ""))
        out.append(text[: limit - size])
        size += len(out[-1])
        if size >= limit:
            break
    return " ".join(out)


class DocumentTargeter:
    """Scores a question against the name fields of a fixed set of documents."""

    def __init__(
        self,
        profiles: Sequence[DocProfile],
        *,
        text_holders: Callable[[str], Iterable[int]] | None = None,
    ) -> None:
        """``text_holders(word)``: the positions of the documents whose full text holds the word.
        Without it, frequency counts only the name fields; with it, a word that is common in
        the documents' text ("audit", "renewal") weighs little even when one document's opening
        happens to use it, so that a question about audits names no document. Frequencies count
        families (an agreement with its amendments) rather than documents, so that an amendment
        repeating its agreement's parties does not make them look common."""
        self.profiles = list(profiles)
        self.text_holders = text_holders
        self.roots = [self._root(i) for i in range(len(self.profiles))]
        self.fields = [
            {t for t in tokenize(p.name_text()) if t not in _GENERIC and len(t) > 1}
            for p in self.profiles
        ]
        self.holders: dict[str, set[int]] = {}
        for i, words in enumerate(self.fields):
            for t in words:
                self.holders.setdefault(t, set()).add(self.roots[i])
        self.n = len(set(self.roots))
        self.unit = math.log(1 + (self.n - 0.5) / 1.5)  # a word only one family holds
        self._idf: dict[str, float] = {}
        self.keys = {p.key: i for i, p in enumerate(self.profiles) if p.key}
        # Each title's words without what is in brackets ("Development Agreement (Cargill /
        # BioAmber)" -> development agreement), for naming by title.
        self.titles = [tokenize(re.sub(r"\([^)]*\)", " ", p.title)) for p in self.profiles]

    def _root(self, i: int) -> int:
        seen = set()
        while 0 <= self.profiles[i].amends < len(self.profiles) and i not in seen:
            seen.add(i)
            i = self.profiles[i].amends
        return i

    def idf(self, word: str) -> float:
        """BM25's IDF over the families: a word that all of them hold weighs almost nothing."""
        found = self._idf.get(word)
        if found is None:
            families = set(self.holders.get(word, ()))
            if self.text_holders is not None:
                families |= {self.roots[d] for d in self.text_holders(word)}
            c = len(families)
            found = self._idf[word] = math.log(1 + (self.n - c + 0.5) / (c + 0.5))
        return found

    def scores(self, question: str) -> dict[int, float]:
        words = {t for t in tokenize(question) if t not in _GENERIC}
        out = {}
        for i, field_words in enumerate(self.fields):
            score = sum(self.idf(t) for t in words & field_words)
            if score > 0:
                out[i] = score
        return out

    def target(self, question: str) -> Targeting:
        if self.n < 2:
            return Targeting()  # one document, or one family: nothing to choose between
        keys = [k for k in dict.fromkeys(_KEY.findall(question)) if k in self.keys]
        keyed = [self.keys[k] for k in keys]
        keyed_words = {t for k in keys for t in tokenize(k)}
        if keyed:
            return Targeting(
                self.family(keyed), keyed, {i: math.inf for i in keyed}, "key", set(keyed_words)
            )
        scores = self.scores(question)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        if not ranked:
            return self.by_title(question)
        best = ranked[0][1]
        named = [i for i, s in ranked if s >= NAMED_SHARE * best]
        if len(named) > 3:
            return Targeting(scores=scores)  # a phrase that fits many documents names none
        # The runner-up is the best document outside the named ones' families: an amendment
        # that repeats its agreement's title and parties does not compete with it.
        documents = self.family(named)
        runner_up = next((s for i, s in ranked if i not in documents), 0.0)
        if (
            best < NAMED_THRESHOLD * self.unit
            or best < NAMED_MARGIN * runner_up
            or best - runner_up < NAMED_GAP * self.unit
        ):
            return self.by_title(question) or Targeting(scores=scores)
        asked = {t for t in tokenize(question) if t not in _GENERIC}
        words = {
            t
            for i in named
            for t in asked & self.fields[i]
            if self.idf(t) >= 0.5 * self.unit  # distinctive: a name, not a common word
        }
        return Targeting(documents, named, scores, "name", words)

    def by_title(self, question: str) -> Targeting:
        """A document named by its title as a phrase ("what law governs the development
        agreement?"), when its words alone weigh too little to name it (words the other
        documents also use). The longest title the question holds wins; titles of more than
        three families name none."""
        asked = tokenize(question)
        text = f" {' '.join(asked)} "
        found: dict[int, int] = {}
        for i, words in enumerate(self.titles):
            if len(words) >= 2 and set(words) - _GENERIC and f" {' '.join(words)} " in text:
                found[i] = len(words)
        if not found:
            return Targeting()
        longest = max(found.values())
        named = [i for i, n in found.items() if n == longest]
        if len({self.roots[i] for i in named}) > 3:
            return Targeting()
        words = {t for i in named for t in self.titles[i] if t not in _GENERIC}
        return Targeting(self.family(named), named, {i: 0.0 for i in named}, "title", words)

    def family(self, named: list[int]) -> list[int]:
        """The named documents, then their families: the agreement an amendment amends, and
        every amendment of it (transitively), in corpus order after the named ones."""

        roots = {self.roots[i] for i in named}
        kin = [i for i in range(len(self.profiles)) if self.roots[i] in roots and i not in named]
        return list(named) + kin
