"""Judgment-level ranking for precedent retrieval (AILA-style prior cases, ``unit: document``).

A question here is usually a long statement of facts, and the answer is a list of judgments, not
passages. Ranking judgments by their single best passage (what ``rank_documents`` did before)
favours long judgments with one lucky paragraph and loses what the judgment as a whole says.
This module ranks judgments by a weighted sum of evidence, each piece scaled to [0, 1] over the
question's candidates:

- ``judgment_bm25``: BM25 over the whole judgment (the passages' tokens added up per judgment),
  queried with the question's most informative content words (at most ``Weights.terms`` distinct
  terms, by query frequency × idf) so that the dozens of ordinary words of a fact statement do
  not drown its few telling ones;
- ``passage_best`` / ``passage_mean``: the judgment's best passage BM25 score and the mean of its
  best ``TOP_PASSAGES`` (the question's tokens, as the passage ranking uses them);
- ``dense_best`` / ``dense_mean``: the same over embedding cosines (each window of the question
  against the passage, the best window counting). Only the best ``TOP_PASSAGES`` lexical
  passages of the ``DENSE_DOCS`` leading candidates are embedded, lazily, and their vectors are
  cached with the documents, so a corpus of thousands of judgments never needs embedding whole;
- from the case card (read as ``research.judgments`` reads it, stored per judgment in
  the index cache folder): ``card``, the statutes and sections the question cites that the
  judgment also cites ("Section 302 IPC", "Article 21"), each weighted by its rarity in the
  corpus (idf); ``cited_by``, how many judgments of the corpus cite this one (its cited cases
  linked to case names and report years, ``citation_links``): an authority that others rely on
  is more likely to be relied on again; and ``time``, a penalty for a judgment decided after
  the latest year the facts mention (a precedent comes before the case that cites it).

The weights (``WEIGHTS``) were chosen by 5-fold cross-validation on a citation check built from
public data (``scripts/eval_precedent.py``: AILA case documents that cite other case documents,
the citing judgment's facts as the question and the judgments it cites as the answer), never on
the ten AILA dev queries. ``rank_judgment_bm25`` is whole-judgment BM25 alone (every content
token of the question), kept measurable as the ``judgment-bm25`` strategy.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import threading
import weakref
from collections import Counter
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from legalnav.research.judgments import (
    case_name_key,
    cases_cited,
    names_match,
    paragraphs,
    statutes_cited,
)
from legalnav.research.judgments.header import decided
from legalnav.retrieval.bm25 import BM25
from legalnav.retrieval.engine import Corpus, Hit, Retrieval, query_tokens

CANDIDATES = 200  # judgments kept from each lexical ranking before the evidence is fused
CANDIDATE_PASSAGES = 500  # plus the judgments of the best passages
CANDIDATE_CAPS = (
    0,
    100,
)  # query-term caps of the whole-judgment BM25 rankings candidates come from
TOP_PASSAGES = 3  # passages per judgment in the "mean" features and in the dense evidence
DENSE_DOCS = 30  # leading candidates whose best passages are embedded for the dense evidence
WINDOW_WORDS = 150  # a question window for the embedding model (about 200 of its 256 tokens)
WINDOW_OVERLAP = 30
CARD_VERSION = 3  # of the cards stored per judgment (see CardStore)

FEATURES = (
    "judgment_bm25",
    "passage_best",
    "passage_mean",
    "dense_best",
    "dense_mean",
    "card",
    "cited_by",
    "time",
)


@dataclass(frozen=True, slots=True)
class Weights:
    judgment_bm25: float = 1.0
    passage_best: float = 0.0
    passage_mean: float = 0.0
    dense_best: float = 0.0
    dense_mean: float = 0.0
    card: float = 0.0
    cited_by: float = 0.0
    time: float = 0.0
    terms: int = 0  # distinct query terms for judgment_bm25 (0: every content token)

    def of(self, feature: str) -> float:
        return float(getattr(self, feature))

    @property
    def dense(self) -> bool:
        return bool(self.dense_best or self.dense_mean)

    def as_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


# Fitted by scripts/eval_precedent.py on the AILA citation check (262 questions over 2,614
# judgments): coordinate ascent on MAP, 5-fold cross-validation for the figures, then all the
# questions for the weights. Held-out MAP 0.181 (folds 0.140-0.249) against 0.108 for
# whole-judgment BM25. With the dense evidence allowed as well, 0.170 (folds 0.142-0.223): no
# better, and it embeds up to 90 passages a question, so the default leaves it out
# (DENSE_WEIGHTS, the "judgments-dense" strategy, keeps it measurable). Without cited_by
# held-out MAP falls to 0.139, without time to 0.148, without both to 0.113; the card's
# statutes are neutral there (0.185 without).
WEIGHTS = Weights(
    judgment_bm25=1.0,
    passage_best=0.25,
    passage_mean=0.5,
    card=0.25,
    cited_by=1.0,
    time=0.5,
    terms=100,
)

# The same fit with the dense evidence allowed (all 262 questions).
DENSE_WEIGHTS = Weights(
    judgment_bm25=2.0,
    passage_mean=1.0,
    dense_mean=1.0,
    cited_by=2.0,
    time=0.5,
    terms=30,
)

# The dense evidence re-scores the leading candidates of the default ranking.
LEAD_WEIGHTS = WEIGHTS


# -- whole-judgment BM25 ---------------------------------------------------------------------


class JudgmentBM25(BM25):
    """Okapi BM25 over whole judgments (the same k1, b and idf floor as the passage index),
    built by adding up the passage index's postings per judgment instead of tokenizing the text
    again."""

    def __init__(self, passages: BM25, first: np.ndarray) -> None:
        self.k1, self.b, self.epsilon = passages.k1, passages.b, passages.epsilon
        size = len(first) - 1
        doc_of = np.repeat(np.arange(size), np.diff(first))
        postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for term, (ids, tfs) in passages.postings.items():
            docs = doc_of[ids]  # ids ascend, so documents do too
            if docs.size == 1:
                postings[term] = (docs, tfs)
                continue
            starts = np.flatnonzero(np.r_[True, docs[1:] != docs[:-1]])
            postings[term] = (docs[starts], np.add.reduceat(tfs, starts))
        self._index(postings, np.bincount(doc_of, weights=passages.doc_len, minlength=size))

    def informative(self, question: str, cap: int) -> list[str]:
        """The question's ``cap`` most informative distinct content words (query frequency ×
        idf, ties by the word), or all its content tokens when ``cap`` is 0."""
        tokens = query_tokens(question)
        if cap <= 0:
            return tokens
        counts = Counter(t for t in tokens if len(t) > 1 and t in self.idf)
        ranked = sorted(counts, key=lambda t: (-counts[t] * self.idf[t], t))
        return ranked[:cap]


# -- the case card -----------------------------------------------------------------------------

_YEAR = re.compile(r",?\s*\b(1[89]\d{2}|20\d{2})\b")
_NON_WORD = re.compile(r"[^a-z0-9]+")
_SECTION_BASE = re.compile(r"^(article\s*)?(\d{1,4}[a-z]?)", re.I)
_COURT_AFTER_NAME = re.compile(
    r"\s+(?:Supreme Court|High Court|Court of Appeal|In the (?:Supreme|High) Court)\b", re.I
)
_REPORT_YEAR = re.compile(r"\b(1[89]\d\d|20[0-4]\d)\b")


def _act_key(name: str) -> str:
    """ "Indian Penal Code, 1860" -> "penal code"; "Constitution of India" -> "constitution"."""
    bare = _YEAR.sub("", name.lower())
    bare = re.sub(r"^(?:the|indian)\s+", "", bare.strip())
    bare = " ".join(_NON_WORD.sub(" ", bare).split())
    return "constitution" if bare.startswith("constitution") else bare


def statute_keys(text: str) -> frozenset[str]:
    """The statutes a text cites ("penal code") and their sections ("penal code|302",
    "constitution|article 21"), from the same reading as the case card's."""
    keys: set[str] = set()
    for cited in statutes_cited(text, []):
        act = _act_key(cited.name)
        if not act or len(act) < 3:
            continue
        keys.add(act)
        for section in cited.sections:
            m = _SECTION_BASE.match(section.strip())
            if m:
                prefix = "article " if m.group(1) else ""
                keys.add(f"{act}|{prefix}{m.group(2).lower()}")
    return frozenset(keys)


