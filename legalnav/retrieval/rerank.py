"""Cross-encoder reranking: retrieve 40 by hybrid fusion, re-score each (question, passage) pair
with a cross-encoder, keep the best 10.

No cross-encoder ships with weights on PyPI, so none is bundled: ``RERANKER_MODEL`` names a local
sentence-transformers CrossEncoder folder (for instance a copy of ms-marco-MiniLM-L-6-v2). Like
the embedder, the model loads lazily, offline, on the CPU, the first time a question needs it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from functools import cache
from pathlib import Path

import numpy as np

RERANK_DEPTH = 40  # candidates re-scored per question
MAX_TOKENS = 512


class RerankerUnavailable(RuntimeError):
    """The configured reranker folder is missing or cannot be loaded."""


class Reranker:
    def __init__(self, model_path: str, *, max_tokens: int = MAX_TOKENS) -> None:
        self.model_path = model_path
        self.max_tokens = max_tokens
        self._model = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        digest = hashlib.sha1(self.model_path.encode()).hexdigest()[:10]
        return f"{os.path.basename(os.path.normpath(self.model_path))}-{digest}"

    def _load(self):  # type: ignore[no-untyped-def]
        with self._lock:
            if self._model is None:
                if not Path(self.model_path).is_dir():
                    raise RerankerUnavailable(
                        f"RERANKER_MODEL {self.model_path!r} is not a folder holding a "
                        "cross-encoder; set it to a local sentence-transformers CrossEncoder"
                    )
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import CrossEncoder

                try:
                    self._model = CrossEncoder(
                        self.model_path, device="cpu", max_length=self.max_tokens
                    )
                except (OSError, ValueError) as exc:
                    raise RerankerUnavailable(
                        f"the cross-encoder in {self.model_path!r} could not be loaded ({exc})"
                    ) from exc
        return self._model

    def scores(self, question: str, texts: list[str], *, batch_size: int = 16) -> np.ndarray:
        """One relevance score per text (higher is more relevant)."""
        if not texts:
            return np.zeros(0, dtype=np.float32)
        model = self._load()
        out = model.predict(
            [(question, t) for t in texts],
            batch_size=batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)[:, -1]


@cache
def _reranker_for(path: str) -> Reranker:
    return Reranker(path)


def get_reranker() -> Reranker | None:
    """The configured reranker, or None when RERANKER_MODEL is unset."""
    from django.conf import settings

    path = getattr(settings, "RERANKER_MODEL", "")
    return _reranker_for(path) if path else None
