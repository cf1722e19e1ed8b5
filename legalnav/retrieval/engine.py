"""Retrieval over a set of documents: BM25, dense, hybrid (RRF + metadata boost), cross-reference
expansion, and the offline navindex planner; inject and auto on top.

Everything here works on ``DocIndex`` objects (see ``index.py``) and returns character ranges in
the documents, so the same code serves the product and the ``retrieve --json`` measurement door.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

from legalnav.retrieval.bm25 import BM25, tokenize
from legalnav.retrieval.embeddings import Embedder
from legalnav.retrieval.evidence import (
    EvidenceParams,
    Unit,
    evidence_ranges,
    lexical_scores,
    unit_vectors,
    units_of,
)
from legalnav.retrieval.index import DocIndex, IndexCache
from legalnav.retrieval.passages import skip_embedding
from legalnav.retrieval.pooled import embed_passages, pooled_key
from legalnav.retrieval.rerank import RERANK_DEPTH, Reranker
from legalnav.retrieval.targeting import DocProfile, DocumentTargeter, Targeting, opening_text
from legalnav.retrieval.topics import topic_for
from legalnav.retrieval.vector_cache import passage_key

logger = logging.getLogger(__name__)

# A vector store search: (question vector, how many) -> [(passage row, cosine score)], best first.
VectorSearch = Callable[[np.ndarray, int], list[tuple[int, float]]]

RRF_K = 60
NAVINDEX_CAP = 10  # the study's hard cap on selected nodes
FUSION_DEPTH = 100
DENSE_FULL_LIMIT = 20000  # above this many passages, dense scores only BM25's best candidates
DENSE_CANDIDATES = 400
DEFINITION_BUDGET = 3000  # characters of definitions added to a navembed payload
XREF_BUDGET = 4000  # characters of cross-referenced provisions added by expansion / S2 fetch
SUBTREE_LIMIT = 6000  # a selected heading is read with its sub-clauses up to this size

_QUERY_STOP = frozenset(
    """a an and any are as at be been being by can could did do does for from has have how i if in
    into is it its may me must my no not of on or our shall should so such than that the their
    them then there these they this those to under up upon us was we were what when where which
    while who whom whose why will with would you your""".split()
)

# The planner's flag routing (the study's S1 table), by words in the question.
_FLAG_ROUTES = [
    (
        "hasMoney",
        re.compile(
            r"\b(?:amount|fees?|price|payment|pay|paid|costs?|compensation|dollars?|royalt|\$|purchase price|consideration)",
            re.I,
        ),
    ),
    (
        "hasDate",
        re.compile(
            r"\b(?:date|when|deadline|days?|months?|years?|term|expir|renew|notice period|period|anniversary|until)",
            re.I,
        ),
    ),
    (
        "hasPercentage",
        re.compile(r"\b(?:percent|percentage|rate|interest|margin|%|share of)", re.I),
    ),
    ("hasLiabilityLimit", re.compile(r"\b(?:liabilit|liable|cap|damages|indemn|limitation)", re.I)),
    (
        "hasCondition",
        re.compile(r"\b(?:condition|if |unless|subject to|trigger|precedent|event of)", re.I),
    ),
    ("isDefinition", re.compile(r"\b(?:defin|meaning|means|what is an?|what does)", re.I)),
    (
        "hasParty",
        re.compile(
            r"\b(?:part(?:y|ies)|who |licensor|licensee|borrower|lender|buyer|seller|tenant|landlord)",
            re.I,
        ),
    ),
]


# Questions about the instrument as a whole (its name, parties, date) are answered by its opening
# words: the title block and preamble of every agreement.
_ABOUT_DOCUMENT = re.compile(
    r"\b(?:parties who (?:signed|executed|entered)|who signed|signator(?:y|ies) to|"
    r"who are the parties|parties to (?:the|this) (?:agreement|contract)|between whom|"
    r"name of (?:the|this) (?:agreement|contract|document)|document name|title of (?:the|this)|"
    r"agreement date|date of (?:the|this) (?:agreement|contract)|effective date|when was .{0,40}signed)\b",
    re.I,
)


def about_document(question: str) -> bool:
    return bool(_ABOUT_DOCUMENT.search(question))


def query_tokens(question: str) -> list[str]:
    return [t for t in tokenize(question) if t not in _QUERY_STOP]


def routed_flags(question: str) -> list[str]:
    return [flag for flag, rx in _FLAG_ROUTES if rx.search(question)]


@dataclass(slots=True)
class Hit:
    doc: int
    start: int
    end: int
    score: float
    node: int = -1
    text: str = ""  # the readable text of the range, when known (a passage's cleaned text)


@dataclass(slots=True)
class Retrieval:
    hits: list[Hit]
    payload_chars: int
    strategy: str
    notes: dict[str, object] = field(default_factory=dict)


class Corpus:
    """The passages and nodes of a set of documents, with lazily built lexical and dense indexes."""

    def __init__(
        self,
        docs: list[DocIndex],
        *,
        embedder: Embedder | None,
        cache: IndexCache | None = None,
        vector_search: VectorSearch | None = None,
        pairs: dict[tuple[int, int], list[tuple[int, int]]] | None = None,
        profiles: list[DocProfile] | None = None,
        texts: list[str] | None = None,
    ):
        self.docs = docs
        # The documents' text, when the caller has it: the evidence stage cuts passages into
        # sentence-sized ranges at exact offsets (without it, a passage is one range).
        self.texts = texts
        self.unit_memo: dict[bytes, np.ndarray] = {}  # unit vectors when there is no cache
        # What a question may name each document by (key, title, parties, date, family); an
        # ad-hoc corpus has only what its text says (see targeting.py).
        self.profiles = profiles
        self._targeter: DocumentTargeter | None = None
        # Amendment pairing, (document, node) -> [(document, node)] both ways: a provision of an
        # amendment and the provision of the amended document it changes. The planner reads
        # them together, so an answer never quotes a clause without what later changed it.
        self.pairs = pairs or {}
        self.embedder = embedder
        self.cache = cache
        # When set, dense rankings come from the vector store (Qdrant) over every passage;
        # otherwise from the cached vectors in memory (exact, and re-scoring BM25's candidates
        # only once a corpus passes DENSE_FULL_LIMIT passages).
        self.vector_search = vector_search
        self.owner: list[tuple[int, int]] = [
            (d, p) for d, doc in enumerate(docs) for p in range(len(doc.passages))
        ]
        self._bm25: BM25 | None = None
        self._matrix: np.ndarray | None = None  # all passage vectors, once all are embedded
        self._embedded_rows: tuple[np.ndarray, np.ndarray] | None = None  # see _embedded
        self._surface: BM25 | None = None
        self.node_owner: list[tuple[int, int]] = [
            (d, n) for d, doc in enumerate(docs) for n in range(len(doc.nodes))
        ]

    @property
    def size(self) -> int:
        return len(self.owner)

    def passage(self, i: int):  # type: ignore[no-untyped-def]
        d, p = self.owner[i]
        return self.docs[d].passages[p]

    @property
    def targeter(self) -> DocumentTargeter:
        if self._targeter is None:
            profiles = self.profiles or [
                DocProfile(title=d.title, kind=d.kind, opening=opening_text(d.passages))
                for d in self.docs
            ]
            self._targeter = DocumentTargeter(profiles, text_holders=self._documents_holding)
        return self._targeter

    def _documents_holding(self, word: str) -> set[int]:
        return {self.owner[r][0] for r in self.bm25.holding(word).tolist()}

    def document_share(self, token: str) -> float:
        """The share of the corpus's documents with ``token`` (a ``bm25.tokenize`` token)."""
        return len(self._documents_holding(token)) / max(1, len(self.docs))

    def subset(self, positions: list[int]) -> Corpus:
        """A corpus of some of these documents (same indexes and vectors), for ranking inside
        the documents a question names. Dense scores come from the vectors cached with the
        documents, not from the vector store, which holds the whole matter."""
        where = {d: j for j, d in enumerate(positions)}
        pairs = {
            (where[d], n): [(where[pd], pn) for pd, pn in partners if pd in where]
            for (d, n), partners in self.pairs.items()
            if d in where
        }
        return Corpus(
            [self.docs[d] for d in positions],
            embedder=self.embedder,
            cache=self.cache,
            pairs={key: value for key, value in pairs.items() if value},
            texts=[self.texts[d] for d in positions] if self.texts is not None else None,
        )

    # -- lexical --

    @property
    def bm25(self) -> BM25:
        if self._bm25 is None:
            self._bm25 = BM25(
                [tokenize(f"{p.context} {p.text}") for d in self.docs for p in d.passages]
            )
        return self._bm25

    @property
    def surface(self) -> BM25:
        """BM25 over what the navindex planner may read: headings, summaries, keywords."""
        if self._surface is None:
            self._surface = BM25(
                [
                    tokenize(f"{n.path} {n.summary} {' '.join(n.keywords)}")
                    for d in self.docs
                    for n in d.nodes
                ]
            )
        return self._surface

    def passages_with_all(self, terms: Sequence[str]) -> set[int]:
        """The rows of the passages whose lexical tokens (``tokenize``) include every term: a
        complete match, not a ranking (listing questions must miss nothing)."""
        rows: set[int] | None = None
        for term in terms:
            found = set(self.bm25.holding(term).tolist())
            rows = found if rows is None else rows & found
            if not rows:
                return set()
        return rows or set()

    # -- dense --

    def embedded(self, row: int) -> np.ndarray | None:
        """The passage's vector if this embedder has already computed it (None otherwise, and for
        a passage left unembedded, whose vector is zero), without embedding anything."""
        d, p = self.owner[row]
        doc = self.docs[d]
        if self.embedder is None or doc.vectors is None or doc.embedder != self.embedder.name:
            return None
        vector = doc.vectors[p]
        return None if np.isnan(vector[0]) or not vector.any() else vector

    def ensure_vectors(self, rows: np.ndarray | None = None) -> None:
        """Embed the passages among ``rows`` (default: all) that have no vector yet. Vectors are
        kept on their documents and in the cache's passage-vector store, so each passage text is
        embedded once."""
        assert self.embedder is not None
        if rows is None:
            rows = np.arange(self.size)
        missing: dict[int, list[int]] = {}
        skipped: set[int] = set()
        for i in rows.tolist():
            d, p = self.owner[i]
            doc = self.docs[d]
            if doc.vectors is None or doc.embedder != self.embedder.name:
                doc.vectors = np.full(
                    (len(doc.passages), self.embedder.dimension), np.nan, dtype=np.float32
                )
                doc.embedder = self.embedder.name
            if np.isnan(doc.vectors[p, 0]):
                if skip_embedding(doc.passages[p].text):
                    # A signature block, stray contents line or page furniture: a zero vector,
                    # which dense_scores never ranks (the passage stays in BM25).
                    doc.vectors[p] = 0.0
                    skipped.add(d)
                else:
                    missing.setdefault(d, []).append(p)
        if skipped:
            self._matrix = None
            if self.cache is not None:
                for d in skipped - missing.keys():
                    self.cache.mark_dirty(self.docs[d])
        if not missing:
            return
        texts, where = [], []
        for d, ps in missing.items():
            for p in ps:
                passage = self.docs[d].passages[p]
                texts.append(passage.indexed_text)
                where.append((d, p))
        keys = [passage_key(t) for t in texts]
        model = self.embedder.name
        # Passages whose text was embedded before (an earlier version of the document, the same
        # clause in another document) reuse that vector; only the others are embedded now.
        known = (
            self.cache.passages.get_many(model, keys, self.embedder.dimension)
            if self.cache is not None
            else {}
        )
        todo = [j for j, key in enumerate(keys) if key not in known]
        fresh, units = self._embed([where[j] for j in todo], [texts[j] for j in todo])
        computed = dict(zip((keys[j] for j in todo), fresh, strict=True))
        if self.cache is not None and computed:
            self.cache.passages.put_many(model, [*computed.items(), *units.items()])
        elif units:
            self.unit_memo.update(units)
        self._matrix = None
        for (d, p), key in zip(where, keys, strict=True):
            self.docs[d].vectors[p] = known[key] if key in known else computed[key]  # type: ignore[index]
        if self.cache is not None:
            for d in missing:
                self.cache.mark_dirty(self.docs[d])

    def _embed(
        self, where: list[tuple[int, int]], texts: list[str]
    ) -> tuple[list[np.ndarray], dict[bytes, np.ndarray]]:
        """The vectors of the passages at ``where`` (their indexed ``texts``) and, when the
        documents' text is at hand and the embedder gives token vectors, their units' vectors
        from the same pass (pooled.py), so that a grid never embeds a sentence of its own."""
        assert self.embedder is not None
        if not texts:
            return [], {}
        if self.texts is None or not hasattr(self.embedder, "encode_tokens"):
            return list(self.embedder.encode(texts)), {}
        passages = [self.docs[d].passages[p] for d, p in where]
        try:
            read = embed_passages(self.embedder, passages, [self.texts[d] for d, _ in where])
        except ValueError:  # tokens the offsets cannot place: the passages' vectors still count
            logger.exception("reading sentence vectors off the passages' pass failed")
            return list(self.embedder.encode(texts)), {}
        units = {pooled_key(p): r.units for p, r in zip(passages, read, strict=True)}
        return [r.vector for r in read], units

    def passage_matrix(self) -> np.ndarray:
        """Every passage's vector, one row per corpus row (embedding those still missing),
        stacked once and kept until a new vector arrives."""
        assert self.embedder is not None
        if not self.size:
            return np.zeros((0, self.embedder.dimension), dtype=np.float32)
        self.ensure_vectors()
        if self._matrix is None:
            self._matrix = np.vstack(
                [d.vectors for d in self.docs if len(d.passages) and d.vectors is not None]
            )
        return self._matrix

    def _embedded(self, matrix: np.ndarray) -> np.ndarray:
        """Which rows of ``matrix`` hold a vector (not a skipped passage's zeros); kept for the
        stacked corpus matrix, where scanning it each question costs a quarter of the product
        with the question (20k passages)."""
        if matrix is not self._matrix:
            return matrix.any(axis=1)
        if self._embedded_rows is None or self._embedded_rows[0] is not matrix:
            self._embedded_rows = (matrix, matrix.any(axis=1))
        return self._embedded_rows[1]

    def dense_scores(
        self, question: str, candidates: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cosine scores). All passages for a modest corpus; otherwise the candidates."""
        assert self.embedder is not None
        if candidates is None or self.size <= DENSE_FULL_LIMIT:
            rows = np.arange(self.size)
        else:
            rows = candidates
        if rows.size == 0:
            return rows, np.zeros(0)
        if rows.size == self.size:
            # The whole corpus: its vectors are stacked once, not on every question.
            matrix = self.passage_matrix()
        else:
            self.ensure_vectors(rows)
            matrix = np.vstack(
                [self.docs[self.owner[i][0]].vectors[self.owner[i][1]] for i in rows.tolist()]
            )
        scores = matrix @ self.embedder.encode([question])[0]
        # Passages left unembedded (skip_embedding) have zero vectors: they are not ranked at
        # all, rather than ranked at cosine 0 above every passage that scores below it.
        embedded = self._embedded(matrix)
        if embedded.all():
            return rows, scores
        return rows[embedded], scores[embedded]


def _top(scores: np.ndarray, rows: np.ndarray, n: int) -> list[int]:
    if rows.size == 0:
        return []
    n = min(n, rows.size)
    part = np.argpartition(-scores, n - 1)[:n]
    order = sorted(part.tolist(), key=lambda j: (-scores[j], int(rows[j])))
    return [int(rows[j]) for j in order]


def rrf(
    rankings: list[list[int]], k: int = RRF_K, weights: list[float] | None = None
) -> dict[int, float]:
    """Reciprocal Rank Fusion: score = Σ w/(k + rank + 1), rank counted from 0 (w = 1 unless
    weighted)."""
    fused: dict[int, float] = {}
    for n, ranking in enumerate(rankings):
        w = weights[n] if weights else 1.0
        for rank, item in enumerate(ranking):
            fused[item] = fused.get(item, 0.0) + w / (k + rank + 1)
    return fused


def _convex(
    lex: list[int],
    lex_scores: np.ndarray,
    dense: list[int],
    dense_scores: dict[int, float],
    alpha: float,
) -> dict[int, float]:
    """Score fusion over both candidate lists: alpha x BM25 / max + (1 - alpha) x min-max cosine."""
    rows = list(dict.fromkeys(lex + dense))
    top = max(float(lex_scores[lex[0]]), 1e-9) if lex else 1.0
    cos = [dense_scores[r] for r in dense]
    lo, hi = (min(cos), max(cos)) if cos else (0.0, 1.0)
    span = max(hi - lo, 1e-9)
    # Only the dense list's own scores count (the store returns no others): a passage outside
    # it scores as the list's lowest.
    ranked = set(dense)
    return {
        r: alpha * float(lex_scores[r]) / top
        + (1 - alpha) * ((dense_scores[r] - lo) / span if r in ranked else 0.0)
        for r in rows
    }


class Retriever:
    def __init__(self, corpus: Corpus, *, reranker: Reranker | None = None) -> None:
        self.corpus = corpus
        self.reranker = reranker
        self._subsets: dict[tuple[int, ...], Retriever] = {}

    def targets(self, question: str) -> Targeting:
        """The documents the question names (with their families), if it names any."""
        return self.corpus.targeter.target(question)

    def within(self, positions: list[int]) -> Retriever:
        """A retriever over some of the corpus's documents, kept for the next question about
        them (its BM25 statistics are built once)."""
        key = tuple(positions)
        found = self._subsets.get(key)
        if found is None:
            found = Retriever(self.corpus.subset(positions), reranker=self.reranker)
            self._subsets[key] = found
            while len(self._subsets) > 16:
                self._subsets.pop(next(iter(self._subsets)))
        return found

    # -- passage rankings --

    def bm25_ranking(self, question: str, depth: int) -> tuple[list[int], np.ndarray]:
        scores = self.corpus.bm25.scores(query_tokens(question))
        rows = np.arange(self.corpus.size)
        return _top(scores, rows, depth), scores

    def dense_ranking(
        self, question: str, depth: int, lexical: np.ndarray | None = None
    ) -> tuple[list[int], dict[int, float]]:
        if self.corpus.embedder is None:
            return [], {}  # a lexical-only corpus: fusion falls back to BM25 alone
        if self.corpus.vector_search is not None and self.corpus.size:
            q = self.corpus.embedder.encode([question])[0]
            try:
                found = self.corpus.vector_search(q, min(depth, self.corpus.size))
            except Exception:
                # A store that fails (locked, unreachable) must not fail the question: the
                # vectors are also cached with the documents, so search them in memory instead.
                logger.exception("vector store search failed; searching cached vectors instead")
                self.corpus.vector_search = None
            else:
                return [row for row, _ in found], dict(found)
        candidates = None
        if self.corpus.size > DENSE_FULL_LIMIT:
            if lexical is None:
                _, lexical = self.bm25_ranking(question, 1)
            candidates = np.array(_top(lexical, np.arange(self.corpus.size), DENSE_CANDIDATES))
        rows, scores = self.corpus.dense_scores(question, candidates)
        ranking = _top(scores, rows, depth)
        lookup = {int(r): float(s) for r, s in zip(rows.tolist(), scores.tolist(), strict=True)}
        return ranking, lookup

    def hybrid_ranking(
        self, question: str, depth: int, *, fusion: str = "rrf"
    ) -> list[tuple[int, float]]:
        """BM25 and dense rankings fused by Reciprocal Rank Fusion ("rrf", the study's hybrid) or
        by their scores ("convex": measured better at rank 1, see _convex)."""
        fusion_depth = max(FUSION_DEPTH, depth)
        lex, lex_scores = self.bm25_ranking(question, fusion_depth)
        dense, dense_scores = self.dense_ranking(question, fusion_depth, lex_scores)
        if fusion == "convex" and dense:
            # The BM25 share (settings.LEGALNAV_FUSION_ALPHA; 0.5 measured best of 0.5/0.7 on
            # CUAD and ContractNLI).
            fused = _convex(lex, lex_scores, dense, dense_scores, settings.LEGALNAV_FUSION_ALPHA)
            self._add_topic(question, fused)
            if about_document(question):
                for first in self._opening_passages():
                    fused[first] = fused.get(first, 0.0) + 1.0
            return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]
        # The dense ranking's weight (settings.LEGALNAV_DENSE_WEIGHT; BM25 counts 1).
        fused = rrf([lex, dense], weights=[1.0, settings.LEGALNAV_DENSE_WEIGHT])
        # The metadata boost: a question about the instrument itself (its name, parties, date)
        # is answered by its opening passage. (Boosting passages by the flags a question seems to
        # ask about was measured and dropped: it lowered R@1 on CUAD and ContractNLI, since
        # flags such as hasParty or hasCondition hold for most clauses.)
        if about_document(question):
            # The opening passage of each document ranks as if both retrievers had put it first.
            for first in self._opening_passages():
                fused[first] = fused.get(first, 0.0) + 2.0 / (RRF_K + 1)
        return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]

    def _add_topic(self, question: str, fused: dict[int, float]) -> None:
        """A question about a kind of provision the topic models know (topics.py): each
        candidate gains LEGALNAV_TOPIC_WEIGHT x the model's probability that it is one."""
        topic = topic_for(question)
        if topic is None or not fused:
            return
        rows = list(fused)
        texts = [self.corpus.passage(r).indexed_text for r in rows]
        weight = float(settings.LEGALNAV_TOPIC_WEIGHT)
        for r, p in zip(rows, topic.probabilities(texts).tolist(), strict=True):
            fused[r] += weight * p

    def _opening_passages(self) -> list[int]:
        firsts, seen = [], set()
        for i, (d, _) in enumerate(self.corpus.owner):
            if d not in seen:
                seen.add(d)
                firsts.append(i)
        return firsts

    # -- expansions --

    def _expansion_chars(self, hits: list[Hit], *, xrefs: bool, definitions: bool) -> int:
        seen = {(h.doc, h.node) for h in hits}
        extra = 0
        budgets = {
            "refs": XREF_BUDGET if xrefs else 0,
            "terms": DEFINITION_BUDGET if definitions else 0,
        }
        for h in hits:
            node = self.corpus.docs[h.doc].nodes[h.node]
            for attr in ("refs", "terms"):  # cross-referenced provisions, then definitions used
                for t in getattr(node, attr):
                    if (h.doc, t) in seen:
                        continue
                    target = self.corpus.docs[h.doc].nodes[t]
                    size = target.end - target.start
                    if size <= budgets[attr]:
                        budgets[attr] -= size
                        extra += size
                        seen.add((h.doc, t))
        return extra

    def _passage_hits(self, ranked: list[tuple[int, float]]) -> list[Hit]:
        hits = []
        for i, score in ranked:
            d, p = self.corpus.owner[i]
            passage = self.corpus.docs[d].passages[p]
            hits.append(
                Hit(d, passage.start, passage.end, float(score), passage.node, passage.text)
            )
        return hits

    # -- strategies --

    def ranked_passages(self, question: str, strategy: str, depth: int) -> list[tuple[int, float]]:
        """(passage row, score), best first, for a navembed strategy."""
        if strategy == "bm25":
            ranking, scores = self.bm25_ranking(question, depth)
            return [(i, float(scores[i])) for i in ranking]
        if strategy in ("dense", "dense+xref"):
            ranking, lookup = self.dense_ranking(question, depth)
            return [(i, lookup[i]) for i in ranking]
        if strategy == "rerank":
            return self.reranked(question, depth)
        if strategy == "convex":
            return self.hybrid_ranking(question, depth, fusion="convex")
        return self.hybrid_ranking(question, depth)

    def reranked(self, question: str, depth: int) -> list[tuple[int, float]]:
        """Hybrid's best RERANK_DEPTH passages re-scored by the cross-encoder, best ``depth``."""
        if self.reranker is None:
            raise ValueError(
                "the rerank strategy needs a cross-encoder: set RERANKER_MODEL to its folder"
            )
        candidates = self.hybrid_ranking(question, max(RERANK_DEPTH, depth), fusion="convex")
        texts = []
        for i, _ in candidates:
            passage = self.corpus.passage(i)
            texts.append(f"{passage.context}\n{passage.text}" if passage.context else passage.text)
        scores = self.reranker.scores(question, texts)
        order = sorted(range(len(candidates)), key=lambda j: (-float(scores[j]), j))
        return [(candidates[j][0], float(scores[j])) for j in order[:depth]]

    def navembed(self, question: str, k: int, strategy: str) -> Retrieval:
        if strategy in EVIDENCE_STRATEGIES and settings.LEGALNAV_EVIDENCE:
            return self.evidence(question, k, strategy)
        ranked = self.ranked_passages(question, PASSAGE_STRATEGY.get(strategy, strategy), k)
        hits = self._passage_hits(ranked)
        payload = sum(h.end - h.start for h in hits)
        payload += self._expansion_chars(
            hits,
            xrefs=strategy == "dense+xref",
            definitions=strategy in ("hybrid", "convex", "rerank", "passages"),
        )
        return Retrieval(hits, payload, f"navembed:{strategy}")

    def _span(self, row: int) -> tuple[int, int, str]:
        passage = self.corpus.passage(row)
        return passage.start, passage.end, passage.text

    def evidence(self, question: str, k: int, strategy: str) -> Retrieval:
        """The first stage's best passages, each cut to the range that carries the evidence (see
        evidence.py): at most ``k``, fewer when the scores fall away. The payload counts each
        range, its clause heading once, and the definitions its clauses use."""
        params = EvidenceParams.from_settings()
        ranked = self.ranked_passages(question, strategy, k)
        if not ranked:
            return Retrieval([], 0, f"navembed:{strategy}")
        cosine = None
        if params.trim <= 0:  # no trimming: each passage is one unit, nothing to score or embed
            units = [Unit(row, *self._span(row)) for row, _ in ranked]
            lexical = np.zeros(len(units))
        else:
            units = units_of(self.corpus, [row for row, _ in ranked])
            lexical = lexical_scores(self.corpus, query_tokens(question), units)
        if self.corpus.embedder is not None and params.lexical_share < 1 and params.trim > 0:
            q = self.corpus.embedder.encode([question])[0]
            cosine = unit_vectors(self.corpus, units) @ q
        hits, headings = [], {}
        for r in evidence_ranges(ranked, units, lexical, cosine, params, k):
            d, p = self.corpus.owner[r.row]
            passage = self.corpus.docs[d].passages[p]
            text = self.corpus.texts[d][r.start : r.end] if self.corpus.texts else passage.text
            hits.append(Hit(d, r.start, r.end, r.score, passage.node, " ".join(text.split())))
            headings[(d, passage.node)] = len(passage.context)
        payload = sum(h.end - h.start for h in hits) + sum(headings.values())
        payload += self._expansion_chars(hits, xrefs=False, definitions=True)
        return Retrieval(hits, payload, f"navembed:{strategy}")

    def inject(self) -> Retrieval:
        hits = [Hit(d, 0, doc.length, 1.0) for d, doc in enumerate(self.corpus.docs)]
        return Retrieval(hits, sum(doc.length for doc in self.corpus.docs), "inject")

    def navindex(self, question: str, k: int) -> Retrieval:
        """S1: an offline planner over the index surface picks at most 10 nodes; S2: their verbatim
        text (a heading with its sub-clauses) plus the provisions they cross-reference."""
        corpus = self.corpus
        tokens = query_tokens(question)
        surface = corpus.surface.scores(tokens)
        node_rows = np.arange(len(corpus.node_owner))
        lexical = _top(surface, node_rows, FUSION_DEPTH)
        rankings = [lexical]
        if corpus.embedder is not None and corpus.size:
            dense_passages, lookup = self.dense_ranking(question, FUSION_DEPTH * 2)
            node_index = {pair: j for j, pair in enumerate(corpus.node_owner)}
            dense_nodes: list[int] = []
            for i in dense_passages:
                d, p = corpus.owner[i]
                j = node_index[(d, corpus.docs[d].passages[p].node)]
                if j not in dense_nodes:
                    dense_nodes.append(j)
            rankings.append(dense_nodes)
        fused = rrf(rankings)
        flags = routed_flags(question)
        document_question = about_document(question)
        if document_question:
            for j, (d, n) in enumerate(corpus.node_owner):
                if corpus.docs[d].nodes[n].kind == "preamble":
                    fused.setdefault(j, 0.0)
                    break
        for j in list(fused):
            d, n = corpus.node_owner[j]
            node = corpus.docs[d].nodes[n]
            if node.flags.get("isTocEntry") or node.kind == "toc":
                del fused[j]
                continue
            if flags:
                # Flag routing as a tie-break only: a stronger boost was measured to lower R@1,
                # because most clauses carry flags such as hasParty or hasCondition.
                fused[j] += 0.02 * sum(1 for f in flags if node.flags.get(f)) / (RRF_K + 1)
            if document_question and node.kind == "preamble" and node.parent is None:
                fused[j] += 2.0 / (RRF_K + 1)
        chosen: list[Hit] = []
        covered: list[tuple[int, int, int]] = []
        for j, score in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0])):
            if len(chosen) >= min(k, NAVINDEX_CAP):
                break
            d, n = corpus.node_owner[j]
            node = corpus.docs[d].nodes[n]
            end = node.subtree_end if node.subtree_end - node.start <= SUBTREE_LIMIT else node.end
            if end <= node.start:
                continue
            if any(cd == d and cs <= node.start and end <= ce for cd, cs, ce in covered):
                continue  # already read as part of a selected heading
            chosen.append(Hit(d, node.start, end, float(score), n))
            covered.append((d, node.start, end))
            # Amendment pairing: what amends this provision (or what this amendment changes)
            # is read with it, inside the same cap.
            for pd, pn in corpus.pairs.get((d, n), []):
                partner = corpus.docs[pd].nodes[pn]
                if len(chosen) >= min(k, NAVINDEX_CAP) or partner.end <= partner.start:
                    break
                if any(
                    cd == pd and cs <= partner.start and partner.end <= ce for cd, cs, ce in covered
                ):
                    continue
                chosen.append(Hit(pd, partner.start, partner.end, float(score), pn))
                covered.append((pd, partner.start, partner.end))
        payload = sum(h.end - h.start for h in chosen)
        payload += self._expansion_chars(chosen, xrefs=True, definitions=True)
        return Retrieval(chosen, payload, "navindex")


