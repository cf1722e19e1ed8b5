"""What is embedded and how: passages no question is answered by (a signature block, a contents
line the parser missed, page furniture) get no vector and never rank in dense search, while they
stay in BM25; every normal clause is embedded; a batch keeps its order and its vectors.

The passages quoted are from CUAD v1 contracts (CC BY 4.0, ../shared/data/cuad/contracts)."""

from __future__ import annotations

import numpy as np
import pytest

from legalnav.retrieval.engine import Corpus, Retriever
from legalnav.retrieval.index import build_doc_index
from legalnav.retrieval.passages import skip_embedding
from tests.retrieval.embedders import HashEmbedder

SIGNATURE = (
    "IN WITNESS WHEREOF, the Parties have executed this Agreement as of the Effective Date. "
    "ANIXA BIOSCIENCES, INC. ONTOCHEM GMBH By: /s/ Amit Kumar By: /s/ Lutz Weber Amit Kumar, "
    "Ph.D. Name: Dr. Lutz Weber President and Chief Executive Officer Title: CEO 12"
)
BLANK_SIGNATURE = (
    "IN WITNESS WHEREOF ZYNGA INC. Signature: ______________________ Name: _________________ "
    "Title: __________________ WPT ENTERPRISES, INC. Signature: _________________ Name: "
    "____________________ Title: _____________________"
)

SKIPPED = {
    "signature": [SIGNATURE, BLANK_SIGNATURE],
    "toc": [
        "Section 2.01 Appointment; Exclusivity 5",
        "ARTICLE IX MISCELLANEOUS 38 ii",
        "Section 6.02 Conditions of the Company's Obligations 31",
        "5. GOVERNING LAW - ARBITRATION 7",
    ],
    "furniture": ["-7-", "Page 41 of 85", "Source: AIMMUNE THERAPEUTICS, INC., 8-K, 2/5/2020", "."],
}

CLAUSES = [
    "(i) stop using Confidential Information;",
    '1.75 "Variant" means [***].',
    "(5) [***]; or (6) [***].",
    "(b) Territory. The license hereby granted extends worldwide.",
    "13. TERM AND TERMINATION.",
    "2. The initial term of this Agreement is 5",
    "(1) 1st License Year (8/1/95 - 1/30/97): $",
    "This Agreement shall be governed by the laws of the State of New York, without regard to "
    "its conflict of laws principles.",
    # A preamble with blanks to fill in is no signature block.
    "EXHIBIT G CONFIDENTIALITY AGREEMENT This Confidentiality and Noncompetition Agreement (the "
    '"Agreement") is made and entered into effective the _____day of ________________, 2000 by '
    "and between Airsopure International Group, Inc., a Nevada corporation",
    # The parser's signature node often runs on into a schedule: the prose after it counts.
    "General Provisions. TWIN CITIES POWER HOLDINGS, LLC By: Name: Title: REDWATER LLC. By: "
    "Name: K. Edward Elverud Title: Manager Approval of Expenditures: Contractor agrees to secure "
    "Company's written approval of all expenditures in connection with Company's plans. "
    "Cancellation of Plans: Company reserves the right to cancel any plans.",
    # A clause the signatures follow at once is prose (CUAD: IntriCon, WatchGuard).
    "12.8 This Agreement is governed by the laws of Victoria, Australia and the parties submit "
    "to the jurisdiction of the courts of Victoria, Australia. The 1980 United Nations Convention "
    "on Contracts for the International Sale of Goods does not apply to this Agreement. DYNAMIC "
    "HEARING PTY LTD INTRICON CORPORATION /s/ Elaine Saunders /s/ Mark S. Gorder Printed Name: "
    "Elaine Saunders Printed Name: Mark S. Gorder Title: CEO Title: President & CEO",
    "Section A.3 As a Full Service Master Distributor, Distributor agrees to sign up a minimum of "
    "10 new WatchGuard resellers in the Territory within the Initial Term of the Agreement. "
    "Distributor: WatchGuard Technologies, Inc.: By: /s/ LAURENCE GILBERT By: /s/ WATCHGUARD "
    "Title: MANAGING DIRECTOR Title: SENIOR VICE PRESIDENT/SALES",
    # A witness clause that binds the parties to something is prose.
    "IN WITNESS WHEREOF, the parties have caused this Agreement to be executed as of the "
    "Effective Date by their duly authorized representatives. The parties acknowledge and agree "
    "that this Agreement does not become effective until it has been signed by all parties.",
]