@dataclass(frozen=True, slots=True)
class Card:
    """What ranking reads of a judgment's case card: the statute keys, its case name and year,
    and the cases it cites (name, years of the reports cited for it)."""

    statutes: frozenset[str]
    name: str = ""
    year: int | None = None
    cites: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def as_json(self) -> str:
        return json.dumps(
            {
                "statutes": sorted(self.statutes),
                "name": self.name,
                "year": self.year,
                "cites": [[n, list(y)] for n, y in self.cites],
            }
        )

    @classmethod
    def from_json(cls, raw: str) -> Card:
        data = json.loads(raw)
        return cls(
            frozenset(data["statutes"]),
            data["name"],
            data["year"],
            tuple((n, tuple(y)) for n, y in data["cites"]),
        )


def read_card(text: str) -> Card:
    """The card of a judgment's text, read as ``case_card`` reads it (the case name is the first
    line, up to the court's name when the header is run together)."""
    paras = paragraphs(text)
    body = next((p.start for p in paras if p.numbered), 0)
    header = text[: body or min(len(text), 4000)]
    first = next((ln.strip() for ln in header.split("\n") if ln.strip()), "")
    name = " ".join(_COURT_AFTER_NAME.split(first, maxsplit=1)[0].split())[:300]
    when = decided(header)
    cites = []
    for case in cases_cited(text, paras):
        if case.name and case.name != case.citation and case.citation:
            years = tuple(sorted({int(y) for y in _REPORT_YEAR.findall(case.citation)}))
            if years:
                cites.append((case.name, years))
    return Card(statute_keys(text), name, when.year if when else None, tuple(cites))


