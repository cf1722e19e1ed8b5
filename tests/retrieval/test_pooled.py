"""Sentence vectors read off the passage's own pass through the model (retrieval/pooled.py), with
the real offline embedding model: the grid reads its candidate sentences without embedding them
one by one."""

from __future__ import annotations

import numpy as np
import pytest

from legalnav.retrieval import pooled
from legalnav.retrieval.adhoc import AdHocCorpora
from legalnav.retrieval.embeddings import get_embedder
from legalnav.retrieval.evidence import unit_key
from legalnav.review import fill
from legalnav.review.columns import CUAD_COLUMNS
from tests.conftest import REPO

DEMO = REPO / "demo" / "documents"


class Counting:
    """Counts the embedder's calls (texts per call) while in use."""

    def __init__(self, embedder) -> None:  # type: ignore[no-untyped-def]
        self.embedder = embedder
        self.encode: list[int] = []
        self.tokens: list[int] = []

    def __enter__(self) -> Counting:
        real_encode, real_tokens = self.embedder.encode, self.embedder.encode_tokens

        def encode(texts, *a, **kw):  # type: ignore[no-untyped-def]
            self.encode.append(len(texts))
            return real_encode(texts, *a, **kw)

        def tokens(texts, *a, **kw):  # type: ignore[no-untyped-def]
            self.tokens.append(len(texts))
            return real_tokens(texts, *a, **kw)

        self.embedder.encode, self.embedder.encode_tokens = encode, tokens
        return self

    def __exit__(self, *exc: object) -> None:
        del self.embedder.encode, self.embedder.encode_tokens  # back to the class's methods


def _document(name: str, tmp_path):  # type: ignore[no-untyped-def]
    path = str(DEMO / name)
    corpora = AdHocCorpora(tmp_path)
    return corpora.text(path), corpora.retriever([path])


def test_the_passage_vector_is_the_one_encode_gives_and_each_unit_reads_as_its_own_sentence(
    tmp_path,
):
    text, retriever = _document("bioamber-development-agreement.txt", tmp_path)
    corpus = retriever.corpus
    embedder = get_embedder()
    passages = [corpus.passage(r) for r in range(corpus.size)][:40]
    read = pooled.embed_passages(embedder, passages, [text] * len(passages))
    whole = embedder.encode([p.indexed_text for p in passages])
    assert np.allclose(np.vstack([r.vector for r in read]), whole, atol=1e-5)
    own = nearest = 0
    chance = 0.0
    for p, r in zip(passages, read, strict=True):
        spans = pooled.passage_units(text, p)
        assert r.units.shape == (len(spans), embedder.dimension)
        assert np.allclose(np.linalg.norm(r.units, axis=1), 1.0, atol=1e-4)
        if len(spans) < 2:
            continue
        alone = embedder.encode([f"{p.context}\n{' '.join(text[a:b].split())}" for a, b in spans])
        similarity = r.units @ alone.T
        own += len(spans)
        chance += sum(1 / len(spans) for _ in spans)
        nearest += int((similarity.argmax(axis=1) == np.arange(len(spans))).sum())
    # A unit's vector, read in its passage, is most often nearest its own sentence embedded
    # alone (its passage's other sentences share its heading and context).
    assert own >= 20 and nearest / own >= 0.6 and nearest >= 2 * chance, (nearest, own, chance)


def test_a_passage_past_the_model_window_has_its_rest_read_in_a_second_pass():
    """A unit past the 256 tokens the model reads is not given the vector of the passage's
    beginning: the rest of the passage is read under the same heading."""
    embedder = get_embedder()
    from legalnav.retrieval.passages import Passage

    sentences = [
        f"The Licensee shall pay the royalty for licensed product number {n} within thirty days "
        "of the end of each calendar quarter."
        for n in range(12)
    ]
    sentences.append("This Agreement is governed by the laws of the State of Delaware.")
    body = " ".join(sentences)
    passage = Passage(0, 0, len(body), body, "Article 4 › Payments")
    with Counting(embedder) as calls:
        (read,) = pooled.embed_passages(embedder, [passage], [body])
    assert calls.tokens == [1, 1]  # the passage, then its rest
    spans = pooled.passage_units(body, passage)
    assert len(spans) == len(sentences) and read.units.shape[0] == len(spans)
    law = embedder.encode(["Which law governs the agreement?"])[0]
    scores = read.units @ law
    assert int(scores.argmax()) == len(spans) - 1  # the last sentence, read in the second pass
    assert np.allclose(read.vector, embedder.encode([passage.indexed_text])[0], atol=1e-5)