@pytest.mark.parametrize(
    ("reason", "text"), [(reason, text) for reason, texts in SKIPPED.items() for text in texts]
)
def test_signature_blocks_contents_lines_and_page_furniture_are_not_embedded(reason, text):
    assert skip_embedding(text) == reason


@pytest.mark.parametrize("text", CLAUSES)
def test_a_normal_clause_is_always_embedded(text):
    assert skip_embedding(text) is None


CONTRACT = f"""SUPPLY AGREEMENT

1. Supply. Seller shall supply the Products to Buyer at the prices set out in Schedule A.

2. Governing Law. This Agreement is governed by the laws of the State of Delaware.

-7-

3. Term. This Agreement runs for five years from the Effective Date.

{SIGNATURE}
"""


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: list[str], **kwargs: object) -> np.ndarray:
        self.seen += texts
        return super().encode(texts, **kwargs)


def test_skipped_passages_get_a_zero_vector_never_rank_in_dense_search_and_stay_in_bm25():
    embedder = CountingEmbedder()
    doc = build_doc_index(CONTRACT, "x")
    corpus = Corpus([doc], embedder=embedder)
    signature = [i for i, p in enumerate(doc.passages) if skip_embedding(p.text)]
    assert len(signature) == 1 and "Amit Kumar" in doc.passages[signature[0]].text
    matrix = corpus.passage_matrix()
    assert not matrix[signature[0]].any()
    assert all(matrix[i].any() for i in range(corpus.size) if i not in signature)
    assert not any("Amit Kumar" in t for t in embedder.seen)
    assert len(embedder.seen) == corpus.size - 1
    retriever = Retriever(corpus)
    # A question in the signature block's own words: dense search never returns it ...
    ranking, scores = retriever.dense_ranking("executed Amit Kumar Lutz Weber CEO", corpus.size)
    assert signature[0] not in ranking and signature[0] not in scores
    assert len(ranking) == corpus.size - 1
    # ... BM25 finds it, and so does the fused ranking.
    lexical, _ = retriever.bm25_ranking("Amit Kumar Lutz Weber", 1)
    assert lexical == signature
    fused = retriever.hybrid_ranking("Amit Kumar Lutz Weber", corpus.size)
    assert signature[0] in [r for r, _ in fused]
    # Asked again, nothing is embedded a second time.
    embedder.seen.clear()
    corpus.ensure_vectors()
    assert embedder.seen == []


def test_dense_search_over_candidates_skips_unembedded_passages_too():
    doc = build_doc_index(CONTRACT, "x")
    corpus = Corpus([doc], embedder=HashEmbedder())
    signature = next(i for i, p in enumerate(doc.passages) if skip_embedding(p.text))
    rows, scores = corpus.dense_scores("Amit Kumar", np.arange(corpus.size))
    assert signature not in rows.tolist() and len(rows) == len(scores) == corpus.size - 1