def citation_links(cards: list[Card]) -> list[set[int]]:
    """For each judgment, the judgments of the same list it cites: a cited name that matches
    exactly one judgment's case name (``names_match``, strict) decided within a year of a
    report cited for it. One link per (citing, cited) pair."""
    by_word: dict[str, set[int]] = {}
    for i, card in enumerate(cards):
        left, right = case_name_key(card.name)
        for w in left | right:
            by_word.setdefault(w, set()).add(i)
    out: list[set[int]] = []
    for i, card in enumerate(cards):
        cited: set[int] = set()
        for name, years in card.cites:
            left, right = case_name_key(name)
            words = left | right
            if not words:
                continue
            pool = set.intersection(*(by_word.get(w, set()) for w in words))
            found = [
                j
                for j in pool
                if j != i
                and cards[j].year is not None
                and any(abs(int(cards[j].year) - y) <= 1 for y in years)  # type: ignore[arg-type]
                and names_match(name, cards[j].name)
            ]
            if len(found) == 1:
                cited.add(found[0])
        out.append(cited)
    return out


class CardStore:
    """Each judgment's card by content hash, in one SQLite file of the index cache folder
    (reading the cards of 2,914 judgments takes a few minutes, once)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def _db(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS cards (sha TEXT NOT NULL, version INTEGER NOT NULL, "
            "card TEXT NOT NULL, PRIMARY KEY (sha, version)) WITHOUT ROWID"
        )
        return conn

    def get_many(self, shas: list[str]) -> dict[str, Card]:
        found: dict[str, Card] = {}
        with self._lock:
            conn = self._db()
            try:
                for i in range(0, len(shas), 500):
                    chunk = shas[i : i + 500]
                    marks = ",".join("?" * len(chunk))
                    rows = conn.execute(
                        f"SELECT sha, card FROM cards WHERE version = ? AND sha IN ({marks})",
                        [CARD_VERSION, *chunk],
                    )
                    for sha, raw in rows:
                        found[sha] = Card.from_json(raw)
            finally:
                conn.close()
        return found

    def put_many(self, items: dict[str, Card]) -> None:
        if not items:
            return
        with self._lock:
            conn = self._db()
            try:
                conn.executemany(
                    "INSERT OR REPLACE INTO cards VALUES (?, ?, ?)",
                    [(sha, CARD_VERSION, card.as_json()) for sha, card in items.items()],
                )
                conn.commit()
            finally:
                conn.close()


# -- per-corpus judgment index ---------------------------------------------------------------


class JudgmentIndex:
    """What judgment ranking needs of a corpus beyond its passage index, built on first use:
    the passage rows of each judgment, whole-judgment BM25, the case cards and how often each
    judgment is cited by the others."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        counts = [len(d.passages) for d in corpus.docs]
        self.first = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self._bm25: JudgmentBM25 | None = None
        self._cards: list[Card] | None = None
        self._statute_idf: dict[str, float] = {}
        self._cited_by: np.ndarray | None = None
        self._years: np.ndarray | None = None
        self._lock = threading.Lock()

    @property
    def bm25(self) -> JudgmentBM25:
        if self._bm25 is None:
            self._bm25 = JudgmentBM25(self.corpus.bm25, self.first)
        return self._bm25

    def _text(self, d: int) -> str:
        """The judgment's passages, run together: what the index keeps of its text (the cards
        read from it link the AILA citations as the original text does, 1,204 of 1,212)."""
        return "\n\n".join(p.text for p in self.corpus.docs[d].passages)

    @property
    def cards(self) -> list[Card]:
        with self._lock:
            if self._cards is None:
                docs = self.corpus.docs
                cache = self.corpus.cache
                store = CardStore(cache.folder / "judgment-cards.sqlite3") if cache else None
                known = store.get_many([d.sha256 for d in docs]) if store is not None else {}
                fresh: dict[str, Card] = {}
                out = []
                for i, d in enumerate(docs):
                    card = known.get(d.sha256) or fresh.get(d.sha256)
                    if card is None:
                        card = fresh[d.sha256] = read_card(self._text(i))
                    out.append(card)
                if store is not None:
                    store.put_many(fresh)
                df = Counter(k for card in out for k in card.statutes)
                n = len(out)
                self._statute_idf = {k: math.log((n + 1) / (c + 0.5)) for k, c in df.items()}
                cited_by = np.zeros(n)
                for targets in citation_links(out):
                    for j in targets:
                        cited_by[j] += 1
                self._cited_by = cited_by
                self._years = np.array([c.year or 0 for c in out], dtype=np.int64)
                self._cards = out
            return self._cards

    def card_scores(self, question: str, docs: np.ndarray) -> dict[str, np.ndarray]:
        """Card evidence for each candidate: ``card`` (Σ idf of the statute keys, Acts and
        sections, the question shares with it), ``cited_by`` (log of 1 + how many judgments of
        the corpus cite it) and ``time`` (minus the years by which it postdates the latest year
        the question mentions, past a year's grace, at most 10; 0 when the question names no
        year: a precedent is decided before the facts it is cited for)."""
        cards = self.cards
        assert self._cited_by is not None and self._years is not None
        asked = statute_keys(question)
        card = np.zeros(docs.size)
        if asked:
            for j, d in enumerate(docs.tolist()):
                shared = asked & cards[d].statutes
                if shared:
                    card[j] = sum(self._statute_idf.get(k, 0.0) for k in shared)
        cited_by = np.log1p(self._cited_by[docs])
        years = [int(y) for y in _REPORT_YEAR.findall(question) if 1900 <= int(y) <= 2100]
        time_ = np.zeros(docs.size)
        if years:
            later = self._years[docs] - (max(years) + 1)
            time_ = -np.clip(later, 0, 10).astype(np.float64)
            time_[self._years[docs] == 0] = 0.0
        return {"card": card, "cited_by": cited_by, "time": time_}


