"""Re-indexing a changed document re-embeds only the passages whose text changed."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from legalnav.retrieval.embeddings import get_embedder
from legalnav.retrieval.engine import Corpus
from legalnav.retrieval.index import IndexCache
from tests.conftest import DEMO


class CountingEmbedder:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        self.inner = get_embedder()
        self.texts: list[str] = []

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def encode(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.encode(texts)


def _embed_all(cache: IndexCache, text: str, embedder: CountingEmbedder):
    doc = cache.get(text)
    Corpus([doc], embedder=embedder, cache=cache).ensure_vectors()
    return doc


def test_a_new_version_reembeds_only_its_changed_passages(tmp_path: Path) -> None:
    v1 = (DEMO / "bioamber-development-agreement.txt").read_text(encoding="utf-8")
    assert v1.count("State of Minnesota") == 1
    v2 = v1.replace("State of Minnesota", "State of Delaware")
    embedder = CountingEmbedder()
    cache = IndexCache(tmp_path)

    first = _embed_all(cache, v1, embedder)
    assert len(embedder.texts) == len(first.passages) > 50
    embedder.texts.clear()

    second = _embed_all(cache, v2, embedder)
    assert first.sha256 != second.sha256
    assert len(embedder.texts) == 1 and "State of Delaware" in embedder.texts[0]
    changed = [i for i, p in enumerate(second.passages) if "State of Delaware" in p.text]
    same = [i for i in range(len(second.passages)) if i not in changed]
    assert np.array_equal(first.vectors[same], second.vectors[same])
    fresh = embedder.inner.encode(
        [f"{second.passages[changed[0]].context}\n{second.passages[changed[0]].text}"]
    )
    assert np.allclose(second.vectors[changed[0]], fresh[0], atol=1e-5)

    # A new cache object on the same folder (another process) with the document indexes gone
    # rebuilds them but embeds nothing: every passage's vector is found by its text.
    for pickle in tmp_path.glob("*.pkl"):
        pickle.unlink()
    embedder.texts.clear()
    again = IndexCache(tmp_path)
    rebuilt = again.get(v1)
    assert rebuilt.vectors is None
    Corpus([rebuilt], embedder=embedder, cache=again).ensure_vectors()
    assert embedder.texts == []
    assert np.array_equal(rebuilt.vectors, first.vectors)


def test_encoding_a_question_leaves_torch_on_its_own_thread_count() -> None:
    import torch

    embedder = get_embedder()
    embedder.encode(["warm"])  # loads the model
    before = embedder._threads  # noqa: SLF001 - the count recorded at load
    torch.set_num_threads(1)  # another request is mid-question on one thread
    try:
        embedder.encode(["Which law governs?"])
        # Restored to the count seen at load, not to the one another request left behind.
        assert torch.get_num_threads() == before
    finally:
        torch.set_num_threads(before)