def test_a_batch_of_mixed_lengths_keeps_its_order_and_its_vectors():
    """Texts are sorted by length inside the batch (sentence-transformers) and put back: each
    row is the vector of the text at that position, as if it were encoded alone."""
    from legalnav.retrieval.embeddings import get_embedder

    embedder = get_embedder()
    texts = [
        CLAUSES[7] * 6,  # past the model's 256 tokens
        "Page 3",
        CLAUSES[3],
        SIGNATURE,
        CLAUSES[0],
        CLAUSES[7],
    ]
    batch = embedder.encode(texts, batch_size=2)
    alone = np.vstack([embedder.encode([t]) for t in texts])
    assert batch.shape == (len(texts), embedder.dimension)
    assert np.allclose(batch, alone, atol=1e-5)
    assert [int(np.argmax(alone @ row)) for row in batch] == list(range(len(texts)))


@pytest.mark.django_db
def test_the_vector_store_gets_no_point_for_an_unembedded_passage(settings, matter, monkeypatch):
    from qdrant_client import QdrantClient

    from legalnav.documents.models import Document
    from legalnav.documents.services import document_add, document_index
    from legalnav.retrieval import services as retrieval_services
    from legalnav.retrieval.vectors import ServerVectorStore

    store = ServerVectorStore(client=QdrantClient(location=":memory:"))
    settings.QDRANT_URL = "http://qdrant.invalid:6333"  # never dialled: the client is given
    settings.VECTOR_STORE = "server"
    settings.EMBED_ON_INDEX = True
    monkeypatch.setattr(retrieval_services, "get_vector_store", lambda: store)
    doc, _ = document_add(
        matter=matter, filename="supply.txt", data=CONTRACT.encode(), kind="agreement"
    )
    document_index(document_id=doc.pk)
    doc.refresh_from_db()
    assert doc.status == Document.Status.INDEXED, doc.error_message
    passages = build_doc_index(CONTRACT, "x").passages
    embedded = [p for p in passages if skip_embedding(p.text) is None]
    assert doc.vector_collection
    assert store.count(doc.vector_collection) == len(embedded) == len(passages) - 1
    store.close()


def test_a_celery_pool_process_warms_the_model_without_waiting_for_it(settings, monkeypatch):
    import threading

    from celery.signals import worker_process_init

    from legalnav.retrieval import receivers

    release = threading.Event()
    monkeypatch.setattr(receivers, "_warm", lambda: release.wait(30))
    monkeypatch.setattr(receivers, "_warm_thread", None)
    settings.EMBEDDING_WARM_UP = True
    worker_process_init.send(sender="test-host")  # returns while the warm-up still runs
    thread = receivers._warm_thread
    assert thread is not None and thread.name == "embedding-warm-up" and thread.is_alive()
    assert receivers.warm_embedder() is thread  # once per process
    release.set()
    thread.join(5)
    assert not thread.is_alive()
    settings.EMBEDDING_WARM_UP = False
    monkeypatch.setattr(receivers, "_warm_thread", None)
    assert receivers.warm_embedder() is None


def test_a_pool_process_embeds_on_its_share_of_the_cores(monkeypatch):
    from legalnav.retrieval import embeddings

    monkeypatch.setattr(embeddings, "_PROCESS_THREADS", 0)
    monkeypatch.setattr(embeddings.os, "cpu_count", lambda: 8)
    assert embeddings.share_cores(2) == 4 and embeddings._PROCESS_THREADS == 4
    assert embeddings.share_cores(16) == 1  # never fewer than one thread
    assert embeddings.share_cores(0) == 8


def test_embedding_threads_set_by_the_operator_win_over_the_share(monkeypatch, settings):
    """Several worker processes on one machine each see all its cores: EMBEDDING_THREADS says
    how many each embeds on, for a pool process and for a model loaded outside one."""
    from legalnav.retrieval import embeddings

    monkeypatch.setattr(embeddings, "_PROCESS_THREADS", 0)
    monkeypatch.setattr(embeddings.os, "cpu_count", lambda: 8)
    settings.EMBEDDING_THREADS = 3
    assert embeddings.share_cores(1) == 3 and embeddings.configured_threads() == 3
    settings.EMBEDDING_THREADS = 0
    assert embeddings.share_cores(1) == 8