def test_indexing_keeps_the_units_so_a_later_fill_reads_every_candidate_without_a_pass(tmp_path):
    """What a worker does when it indexes a document (its passages embedded with the text at
    hand) leaves every unit's passage-pass vector in the cache: a fill in another process reads
    them, and embeds alone only the few units each column rescores."""
    name = "bioamber-development-agreement-first-amendment.txt"
    text, retriever = _document(name, tmp_path)
    retriever.corpus.ensure_vectors()
    retriever.corpus.cache.flush()
    embedder = get_embedder()
    fill._QUESTION_VECTORS.clear()
    text, retriever = _document(name, tmp_path)  # a new reader over the same cache
    with Counting(embedder) as calls:
        cells = fill.fill_document(text=text, retriever=retriever, columns=list(CUAD_COLUMNS))
    assert calls.tokens == []  # no passage read again
    questions = len({c.search_text for c in CUAD_COLUMNS})
    assert calls.encode[0] == questions  # the questions, once
    assert len(calls.encode) <= 3  # the rescored units in one batch (+ a date helper's)
    assert sum(calls.encode[1:]) <= fill.RESCORED * len(CUAD_COLUMNS)
    # the amendment's own title, parties and dates are read from the cached vectors
    found = {c.key for c in cells if c.found}
    assert {"Document Name", "Parties", "Agreement Date", "Effective Date"} <= found


def test_forgetting_a_document_removes_its_units_vectors_too(tmp_path):
    text, retriever = _document("bioamber-development-agreement-first-amendment.txt", tmp_path)
    corpus = retriever.corpus
    corpus.ensure_vectors()
    embedder = get_embedder()
    view = fill.DocumentView(text, retriever)
    from legalnav.retrieval.evidence import unit_vectors

    unit_vectors(corpus, view.units[:5])  # the retrieval stage's own sentence vectors
    store = corpus.cache.passages
    keys = [pooled.pooled_key(corpus.passage(r)) for r in range(corpus.size)]
    singles = [unit_key(corpus.passage(u.row), u.text) for u in view.units[:5]]
    kept = store.get_matrices(embedder.name, keys, embedder.dimension)
    assert len(kept) >= corpus.size - 3  # skipped passages (signature blocks) have none
    assert len(store.get_many(embedder.name, singles, embedder.dimension)) == 5
    corpus.cache.flush()
    assert corpus.cache.forget(text) > len(kept)
    assert store.get_matrices(embedder.name, keys, embedder.dimension) == {}
    assert store.get_many(embedder.name, singles, embedder.dimension) == {}


@pytest.mark.parametrize("extra", [-1, 1])
def test_a_matrix_of_another_cut_is_not_used(tmp_path, extra):
    """A unit matrix whose rows do not match the passage's units (another version of the
    sentence cutter) is made again, never read off by position."""
    text, retriever = _document("bioamber-development-agreement-first-amendment.txt", tmp_path)
    corpus = retriever.corpus
    embedder = get_embedder()
    row = max(range(corpus.size), key=lambda r: len(pooled.passage_units(text, corpus.passage(r))))
    n = len(pooled.passage_units(text, corpus.passage(row)))
    assert n >= 2
    wrong = np.ones((n + extra, embedder.dimension), dtype=np.float32)
    corpus.cache.passages.put_many(embedder.name, [(pooled.pooled_key(corpus.passage(row)), wrong)])
    with Counting(embedder) as calls:
        found = pooled.unit_matrices(corpus, [row], text)
    assert calls.tokens and found[row].shape == (n, embedder.dimension)
    assert not np.allclose(found[row][0], wrong[0])
