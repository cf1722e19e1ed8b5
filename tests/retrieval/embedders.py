"""A stand-in for the embedding model where a test needs dense retrieval but not its quality."""

from __future__ import annotations

import hashlib

import numpy as np

from legalnav.retrieval.bm25 import tokenize


class HashEmbedder:
    """Unit vectors of hashed word counts: deterministic, instant, and named apart from the real
    model (so its vectors never mix with the session's cached ones)."""

    name = "hash-embedder-for-tests"
    dimension = 32

    def encode(self, texts: list[str], **kwargs: object) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for token in tokenize(text):
                out[i, int(hashlib.sha1(token.encode()).hexdigest(), 16) % self.dimension] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)
