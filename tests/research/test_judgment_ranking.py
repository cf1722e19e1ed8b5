"""Judgment-level ranking (research/ranking.py) on a tiny corpus of real AILA 2019 judgments,
read from ../shared/data at test time (never copied here):

- C4   Budh Singh and Others v State of Uttar Pradesh (2006): murder, Sections 148, 302,
       307/149 IPC; it cites C74 and C163 among others;
- C74  Shambhoo Missir and Another v State of Bihar (1990): Section 302 read with 34 IPC;
- C163 Narendra Singh & Anr v State Of M.P. (2004): Sections 302 and 201 IPC;
- C1   Masud Khan v State Of Uttar Pradesh (1973): internment of a foreigner;
- C10  Prabhakaran Nair v State Of Tamil Nadu (1987): rent control.
"""

from __future__ import annotations

import numpy as np
import pytest

from legalnav.research import ranking as judgments
from legalnav.retrieval.bm25 import BM25, tokenize
from legalnav.retrieval.engine import Corpus, Retriever, query_tokens, rank_documents
from legalnav.retrieval.index import build_doc_index
from tests.research.conftest import aila_path, aila_text
from tests.retrieval.embedders import HashEmbedder

CASES = ["C74", "C163", "C1", "C10"]

# A fact statement in the AILA manner: a murder conviction under Section 302 IPC. Its ordinary
# words (appellant, High Court, order, dated, appeal) are in every judgment of the corpus.
MURDER_FACTS = (
    "The appellants were convicted by the Sessions Judge under Section 302 read with Section 34 "
    "of the Indian Penal Code for the murder of the deceased, who was assaulted with lathis and "
    "a pharsi near his field on 12 March 1985 and died of the injuries. The High Court by its "
    "order dated 4 May 1988 dismissed the appeal of the appellants and confirmed the conviction "
    "and the sentence of imprisonment for life. The eye witnesses were related to the deceased."
)


def make_corpus(cases: list[str], embedder=None) -> Corpus:
    docs = [build_doc_index(aila_text(c), c) for c in cases]
    return Corpus(docs, embedder=embedder)


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return make_corpus(CASES)


def test_whole_judgment_bm25_is_bm25_over_each_judgments_passages_together(corpus):
    # Built from the passage index's postings, it must equal BM25 over each judgment's tokens.
    whole = BM25(
        [[t for p in d.passages for t in tokenize(f"{p.context} {p.text}")] for d in corpus.docs]
    )
    question = query_tokens(MURDER_FACTS)
    index = judgments.judgment_index(corpus)
    assert np.allclose(index.bm25.scores(question), whole.scores(question))
    assert index.bm25.scores(question).argmax() in (0, 1)  # C74 or C163


def test_informative_terms_are_capped_and_drop_ordinary_words(corpus):
    bm25 = judgments.judgment_index(corpus).bm25
    terms = bm25.informative(MURDER_FACTS, 8)
    assert len(terms) == 8 and len(set(terms)) == 8
    assert "appellant" not in terms  # in every judgment: idf at the floor
    assert bm25.informative(MURDER_FACTS, 0) == query_tokens(MURDER_FACTS)


def test_statute_keys_read_sections_and_articles_as_the_case_card_does():
    keys = judgments.statute_keys(
        "convicted under Section 302 IPC and Section 27 of the Arms Act, 1959; his detention "
        "offends Article 21 of the Constitution of India"
    )
    assert {"penal code", "penal code|302", "arms act|27", "constitution|article 21"} <= keys
    assert judgments.statute_keys("Section S of Act A1 was invoked") == frozenset()


def test_card_evidence_favours_the_judgments_citing_the_questions_sections(corpus):
    index = judgments.judgment_index(corpus)
    docs = np.arange(len(CASES))
    evidence = index.card_scores(MURDER_FACTS, docs)
    card = dict(zip(CASES, evidence["card"].tolist(), strict=True))
    assert card["C74"] > 0 and card["C163"] > 0
    assert card["C1"] == 0 and card["C10"] == 0
    # Years past the latest the question names (1988) and a year's grace, at most 10: C163
    # (2004) is penalised fully, C74 (1990) by one, C1 (1973) and C10 (1987) not at all.
    time = dict(zip(CASES, evidence["time"].tolist(), strict=True))
    assert time == {"C74": -1.0, "C163": -10.0, "C1": 0.0, "C10": 0.0}


def test_citations_between_judgments_of_the_corpus_count_for_the_cited():
    cases = ["C4", *CASES]
    index = judgments.judgment_index(make_corpus(cases))
    cards = index.cards
    assert cards[0].name == "Budh Singh and Others v State of Uttar Pradesh"
    assert cards[0].year == 2006
    links = judgments.citation_links(cards)
    assert links[0] == {cases.index("C74"), cases.index("C163")}
    cited_by = index.card_scores("facts", np.arange(len(cases)))["cited_by"]
    assert cited_by[cases.index("C74")] > 0 and cited_by[cases.index("C163")] > 0
    assert cited_by[cases.index("C1")] == 0 and cited_by[0] == 0


