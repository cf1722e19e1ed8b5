"""BM25 equals rank-bm25's BM25Okapi on the same tokens; passages keep exact offsets."""

from __future__ import annotations

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from legalnav.documents.parsing import parse_document
from legalnav.retrieval.bm25 import BM25, tokenize
from legalnav.retrieval.engine import normalise_mode, rrf
from legalnav.retrieval.passages import build_passages, passage_sizes, split_span
from tests.conftest import demo_bytes


@pytest.fixture(scope="module")
def coned():
    text = demo_bytes("coned-credit-agreement-2020.txt").decode("utf-8")
    parsed = parse_document(text)
    return text, parsed, build_passages(parsed.nodes, text)


@pytest.mark.parametrize(
    "query",
    [
        "governing law of the state of new york",
        "interest rate euro dollar loans margin margin",  # a repeated term counts twice
        "termination of commitments",
        "zzz unknownword",
    ],
)
def test_bm25_scores_equal_rank_bm25(coned, query):
    _, _, passages = coned
    corpus = [tokenize(f"{p.context} {p.text}") for p in passages]
    ours = BM25(corpus).scores(tokenize(query))
    reference = BM25Okapi(corpus).get_scores(tokenize(query))
    assert np.allclose(ours, reference, rtol=1e-12, atol=1e-12)


def test_passages_are_exact_ranges_of_bounded_size(coned):
    text, parsed, passages = coned
    assert len(passages) > 400
    for p in passages:
        node = parsed.nodes[p.node]
        assert node.start <= p.start < p.end <= node.end
        assert p.end - p.start <= passage_sizes()[1]
        raw = text[p.start : p.end].split()
        assert p.text.split()[:1] == raw[:1]
        rest = iter(raw)  # the passage's words are the source's words, page furniture dropped
        assert all(word in rest for word in p.text.split())
    gov = next(p for p in passages if "Governing Law" in p.context)
    assert "ARTICLE 9" in gov.context.upper() and "Section 9.10" in gov.context


def test_split_span_cuts_at_sentence_ends():
    text = " ".join(f"Sentence number {i} ends here." for i in range(200))
    pieces = split_span(text, 0, len(text))
    assert len(pieces) > 3
    assert all(b - a <= passage_sizes()[1] for a, b in pieces)
    assert all(text[a:b].rstrip().endswith(".") for a, b in pieces[:-1])
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text)


def test_passage_sizes_are_settings_read_at_each_call(settings, tmp_path):
    """LEGALNAV_PASSAGE_TARGET / _MAX: a change cuts smaller passages and names another cache
    entry, so an index built with the old sizes is never served."""
    from legalnav.retrieval.index import IndexCache

    text = " ".join(f"Sentence number {i} ends here." for i in range(200))
    default = split_span(text, 0, len(text))
    cache = IndexCache(tmp_path)
    before = cache.get("1. Term. The term is one year.\n")
    settings.LEGALNAV_PASSAGE_TARGET, settings.LEGALNAV_PASSAGE_MAX = 200, 300
    small = split_span(text, 0, len(text))
    assert len(small) > len(default) and all(b - a <= 300 for a, b in small)
    assert cache.get("1. Term. The term is one year.\n") is not before


def test_reciprocal_rank_fusion_formula():
    fused = rrf([[7, 3], [3, 9]])
    assert fused[3] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[7] == pytest.approx(1 / 61) and fused[9] == pytest.approx(1 / 62)


def test_score_fusion_formula():
    import numpy as np

    from legalnav.retrieval.engine import _convex

    lex_scores = np.array([0.0, 8.0, 4.0, 2.0, 0.0])
    lex = [1, 2, 3]  # BM25's ranking
    dense_scores = {4: 0.9, 2: 0.7, 0: 0.5}
    dense = [4, 2, 0]  # the dense ranking, best first
    fused = _convex(lex, lex_scores, dense, dense_scores, 0.5)
    assert set(fused) == {0, 1, 2, 3, 4}
    assert fused[1] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)  # best BM25, not in the dense list
    assert fused[2] == pytest.approx(0.5 * 0.5 + 0.5 * 0.5)  # half of each
    assert fused[4] == pytest.approx(0.5 * 0.0 + 0.5 * 1.0)  # best dense, no BM25 score
    assert fused[0] == pytest.approx(0.0) and fused[3] == pytest.approx(0.5 * 0.25)
    # alpha moves the weight: all on BM25 ranks BM25's best first
    by_bm25 = _convex(lex, lex_scores, dense, dense_scores, 1.0)
    assert max(by_bm25, key=by_bm25.get) == 1