_INDEXES: weakref.WeakKeyDictionary[Corpus, JudgmentIndex] = weakref.WeakKeyDictionary()
_INDEX_LOCK = threading.Lock()


def judgment_index(corpus: Corpus) -> JudgmentIndex:
    with _INDEX_LOCK:
        index = _INDEXES.get(corpus)
        if index is None:
            index = _INDEXES[corpus] = JudgmentIndex(corpus)
        return index


# -- evidence --------------------------------------------------------------------------------


def query_windows(question: str) -> list[str]:
    """The question cut into overlapping windows of WINDOW_WORDS words (one when it fits): a
    statement of facts is longer than the embedding model reads."""
    parts = question.split()
    if len(parts) <= WINDOW_WORDS:
        return [question]
    step = WINDOW_WORDS - WINDOW_OVERLAP
    return [
        " ".join(parts[i : i + WINDOW_WORDS])
        for i in range(0, max(1, len(parts) - WINDOW_OVERLAP), step)
    ]


@dataclass(slots=True)
class Evidence:
    """Raw evidence for the candidate judgments of one question (one row per candidate)."""

    docs: np.ndarray  # candidate judgment positions
    features: dict[str, np.ndarray]  # feature name (and "judgment_bm25@<cap>") -> raw values
    best_row: np.ndarray  # the corpus row of each candidate's best passage (-1: none)


def _scaled(values: np.ndarray) -> np.ndarray:
    """Min-max over the candidates (0 where all are equal)."""
    if values.size == 0:
        return values
    lo, hi = float(values.min()), float(values.max())
    if hi - lo <= 1e-12:
        return np.zeros_like(values, dtype=np.float64)
    return (values - lo) / (hi - lo)


