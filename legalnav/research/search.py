"""Search over a research matter's judgments: child chunks ranked by BM25 and by embeddings,
fused by Reciprocal Rank Fusion, and judgments ranked as documents.

It reuses the retrieval engine's ``Corpus`` (the passages are the child chunks, the vectors are
cached by content hash) and changes two things for precedent research:

- dense search is exact over every passage. The engine, past ``DENSE_FULL_LIMIT`` passages,
  only re-scores BM25's best candidates, which would make "hybrid" a lexical search with a
  dense re-ranking; a matter of judgments is exactly where paraphrase matters.
- judgments are ranked by fusing two *document* rankings (each judgment scored by its best
  passage under BM25 and under dense), not by the best fused passage, so that one long
  judgment with many near-duplicate passages does not hide the others;
- a statement of facts (FACTS_WORDS words or more) is ranked against whole judgments: its
  lexical document ranking is the judgment ranker's (``research.ranking``: whole-judgment
  BM25 on its most informative terms, passage evidence, statutes in common, how often the
  matter cites the judgment, decided before the facts), measured better than the best passage
  for facts (``research_eval aila``; ``scripts/eval_precedent.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from legalnav.retrieval.engine import Corpus, query_tokens, rrf


@dataclass(slots=True)
class PassageHit:
    row: int  # passage row in the corpus
    doc: int  # document position in the corpus
    score: float


@dataclass(slots=True)
class JudgmentHit:
    doc: int
    score: float
    passages: list[PassageHit] = field(default_factory=list)  # its best passages, best first
    ranks: dict[str, int] = field(default_factory=dict)  # rank under each retriever (0-based)
    best: dict[str, float] = field(default_factory=dict)  # best passage score per retriever
    # Set when several queries were fused: whether it passed the relevance floor for any one.
    on_issue: bool | None = None


MODES = ("bm25", "dense", "hybrid")
# A question of at least this many words is a statement of facts, ranked as whole judgments.
FACTS_WORDS = 60


class JudgmentSearch:
    def __init__(self, corpus: Corpus, *, windows: bool = True, facts: bool = True) -> None:
        self.corpus = corpus
        self.windows = windows
        self.facts = facts  # rank statements of facts by the judgment ranker
        self._matrix: np.ndarray | None = None
        self._first: list[int] | None = None

    def first_row(self, doc: int) -> int:
        """The corpus row of a document's first passage."""
        if self._first is None:
            first, row = [], 0
            for d in self.corpus.docs:
                first.append(row)
                row += len(d.passages)
            self._first = first
        return self._first[doc]

    # -- passages (child chunks) --

    def bm25(self, question: str) -> np.ndarray:
        return self.corpus.bm25.scores(query_tokens(question))

    def dense(self, question: str) -> np.ndarray | None:
        """Cosine of the question with every passage (None without an embedder)."""
        corpus = self.corpus
        if corpus.embedder is None or not corpus.size:
            return None
        if self._matrix is None:
            self._matrix = corpus.passage_matrix()  # cached per document, embedded once
        windows = query_windows(question) if self.windows else [question]
        vectors = corpus.embedder.encode(windows)
        # A long statement of facts does not fit the embedding model's window (256 tokens):
        # each window of it is a query, and a passage scores as its best window.
        return (self._matrix @ vectors.T).max(axis=1)

    def passage_scores(self, question: str, mode: str) -> dict[str, np.ndarray]:
        scores: dict[str, np.ndarray] = {}
        if mode in ("bm25", "hybrid"):
            scores["bm25"] = self.bm25(question)
        if mode in ("dense", "hybrid"):
            dense = self.dense(question)
            if dense is not None:
                scores["dense"] = dense
        if not scores:  # dense asked for but no embedder: lexical search, said in the notes
            scores["bm25"] = self.bm25(question)
        return scores

    def passages(
        self, question: str, *, mode: str = "hybrid", depth: int = 100, docs: set[int] | None = None
    ) -> list[PassageHit]:
        """The best passages, fused by RRF across retrievers; ``docs`` restricts the search to
        some judgments (the adverse search looks inside judgments already chosen)."""
        rankings = []
        for scores in self.passage_scores(question, mode).values():
            rankings.append(_top_rows(scores, depth, self._rows_of(docs)))
        fused = rrf(rankings)
        out = []
        for row, score in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:depth]:
            out.append(PassageHit(row, self.corpus.owner[row][0], float(score)))
        return out

    def _rows_of(self, docs: set[int] | None) -> np.ndarray | None:
        if docs is None:
            return None
        return np.array([i for i, (d, _) in enumerate(self.corpus.owner) if d in docs], dtype=int)

    # -- judgments --

    def judgments(
        self,
        question: str,
        *,
        mode: str = "hybrid",
        k: int = 10,
        per_doc: int = 3,
        docs: set[int] | None = None,
    ) -> list[JudgmentHit]:
        """Judgments ranked for the question: under each retriever a judgment scores as its
        best passage; the document rankings are fused by RRF (k = 60). Each hit carries its
        ``per_doc`` best passages (fused), for evidence and parent context."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
        per_retriever = self.passage_scores(question, mode)
        allowed = self._rows_of(docs)
        doc_rankings: dict[str, list[int]] = {}
        doc_best: dict[str, dict[int, float]] = {}
        for name, scores in per_retriever.items():
            best = _best_per_document(scores, self.corpus.owner, allowed)
            doc_rankings[name] = [d for d, _ in best]
            doc_best[name] = dict(best)
        if "bm25" in doc_rankings and docs is None and self.is_facts(question):
            doc_rankings["bm25"] = self.judgment_ranking(question, doc_rankings["bm25"])
        fused = rrf(list(doc_rankings.values()))
        ranked = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        chosen = {d for d, _ in ranked}
        # The best passages of the chosen judgments, fused across retrievers.
        passage_rankings = []
        rows_of_chosen = np.array(
            [i for i, (d, _) in enumerate(self.corpus.owner) if d in chosen], dtype=int
        )
        for scores in per_retriever.values():
            passage_rankings.append(_top_rows(scores, len(rows_of_chosen), rows_of_chosen))
        by_doc: dict[int, list[PassageHit]] = {}
        for row, score in sorted(rrf(passage_rankings).items(), key=lambda kv: (-kv[1], kv[0])):
            d = self.corpus.owner[row][0]
            lst = by_doc.setdefault(d, [])
            if len(lst) < per_doc:
                lst.append(PassageHit(row, d, float(score)))
        out = []
        for d, score in ranked:
            ranks = {
                name: ranking.index(d) for name, ranking in doc_rankings.items() if d in ranking
            }
            best_scores = {name: b[d] for name, b in doc_best.items() if d in b}
            out.append(JudgmentHit(d, float(score), by_doc.get(d, []), ranks, best_scores))
        return out

    def is_facts(self, question: str) -> bool:
        return self.facts and len(question.split()) >= FACTS_WORDS

    def judgment_ranking(self, question: str, rest: list[int]) -> list[int]:
        """The judgments in the judgment ranker's order (lexical and card evidence; no dense),
        then those it did not consider, in the order of ``rest``."""
        from legalnav.research.ranking import WEIGHTS, fused_scores, gather

        evidence = gather(self.corpus, question, caps=(WEIGHTS.terms,), dense=False)
        scores = fused_scores(evidence, WEIGHTS)
        order = sorted(range(evidence.docs.size), key=lambda j: (-scores[j], int(evidence.docs[j])))
        ranked = [int(evidence.docs[j]) for j in order]
        seen = set(ranked)
        return ranked + [d for d in rest if d not in seen]


WINDOW_WORDS = 150  # about 200 tokens: inside the default embedding model's 256
WINDOW_OVERLAP = 30


def query_windows(
    question: str, words: int = WINDOW_WORDS, overlap: int = WINDOW_OVERLAP
) -> list[str]:
    """A question cut into overlapping windows of ``words`` words (one window when it fits)."""
    parts = question.split()
    if len(parts) <= words:
        return [question]
    step = words - overlap
    return [" ".join(parts[i : i + words]) for i in range(0, max(1, len(parts) - overlap), step)]


def _top_rows(scores: np.ndarray, n: int, allowed: np.ndarray | None = None) -> list[int]:
    rows = np.arange(scores.size) if allowed is None else allowed
    if rows.size == 0 or n <= 0:
        return []
    sub = scores[rows]
    n = min(n, rows.size)
    part = np.argpartition(-sub, n - 1)[:n]
    order = sorted(part.tolist(), key=lambda j: (-sub[j], int(rows[j])))
    return [int(rows[j]) for j in order]


def _best_per_document(
    scores: np.ndarray, owner: list[tuple[int, int]], allowed: np.ndarray | None = None
) -> list[tuple[int, float]]:
    """(document, best passage score), best first; documents without a passage are left out."""
    if not owner:
        return []
    docs = np.fromiter((d for d, _ in owner), dtype=np.int64, count=len(owner))
    rows = np.arange(scores.size) if allowed is None else allowed
    if rows.size == 0:
        return []
    best = np.full(int(docs.max()) + 1, -np.inf)
    np.maximum.at(best, docs[rows], scores[rows])
    present = np.flatnonzero(np.isfinite(best))
    order = sorted(present.tolist(), key=lambda d: (-best[d], d))
    return [(d, float(best[d])) for d in order]
