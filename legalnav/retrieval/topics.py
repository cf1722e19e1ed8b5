"""Clause topics: what a question asks about, and how much each passage looks like that kind of
provision.

A topic is a kind of provision lawyers ask about by name: a CUAD clause category (governing law,
cap on liability, anti-assignment …) or a ContractNLI hypothesis (the receiving party may not
reverse engineer …). For each one a small logistic model over the words and word pairs of a
passage and its heading path was trained on public contracts labelled by lawyers
(``scripts/train_topics.py``: CUAD's contracts outside the dev sample; the ContractNLI NDAs),
and only its strongest weights are kept, in ``topic_models/<name>.json``.

When a question names a topic (by its name, or in words close to the topic's own question),
navembed adds the model's probability for each candidate passage to the fused BM25 and dense
score, with the weight ``LEGALNAV_TOPIC_WEIGHT`` (fitted by cross-validation; 0 turns topics off).
A question about nothing the models know is ranked exactly as before.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings

from legalnav.retrieval.bm25 import tokenize

MODEL_DIR = Path(__file__).resolve().parent / "topic_models"
MATCH_THRESHOLD = 0.6  # cosine of a question to a topic's own question for a match by wording
VERBATIM = 0.9  # … and for a match that outranks a topic named in passing
NAMED_WORDS = 30  # a topic named in a longer text (a statement of facts) is only in passing

_STOP = frozenset(
    """a an and any are as at be been being by can could do does for from has have how if in into
    is it its may must no not of on or other shall should such than that the their them there
    these they this those to under upon was what when where whether which who will with would
    contract agreement party parties""".split()
)


def features(text: str) -> set[str]:
    """A passage's features: its (lightly stemmed) words and adjacent word pairs."""
    words = tokenize(text)
    return set(words) | {f"{a} {b}" for a, b in zip(words, words[1:], strict=False)}


@dataclass(frozen=True, slots=True)
class Topic:
    key: str
    question: str
    intercept: float
    weights: dict[str, float]
    aliases: tuple[str, ...] = ()

    def probabilities_of(self, feature_sets: Iterable[set[str]]) -> np.ndarray:
        """The model's probability for each passage, from its ``features`` (computed once by a
        caller that asks several topics about the same passages)."""
        logits = np.array(
            [self.intercept + sum(self.weights.get(f, 0.0) for f in fs) for fs in feature_sets],
            dtype=np.float64,
        )
        return 1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))

    def probabilities(self, texts: Iterable[str]) -> np.ndarray:
        return self.probabilities_of(features(t) for t in texts)


def _content(text: str) -> list[str]:
    return [w for w in tokenize(text) if w not in _STOP and not w.isdigit()]


def _prefix(word: str) -> str:
    """A word's first five letters: "terminated", "termination" and "terminate" meet."""
    return word[:5]


class TopicBook:
    """Every topic of the models in a folder, and the matching of a question to one of them."""

    def __init__(self, topics: Sequence[Topic]) -> None:
        self.topics = list(topics)
        self.by_key = {t.key: t for t in self.topics}
        self._keys = [
            (re.compile(rf"(?<![a-z]){re.escape(t.key.lower())}(?![a-z])"), t) for t in topics
        ]
        # Each topic is matched by its own question and its aliases (other wordings of it).
        phrases = [
            (i, f"{t.key} {phrase}")
            for i, t in enumerate(topics)
            for phrase in (t.question, *t.aliases)
        ]
        bags = [set(_content(f"{t.key} {' '.join((t.question, *t.aliases))}")) for t in topics]
        df: dict[str, int] = {}
        for bag in bags:
            for w in bag:
                df[w] = df.get(w, 0) + 1
        n = max(len(bags), 1)
        self._idf = {w: math.log(1 + n / c) for w, c in df.items()}
        self._vectors = [(i, self._vector(_content(text))) for i, text in phrases]
        self._key_words = [(t, {_prefix(w) for w in _content(t.key) if len(w) > 2}) for t in topics]

    def _vector(self, words: Iterable[str]) -> dict[str, float]:
        vec = {w: self._idf.get(w, 0.0) for w in set(words)}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {w: v / norm for w, v in vec.items() if v}

    def match(self, question: str) -> Topic | None:
        """The topic a question asks about: one it opens with ("Governing Law: …"), else one
        whose own question (or an alias) it nearly repeats, else the only one a short question
        names, else the one whose wording it is closest to (at least MATCH_THRESHOLD), else the
        only one whose key's words a short question uses in other inflections; None when
        nothing is close."""
        low = " ".join(question.lower().split())
        named = [(m.start(), t) for rx, t in self._keys if (m := rx.search(low))]
        for start, topic in named:
            if low[start + len(topic.key) : start + len(topic.key) + 1] == ":":
                return topic
        q = self._vector(_content(question))
        best, score = None, 0.0
        for i, vec in self._vectors:
            s = sum(v * vec.get(w, 0.0) for w, v in q.items())
            if s > score:
                best, score = self.topics[i], s
        if score >= VERBATIM:  # the topic's own question, or nearly
            return best
        if len(named) == 1 and len(low.split()) <= NAMED_WORDS:
            return named[0][1]
        if score >= MATCH_THRESHOLD:
            return best
        # Last, a key named in other inflections ("terminated for convenience"): every word.
        asked = {_prefix(w) for w in _content(question)}
        inflected = [t for t, words in self._key_words if len(words) >= 2 and words <= asked]
        if len(inflected) == 1 and len(low.split()) <= NAMED_WORDS:
            return inflected[0]
        return None


def load(path: Path) -> list[Topic]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [
        Topic(
            t["key"],
            t["question"],
            float(t["intercept"]),
            dict(t["weights"]),
            tuple(t.get("aliases", ())),
        )
        for t in data["topics"]
    ]


@functools.cache
def _book(folder: str, names: tuple[str, ...]) -> TopicBook:
    topics: list[Topic] = []
    for name in names:
        # A name is a model in the folder, or a path to one (cross-validation's fold models).
        path = Path(name) if name.endswith(".json") else Path(folder) / f"{name}.json"
        if path.exists():
            topics.extend(load(path))
    return TopicBook(topics)


def book() -> TopicBook:
    """The topics of the models the settings name (``LEGALNAV_TOPIC_MODELS``, in
    ``LEGALNAV_TOPIC_DIR``, default the shipped folder)."""
    folder = str(getattr(settings, "LEGALNAV_TOPIC_DIR", "") or MODEL_DIR)
    return _book(folder, tuple(n.strip() for n in settings.LEGALNAV_TOPIC_MODELS if n.strip()))


def topic_for(question: str) -> Topic | None:
    if settings.LEGALNAV_TOPIC_WEIGHT <= 0:
        return None
    return book().match(question)