def gather(
    corpus: Corpus,
    question: str,
    *,
    caps: tuple[int, ...] = (WEIGHTS.terms,),
    dense: bool = True,
    candidates: int = CANDIDATES,
    dense_docs: int = DENSE_DOCS,
) -> Evidence:
    """The evidence for ``question``'s candidate judgments: the best ``candidates`` by
    whole-judgment BM25 (every content token, and the CANDIDATE_CAPS most informative terms)
    and the judgments of the best CANDIDATE_PASSAGES passages. ``judgment_bm25`` is reported
    for each term cap in ``caps`` (and those), as ``judgment_bm25@<cap>``; dense evidence is
    left out when ``dense`` is false or the corpus has no embedder."""
    index = judgment_index(corpus)
    n_docs = len(corpus.docs)
    if not corpus.size or not n_docs:
        return Evidence(np.zeros(0, dtype=np.int64), {}, np.zeros(0, dtype=np.int64))
    caps = tuple(dict.fromkeys((*CANDIDATE_CAPS, *caps, LEAD_WEIGHTS.terms)))
    judged = {cap: index.bm25.scores(index.bm25.informative(question, cap)) for cap in caps}
    passage = corpus.bm25.scores(query_tokens(question))
    chosen: set[int] = set()
    for cap in CANDIDATE_CAPS:  # the same candidates whatever the weights
        chosen.update(_top_ids(judged[cap], candidates))
    owner = corpus.owner
    for row in _top_ids(passage, CANDIDATE_PASSAGES):
        chosen.add(owner[row][0])
    docs = np.array(sorted(d for d in chosen if index.first[d + 1] > index.first[d]), np.int64)
    features: dict[str, np.ndarray] = {
        f"judgment_bm25@{cap}": scores[docs] for cap, scores in judged.items()
    }
    best = np.zeros(docs.size)
    mean = np.zeros(docs.size)
    best_row = np.full(docs.size, -1, dtype=np.int64)
    top_rows: list[np.ndarray] = []
    for j, d in enumerate(docs.tolist()):
        a, b = int(index.first[d]), int(index.first[d + 1])
        local = passage[a:b]
        n = min(TOP_PASSAGES, local.size)
        order = np.argsort(-local, kind="stable")[:n]
        best[j] = local[order[0]]
        mean[j] = local[order].mean()
        best_row[j] = a + int(order[0])
        top_rows.append(a + order)
    features["passage_best"] = best
    features["passage_mean"] = mean
    features.update(index.card_scores(question, docs))
    if dense and corpus.embedder is not None and docs.size:
        # The leading candidates by the other evidence are the ones whose passages are embedded.
        lead = fused_scores(Evidence(docs, features, best_row), LEAD_WEIGHTS)
        leaders = np.argsort(-lead, kind="stable")[:dense_docs]
        rows = np.unique(np.concatenate([top_rows[j] for j in leaders.tolist()]))
        corpus.ensure_vectors(rows)
        vectors = np.vstack([corpus.docs[owner[r][0]].vectors[owner[r][1]] for r in rows.tolist()])
        asked = corpus.embedder.encode(query_windows(question))
        cosine = (vectors @ asked.T).max(axis=1)
        embedded = vectors.any(axis=1)  # skipped passages (signatures, furniture) hold zeros
        by_row = {int(r): float(c) for r, c, e in zip(rows, cosine, embedded, strict=True) if e}
        dense_best = np.zeros(docs.size)
        dense_mean = np.zeros(docs.size)
        has = np.zeros(docs.size, dtype=bool)
        for j in leaders.tolist():
            values = [by_row[int(r)] for r in top_rows[j] if int(r) in by_row]
            if values:
                has[j] = True
                dense_best[j] = max(values)
                dense_mean[j] = float(np.mean(values))
                best_row[j] = max(
                    (int(r) for r in top_rows[j] if int(r) in by_row), key=lambda r: by_row[r]
                )
        if has.any():
            # Candidates without dense evidence score as the lowest that has it.
            dense_best[~has] = dense_best[has].min()
            dense_mean[~has] = dense_mean[has].min()
        features["dense_best"] = dense_best
        features["dense_mean"] = dense_mean
    return Evidence(docs, features, best_row)


def fused_scores(evidence: Evidence, weights: Weights) -> np.ndarray:
    """Σ weight × min-max scaled evidence, over the candidates."""
    total = np.zeros(evidence.docs.size)
    for feature in FEATURES:
        w = weights.of(feature)
        if not w:
            continue
        key = f"judgment_bm25@{weights.terms}" if feature == "judgment_bm25" else feature
        values = evidence.features.get(key)
        if values is None:
            continue
        total += w * _scaled(values)
    return total


