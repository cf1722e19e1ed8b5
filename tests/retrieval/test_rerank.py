"""Cross-encoder reranking, tested on a tiny cross-encoder the test builds (no reranker with
weights ships offline): hybrid's 40 best passages are re-scored and the best 10 kept, in the
cross-encoder's order."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command

from legalnav.retrieval.engine import Corpus, Retriever, normalise_mode, retrieve
from legalnav.retrieval.index import IndexCache
from legalnav.retrieval.rerank import RERANK_DEPTH, Reranker, RerankerUnavailable
from tests.conftest import DEMO

QUESTION = "Which state's law governs the agreement?"


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> Path:
    """A two-layer BERT cross-encoder with random (seeded) weights and a vocabulary taken from a
    demo agreement, saved the way sentence-transformers' CrossEncoder loads it."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    text = (DEMO / "bioamber-development-agreement.txt").read_text(encoding="utf-8")
    words = sorted({w.lower() for w in re.findall(r"[A-Za-z]+", text)})[:3000]
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    (folder / "vocab.txt").write_text("\n".join(specials + words) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True)
    torch.manual_seed(7)
    config = BertConfig(
        vocab_size=len(specials) + len(words),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        num_labels=1,
    )
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Corpus:
    cache = IndexCache(tmp_path_factory.mktemp("rerank-cache"))
    docs = [
        cache.get((DEMO / name).read_text(encoding="utf-8"))
        for name in (
            "bioamber-development-agreement.txt",
            "adams-resources-asset-purchase-agreement.txt",
        )
    ]
    return Corpus(docs, embedder=None)  # lexical-only hybrid keeps the test fast


def test_rerank_keeps_the_cross_encoders_order_of_hybrids_candidates(
    tiny_cross_encoder: Path, corpus: Corpus
) -> None:
    reranker = Reranker(str(tiny_cross_encoder))
    retriever = Retriever(corpus, reranker=reranker)
    candidates = retriever.hybrid_ranking(QUESTION, RERANK_DEPTH)
    assert len(candidates) == RERANK_DEPTH

    # The cross-encoder's own scores for the 40 pairs, computed here without our code.
    from sentence_transformers import CrossEncoder

    model = CrossEncoder(str(tiny_cross_encoder), device="cpu")
    texts = []
    for i, _ in candidates:
        p = corpus.passage(i)
        texts.append(f"{p.context}\n{p.text}" if p.context else p.text)
    own = np.asarray(model.predict([(QUESTION, t) for t in texts]))
    expected = [candidates[j][0] for j in np.argsort(-own, kind="stable")[:10]]

    got = retriever.reranked(QUESTION, 10)
    assert [row for row, _ in got] == expected
    assert np.allclose([s for _, s in got], sorted(own, reverse=True)[:10], atol=1e-5)
    # Reranking changed hybrid's order (a random cross-encoder would not keep it).
    assert [row for row, _ in got] != [row for row, _ in candidates[:10]]


def test_plain_navembed_reranks_when_a_cross_encoder_is_configured(
    tiny_cross_encoder: Path, corpus: Corpus
) -> None:
    with_reranker = Retriever(corpus, reranker=Reranker(str(tiny_cross_encoder)))
    result = retrieve(with_reranker, QUESTION, "navembed", 10)
    assert result.strategy == "navembed:rerank"
    assert retrieve(with_reranker, QUESTION, "navembed:hybrid", 10).strategy == "navembed:hybrid"
    assert retrieve(Retriever(corpus), QUESTION, "navembed", 10).strategy == "navembed:convex"
    assert normalise_mode("navembed:rerank") == "rerank"


def test_rerank_without_a_cross_encoder_says_how_to_configure_one(corpus: Corpus) -> None:
    with pytest.raises(ValueError, match="RERANKER_MODEL"):
        retrieve(Retriever(corpus), QUESTION, "navembed:rerank", 10)
    with pytest.raises(RerankerUnavailable, match="not a folder"):
        Reranker("/nonexistent/cross-encoder").scores(QUESTION, ["text"])


def test_the_measurement_door_reranks_with_the_configured_model(
    tiny_cross_encoder: Path, settings, tmp_path: Path, monkeypatch, capsys
) -> None:
    import io
    import sys

    from legalnav.retrieval import rerank

    settings.RERANKER_MODEL = str(tiny_cross_encoder)
    rerank._reranker_for.cache_clear()
    path = str(DEMO / "bioamber-development-agreement.txt")
    lines = [
        {"id": m, "documents": [path], "question": QUESTION, "mode": m, "k": 10}
        for m in ("navembed:rerank", "navembed:bm25")
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(json.dumps(x) for x in lines)))
    call_command("retrieve", "--json", "--cache", str(tmp_path / "cache"))
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.strip()]
    assert [o["id"] for o in out] == ["navembed:rerank", "navembed:bm25"]
    reranked = out[0]["results"]
    assert len(reranked) == 10 and "error" not in out[0]
    assert [r["score"] for r in reranked] == sorted((r["score"] for r in reranked), reverse=True)
    assert [(r["start"], r["end"]) for r in reranked] != [
        (r["start"], r["end"]) for r in out[1]["results"]
    ]