# Navembed strategies whose passages go through the evidence stage (when LEGALNAV_EVIDENCE is
# on), and the strategy names that return whole passages instead, to measure the difference.
EVIDENCE_STRATEGIES = frozenset({"convex", "hybrid", "rerank"})
PASSAGE_STRATEGY = {"passages": "convex"}

STRATEGIES = {
    "passages": "passages",
    "inject": "inject",
    "navindex": "navindex",
    "auto": "auto",
    "navembed": "convex",
    "convex": "convex",
    "fused": "convex",
    "hybrid": "hybrid",
    "rrf": "hybrid",
    "dense": "dense",
    "bm25": "bm25",
    "dense+xref": "dense+xref",
    "xref": "dense+xref",
    "rerank": "rerank",
    # Judgment-level ranking (unit "document", see research/ranking.py): the fused evidence, the same
    # with dense evidence, and whole-judgment BM25 alone. A span request in these modes ranks
    # passages as hybrid does.
    "judgments": "judgments",
    "judgment": "judgments",
    "judgments-dense": "judgments-dense",
    "judgment-bm25": "judgment-bm25",
}


def normalise_mode(mode: str) -> str:
    """ "navembed", "navembed:bm25", "navembed-dense", "dense+xref" … -> a strategy name."""
    m = (mode or "").strip().lower()
    for prefix in ("navembed:", "navembed-", "navembed_", "navembed/"):
        if m.startswith(prefix):
            m = m[len(prefix) :]
    if m not in STRATEGIES:
        raise ValueError(
            f"unknown mode {mode!r}; use inject, navembed, navindex, auto, "
            "navembed:bm25, navembed:dense, navembed:hybrid (RRF), navembed:convex, "
            "navembed:dense+xref, navembed:rerank, navembed:passages (whole passages, no "
            "evidence stage), navembed:judgments, navembed:judgments-dense or "
            "navembed:judgment-bm25 (unit document)"
        )
    return STRATEGIES[m]