def _top_ids(scores: np.ndarray, n: int) -> list[int]:
    n = min(n, scores.size)
    if n <= 0:
        return []
    part = np.argpartition(-scores, n - 1)[:n]
    return [int(i) for i in part if scores[i] > 0]


def _hits(corpus: Corpus, ranked: list[tuple[int, float, int]]) -> list[Hit]:
    hits = []
    for d, score, row in ranked:
        if row < 0:
            hits.append(Hit(d, 0, corpus.docs[d].length, score))
            continue
        passage = corpus.passage(row)
        hits.append(Hit(d, passage.start, passage.end, score, passage.node, passage.text))
    return hits


def rank_judgments(
    corpus: Corpus,
    question: str,
    k: int,
    *,
    weights: Weights = WEIGHTS,
    strategy: str = "judgments",
) -> Retrieval:
    """The ``k`` best judgments for a statement of facts, one hit per judgment (its best
    passage as the range), by the fused evidence. Past the candidates, the rest follow by
    whole-judgment BM25."""
    evidence = gather(corpus, question, caps=(weights.terms,), dense=weights.dense)
    scores = fused_scores(evidence, weights)
    order = sorted(range(evidence.docs.size), key=lambda j: (-scores[j], int(evidence.docs[j])))
    ranked = [
        (int(evidence.docs[j]), float(scores[j]), int(evidence.best_row[j])) for j in order[:k]
    ]
    if len(ranked) < k:
        ranked += _rest(corpus, question, k - len(ranked), {d for d, _, _ in ranked})
    hits = _hits(corpus, ranked)
    return Retrieval(hits, sum(h.end - h.start for h in hits), f"documents:{strategy}")


def _rest(corpus: Corpus, question: str, n: int, seen: set[int]) -> list[tuple[int, float, int]]:
    """More judgments for a large k, scoring below every fused one: by whole-judgment BM25, then
    those with no lexical evidence in document order (a document ranking lists every document
    that k allows, as a ranking by best passage did)."""
    index = judgment_index(corpus)
    scores = index.bm25.scores(query_tokens(question))
    top = float(scores.max()) if scores.size else 0.0
    out = []
    for d in sorted(range(scores.size), key=lambda i: (-scores[i], i)):
        if len(out) >= n:
            break
        if d in seen or index.first[d + 1] == index.first[d]:
            continue
        # Its opening passage stands for it: a range, not the whole judgment, is sent.
        out.append((d, -1.0 + max(float(scores[d]), 0.0) / (1.0 + top), int(index.first[d])))
    return out


def rank_judgment_bm25(corpus: Corpus, question: str, k: int) -> Retrieval:
    """Whole-judgment BM25 alone (every content token of the question, repeats counting), one hit
    per judgment with its best BM25 passage as the range: the baseline, measurable as the
    ``judgment-bm25`` strategy."""
    index = judgment_index(corpus)
    scores = index.bm25.scores(query_tokens(question))
    passage = corpus.bm25.scores(query_tokens(question))
    ranked = []
    for d in sorted(_top_ids(scores, k), key=lambda i: (-scores[i], i)):
        a, b = int(index.first[d]), int(index.first[d + 1])
        row = a + int(np.argmax(passage[a:b])) if b > a else -1
        ranked.append((d, float(scores[d]), row))
    hits = _hits(corpus, ranked)
    return Retrieval(hits, sum(h.end - h.start for h in hits), "documents:judgment-bm25")


def rank_for_strategy(corpus: Corpus, question: str, k: int, strategy: str) -> Retrieval:
    """The judgment ranking ``retrieval.engine.rank_documents`` asks for (registered with it in
    ``ResearchConfig.ready()``): ``judgment-bm25`` is whole-judgment BM25 alone,
    ``judgments-dense`` the fused evidence with ``DENSE_WEIGHTS``, and every other strategy
    (``judgments``, and the product's modes navembed, navindex and auto) the fused evidence."""
    if strategy == "judgment-bm25":
        return rank_judgment_bm25(corpus, question, k)
    if strategy == "judgments-dense":
        return rank_judgments(corpus, question, k, weights=DENSE_WEIGHTS, strategy=strategy)
    return rank_judgments(corpus, question, k)
