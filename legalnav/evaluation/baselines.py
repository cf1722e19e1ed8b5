"""The naive floor: fixed-size chunks, ranked by BM25 or by MiniLM, as in the data README.

500-character chunks overlapping by 100, with no regard for clause boundaries; BM25 is Okapi
BM25 (rank-bm25's scoring) on lower-case word tokens with no stemming; dense is the embedding
model's cosine; RRF fuses the two (k = 60). This is what structure-aware retrieval has to beat,
measured with the same metrics on the same questions. Chunk vectors are cached on disk by the
document's content hash, the chunk geometry and the embedding model.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from legalnav.retrieval.bm25 import BM25
from legalnav.retrieval.embeddings import Embedder
from legalnav.retrieval.engine import rrf

CHUNK_CHARS = 500
OVERLAP_CHARS = 100
NAIVE_MODES = ("naive:bm25", "naive:dense", "naive:rrf")
_WORD = re.compile(r"\w+")


def chunk_spans(
    length: int, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS
) -> list[tuple[int, int]]:
    """[start, end) of each chunk: a window of ``size`` moved by ``size - overlap``; the last
    one ends at the end of the text."""
    if size <= overlap:
        raise ValueError("the chunk must be longer than its overlap")
    if length <= 0:
        return []
    spans, start = [], 0
    while True:
        end = min(start + size, length)
        spans.append((start, end))
        if end >= length:
            return spans
        start += size - overlap


@dataclass(slots=True)
class NaiveHit:
    doc: int
    start: int
    end: int
    score: float


class NaiveCorpus:
    """Fixed-size chunks of a list of documents, with BM25 and (lazily) dense vectors."""

    def __init__(self, texts: list[str], *, embedder: Embedder | None, cache_dir: Path | None):
        self.texts = texts
        self.embedder = embedder
        self.cache_dir = cache_dir
        self.owner: list[tuple[int, int, int]] = [
            (d, s, e) for d, text in enumerate(texts) for s, e in chunk_spans(len(text))
        ]
        self.bm25 = BM25([_WORD.findall(texts[d][s:e].lower()) for d, s, e in self.owner])
        self._matrix: np.ndarray | None = None

    def _vectors_path(self, text: str) -> Path | None:
        if self.cache_dir is None or self.embedder is None:
            return None
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return (
            self.cache_dir / f"naive-{sha}-{CHUNK_CHARS}.{OVERLAP_CHARS}-{self.embedder.name}.npy"
        )

    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            assert self.embedder is not None
            parts = []
            for text in self.texts:
                spans = chunk_spans(len(text))
                path = self._vectors_path(text)
                vectors = None
                if path is not None and path.exists():
                    try:
                        vectors = np.load(path)
                    except (OSError, ValueError):
                        vectors = None  # a damaged cache entry is recomputed
                    if vectors is not None and vectors.shape[0] != len(spans):
                        vectors = None
                if vectors is None:
                    vectors = self.embedder.encode([text[s:e] for s, e in spans])
                    if path is not None:
                        path.parent.mkdir(parents=True, exist_ok=True)
                        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
                        np.save(tmp, vectors)
                        os.replace(tmp, path)
                parts.append(vectors)
            self._matrix = np.vstack(parts) if parts else np.zeros((0, 1), dtype=np.float32)
        return self._matrix

    def bm25_ranking(self, question: str, depth: int) -> list[tuple[int, float]]:
        scores = self.bm25.scores(_WORD.findall(question.lower()))
        order = np.argsort(-scores, kind="stable")[:depth]
        return [(int(i), float(scores[i])) for i in order]

    def dense_ranking(self, question: str, depth: int) -> list[tuple[int, float]]:
        if self.embedder is None:
            raise ValueError("the dense floor needs an embedding model")
        matrix = self.matrix()
        q = self.embedder.encode([question])[0]
        scores = matrix @ q
        order = np.argsort(-scores, kind="stable")[:depth]
        return [(int(i), float(scores[i])) for i in order]

    def search(self, question: str, mode: str, k: int) -> list[NaiveHit]:
        if mode == "naive:bm25":
            ranked = self.bm25_ranking(question, k)
        elif mode == "naive:dense":
            ranked = self.dense_ranking(question, k)
        elif mode == "naive:rrf":
            depth = max(100, k)
            fused = rrf(
                [
                    [i for i, _ in self.bm25_ranking(question, depth)],
                    [i for i, _ in self.dense_ranking(question, depth)],
                ]
            )
            ranked = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        else:
            raise ValueError(f"unknown naive mode {mode!r}; use one of {', '.join(NAIVE_MODES)}")
        return [NaiveHit(*self.owner[i], score) for i, score in ranked]