def test_murder_facts_rank_the_murder_judgments_first_one_hit_per_judgment():
    corpus = make_corpus(CASES, embedder=HashEmbedder())
    result = rank_documents(Retriever(corpus), MURDER_FACTS, "navembed", 10)
    assert result.strategy == "documents:judgments"
    ranked = [CASES[h.doc] for h in result.hits]
    assert sorted(ranked) == sorted(CASES)  # every judgment once
    assert set(ranked[:2]) == {"C74", "C163"}
    for h in result.hits:  # each range is one of the judgment's passages
        doc = corpus.docs[h.doc]
        assert any(p.start == h.start and p.end == h.end for p in doc.passages)
    # The default weights use no dense evidence: nothing was embedded.
    assert all(d.vectors is None for d in corpus.docs)


def test_dense_variant_embeds_only_the_leading_candidates_best_passages():
    corpus = make_corpus(CASES, embedder=HashEmbedder())
    evidence = judgments.gather(corpus, MURDER_FACTS, dense=True, dense_docs=2)
    embedded = {
        (d, p)
        for d, doc in enumerate(corpus.docs)
        if doc.vectors is not None
        for p in np.flatnonzero(~np.isnan(doc.vectors[:, 0])).tolist()
    }
    assert 0 < len(embedded) <= 2 * judgments.TOP_PASSAGES
    assert len({d for d, _ in embedded}) == 2  # the two leading candidates only
    has = evidence.features["dense_best"] > evidence.features["dense_best"].min()
    assert has.sum() <= 2
    result = rank_documents(Retriever(corpus), MURDER_FACTS, "navembed:judgments-dense", 4)
    assert result.strategy == "documents:judgments-dense"
    assert len({h.doc for h in result.hits}) == 4


def test_a_judgment_sharing_the_sections_and_facts_outranks_one_sharing_common_words():
    question = (
        "The appellant was convicted under Section 302 of the Indian Penal Code; the High Court "
        "dismissed his appeal against the order and the State did not appeal."
    )
    cases = ["C163", "C1", "C10"]
    corpus = make_corpus(cases)
    # C10 (rent control, a long judgment) holds the question's ordinary words more often than
    # C163 does (141 against 79): counting shared words would choose it.
    ordinary = {"high", "court", "dismiss", "appeal", "order", "state", "against"}

    def shared(doc) -> int:  # type: ignore[no-untyped-def]
        words = (t for p in doc.passages for t in tokenize(f"{p.context} {p.text}"))
        return sum(1 for t in words if t in ordinary)

    assert shared(corpus.docs[2]) > shared(corpus.docs[0])
    result = judgments.rank_judgments(corpus, question, 3)
    assert [cases[h.doc] for h in result.hits][0] == "C163"
    card = judgments.judgment_index(corpus).card_scores(question, np.arange(3))["card"]
    assert card[0] > 0 and card[1] == card[2] == 0


def test_judgment_bm25_variant_returns_one_result_per_document_by_whole_judgment_bm25(corpus):
    result = rank_documents(Retriever(corpus), MURDER_FACTS, "navembed:judgment-bm25", 3)
    assert result.strategy == "documents:judgment-bm25"
    docs = [h.doc for h in result.hits]
    assert len(docs) == len(set(docs)) == 3
    scores = judgments.judgment_index(corpus).bm25.scores(query_tokens(MURDER_FACTS))
    assert docs == sorted(range(len(CASES)), key=lambda d: -scores[d])[:3]
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


def test_named_passage_strategies_still_rank_by_best_passage(corpus):
    result = rank_documents(Retriever(corpus), MURDER_FACTS, "navembed:bm25", 4)
    assert result.strategy == "documents:bm25"
    passage = corpus.bm25.scores(query_tokens(MURDER_FACTS))
    best = [
        max(passage[i] for i, (d, _) in enumerate(corpus.owner) if d == doc) for doc in range(4)
    ]
    assert [h.doc for h in result.hits] == sorted(range(4), key=lambda d: -best[d])


def test_the_door_answers_a_document_request_with_the_judgment_ranking(tmp_path):
    from tests.retrieval.test_retrieve_command import run_retrieve

    paths = [str(aila_path(c)) for c in CASES]
    lines = [
        {
            "id": mode,
            "documents": paths,
            "question": MURDER_FACTS,
            "mode": mode,
            "k": 3,
            "unit": "document",
        }
        for mode in ("navembed", "navembed:judgment-bm25", "navembed:bm25")
    ]
    responses, stderr = run_retrieve(lines, tmp_path / "cache")
    by_id = {r["id"]: r for r in responses}
    assert by_id["navembed"]["strategy"] == "documents:judgments", stderr[-2000:]
    assert by_id["navembed:judgment-bm25"]["strategy"] == "documents:judgment-bm25"
    assert by_id["navembed:bm25"]["strategy"] == "documents:bm25"
    for r in responses:
        assert "error" not in r, r
        found = [x["path"] for x in r["results"]]
        assert len(found) == len(set(found)) == 3
        for x in r["results"]:
            text = open(x["path"], "rb").read().decode("utf-8")
            assert 0 <= x["start"] < x["end"] <= len(text)
    top = {x["path"] for x in by_id["navembed"]["results"][:2]}
    assert top == {paths[0], paths[1]}