def test_fusion_weights_are_settings_read_at_each_call(settings):
    """LEGALNAV_DENSE_WEIGHT (RRF) and LEGALNAV_FUSION_ALPHA (score fusion) take effect without
    a restart: all weight on one retriever gives that retriever's ranking."""
    from legalnav.retrieval.engine import Corpus, Retriever
    from legalnav.retrieval.index import build_doc_index
    from tests.retrieval.embedders import HashEmbedder

    text = demo_bytes("bioamber-development-agreement.txt").decode("utf-8")
    retriever = Retriever(Corpus([build_doc_index(text, "x")], embedder=HashEmbedder()))
    question = "How may the agreement be terminated for breach?"
    lexical = retriever.bm25_ranking(question, 10)[0]
    dense = retriever.dense_ranking(question, 10)[0]
    assert lexical != dense

    def top(fusion: str) -> list[int]:
        return [row for row, _ in retriever.hybrid_ranking(question, 10, fusion=fusion)]

    settings.LEGALNAV_DENSE_WEIGHT = 0.0
    assert top("rrf") == lexical
    settings.LEGALNAV_DENSE_WEIGHT = 1000.0
    assert top("rrf") == dense
    settings.LEGALNAV_FUSION_ALPHA = 1.0
    assert top("convex")[0] == lexical[0]
    settings.LEGALNAV_FUSION_ALPHA = 0.0
    assert top("convex")[0] == dense[0]


@pytest.mark.parametrize(
    ("mode", "strategy"),
    [
        ("navembed", "convex"),
        ("navembed:hybrid", "hybrid"),
        ("navembed:rrf", "hybrid"),
        ("navembed:bm25", "bm25"),
        ("navembed-dense", "dense"),
        ("NAVINDEX", "navindex"),
        ("inject", "inject"),
        ("auto", "auto"),
        ("navembed:dense+xref", "dense+xref"),
    ],
)
def test_mode_names(mode, strategy):
    assert normalise_mode(mode) == strategy


def test_unknown_mode_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="navembed:bm25"):
        normalise_mode("magic")


def test_bench_retrieval_prints_latency_per_mode(settings, tmp_path):
    import json
    from io import StringIO

    from django.core.management import call_command

    from tests.conftest import DEMO

    settings.VAR_DIR = tmp_path
    out = StringIO()
    call_command(
        "bench_retrieval",
        str(DEMO / "bioamber-development-agreement.txt"),
        "--repeat",
        "1",
        "--json",
        stdout=out,
    )
    report = json.loads(out.getvalue())
    assert report["documents"] == 1 and report["passages"] > 20
    assert set(report["latency_ms"]) == {
        "navembed:bm25",
        "navembed:dense",
        "navembed",
        "navindex",
        "inject",
    }
    assert all(v["p50"] > 0 for m, v in report["latency_ms"].items() if m != "inject")
    assert report["embedding"]["documents_embedded_now"] == 1
    assert report["vector_store"] == {"kind": "memory"}


def test_bench_retrieval_can_search_every_vector_in_qdrant_edge(settings, tmp_path):
    import json
    from io import StringIO

    from django.core.management import call_command

    from tests.conftest import DEMO

    settings.VAR_DIR = tmp_path
    out = StringIO()
    args = [str(DEMO / "bioamber-development-agreement.txt"), "--repeat", "1", "--json"]
    call_command("bench_retrieval", *args, "--store", "edge", stdout=out)
    report = json.loads(out.getvalue())
    assert report["vector_store"]["kind"] == "edge"
    assert report["vector_store"]["points"] == report["passages"]
    # Edge's exact search gives the in-memory run's payloads (same passages chosen).
    out2 = StringIO()
    call_command("bench_retrieval", *args, stdout=out2)
    assert json.loads(out2.getvalue())["payload_chars_median"] == report["payload_chars_median"]


def test_index_cache_keeps_a_bounded_number_of_documents_in_memory(tmp_path):
    from legalnav.retrieval.index import IndexCache

    cache = IndexCache(tmp_path, keep=2)
    texts = [f"{i}. Term. The term is {i} years.\n" for i in range(1, 5)]
    for text in texts:
        cache.get(text)
    assert len(cache.memory) == 4  # unsaved entries are never dropped
    cache.flush()
    cache.get("5. Fees. The fee is five dollars.\n")
    assert len(cache.memory) <= 3 and not cache.dirty - set(cache.memory)
    assert cache.get(texts[0]).passages  # a dropped entry comes back from disk