def retrieve(retriever: Retriever, question: str, mode: str, k: int) -> Retrieval:
    """Rank the corpus for a question in a mode. A question that names one of several
    documents ("In the Supply Agreement between A and B: …", "Under D12 …") is ranked inside
    that document and its family only; one that names none runs over all of them."""
    strategy = normalise_mode(mode)
    if (
        strategy != "inject"
        and len(retriever.corpus.docs) > 1
        and settings.LEGALNAV_TARGET_DOCUMENTS
    ):
        targeting = retriever.targets(question)
        if targeting and len(targeting.documents) < len(retriever.corpus.docs):
            positions = targeting.documents
            # Inside the named document the naming words would only pull up its title block,
            # unless the question is about the instrument itself (its name, parties, date).
            asked = question if about_document(question) else targeting.without_names(question)
            inside = _retrieve(retriever.within(positions), asked, mode, k, strategy)
            for h in inside.hits:
                h.doc = positions[h.doc]
            inside.notes["targeted"] = positions
            inside.notes["targeted_by"] = targeting.by
            inside.notes["targeted_named"] = targeting.named
            return inside
    return _retrieve(retriever, question, mode, k, strategy)


def _retrieve(retriever: Retriever, question: str, mode: str, k: int, strategy: str) -> Retrieval:
    if strategy == "convex" and retriever.reranker is not None and "convex" not in mode.lower():
        strategy = "rerank"  # plain "navembed" reranks when a cross-encoder is configured
    if strategy == "inject":
        return retriever.inject()
    if strategy == "navindex":
        return retriever.navindex(question, k)
    if strategy == "auto":
        # The crossover rule: injecting the corpus C pays off only while C < R·p_in/p_r ≈ 10·R
        # for the payload R a navigate mode would send.
        navigated = retriever.navembed(question, k, "convex")
        corpus_chars = sum(d.length for d in retriever.corpus.docs)
        if corpus_chars < 10 * navigated.payload_chars:
            chosen = retriever.inject()
            chosen.strategy = "auto:inject"
            return chosen
        navigated.strategy = "auto:navembed"
        return navigated
    return retriever.navembed(question, k, strategy)


# The judgment ranker behind ``rank_documents``: ``legalnav.research`` registers its own
# (research/ranking.py) in ``ResearchConfig.ready()``, as research sits above retrieval in the
# layer contract (pyproject.toml). Called with the corpus, the question, k and the strategy.
JudgmentRanker = Callable[[Corpus, str, int, str], Retrieval]
_judgment_ranker: JudgmentRanker | None = None


def register_judgment_ranker(ranker: JudgmentRanker) -> None:
    """Make ``ranker`` the one ``rank_documents`` uses for judgments (the last one wins)."""
    global _judgment_ranker
    _judgment_ranker = ranker


def judgment_ranker() -> JudgmentRanker:
    """The registered judgment ranker; an error when none is (Django not set up, or
    ``legalnav.research`` not in INSTALLED_APPS)."""
    if _judgment_ranker is None:
        raise RuntimeError(
            "no judgment ranker is registered: legalnav.research registers it when Django "
            "starts (ResearchConfig.ready)"
        )
    return _judgment_ranker


def rank_documents(retriever: Retriever, question: str, mode: str, k: int) -> Retrieval:
    """One result per document (AILA-style prior-case retrieval).

    The product's modes (navembed, navindex, auto) and ``judgments`` rank judgments by fused
    judgment-level evidence: whole-judgment BM25, passage evidence and the case card (the
    registered ``judgment_ranker``, research/ranking.py); ``judgment-bm25`` is whole-judgment
    BM25 alone. A named passage strategy (bm25, dense, hybrid, convex, rerank …) scores a
    document as its best passage, and its best passage is the range returned, so each stays
    measurable as before."""
    strategy = normalise_mode(mode)
    corpus = retriever.corpus
    if strategy == "inject":
        return retriever.inject()
    if strategy in ("judgments", "judgments-dense", "judgment-bm25") or (
        mode or ""
    ).strip().lower() in ("navembed", "navindex", "auto"):
        return judgment_ranker()(corpus, question, k, strategy)
    depth = min(corpus.size, max(FUSION_DEPTH, 20 * k))
    ranked = retriever.ranked_passages(
        question,
        strategy if strategy in ("bm25", "dense", "dense+xref", "rerank", "hybrid") else "convex",
        depth,
    )
    best: dict[int, Hit] = {}
    for i, score in ranked:
        d, p = corpus.owner[i]
        if d not in best:
            passage = corpus.docs[d].passages[p]
            best[d] = Hit(d, passage.start, passage.end, float(score), passage.node)
        if len(best) >= k:
            break
    hits = sorted(best.values(), key=lambda h: (-h.score, h.doc))
    return Retrieval(hits, sum(h.end - h.start for h in hits), f"documents:{strategy}")
