"""Amendment pairing in the navindex planner: a provision and the amendment that changes it are
read together, inside the 10-node cap."""

from __future__ import annotations

import pytest

from legalnav.retrieval.engine import NAVINDEX_CAP
from legalnav.retrieval.services import amendment_pairs, matter_retriever
from tests.conftest import index_bioamber_pair

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(matter):
    return index_bioamber_pair(matter)


def _node(retriever, position: int, node_id: str) -> int:
    return next(
        j for j, n in enumerate(retriever.corpus.docs[position].nodes) if n.node_id == node_id
    )


def test_pairs_link_the_amended_section_and_the_amending_provision(matter, pair) -> None:
    base, amendment = pair
    built = matter_retriever(matter=matter, dense=False)
    positions = {d.pk: i for i, d in enumerate(built.documents)}
    b, a = positions[base.pk], positions[amendment.pk]
    s22 = _node(built.retriever, b, "s2.2")
    pairs = amendment_pairs(built.documents, built.retriever.corpus.docs)
    partners = pairs[(b, s22)]
    assert partners and all(d == a for d, _ in partners)
    amending = built.retriever.corpus.docs[a]
    texts = [next(p.text for p in amending.passages if p.node == n) for _, n in partners]
    assert any("Section 2.2 of the Development Agreement" in t for t in texts)
    # and back, unless the amending text sits in a preamble that may mention many sections
    for _, n in partners:
        if amending.nodes[n].kind not in ("preamble", "recitals", "recital"):
            assert (b, s22) in pairs[(a, n)]
        else:
            assert (b, s22) not in pairs.get((a, n), [])


def test_the_planner_reads_an_amended_section_with_its_amendment(matter, pair) -> None:
    base, _ = pair
    built = matter_retriever(matter=matter, dense=False)
    positions = {d.pk: i for i, d in enumerate(built.documents)}
    b = positions[base.pk]
    s22 = _node(built.retriever, b, "s2.2")
    question = "How much does Bioamber pay Cargill per full-time equivalent person, and how are invoices audited?"
    partners = built.retriever.corpus.pairs[(b, s22)]
    base_start = built.retriever.corpus.docs[b].nodes[s22].start

    def covering_then_partner(hits) -> bool:
        for i, h in enumerate(hits[:-1]):
            if h.doc == b and h.start <= base_start < h.end:
                return (hits[i + 1].doc, hits[i + 1].node) in partners
        return False

    result = built.retriever.navindex(question, 10)
    assert len(result.hits) <= NAVINDEX_CAP
    # Section 2.2 is picked, and the provision amending it is read right after it.
    assert covering_then_partner(result.hits), [(h.doc, h.node) for h in result.hits]
    # Without pairing, the amending provision does not follow it: pairing is what puts it there.
    built.retriever.corpus.pairs = {}
    assert not covering_then_partner(built.retriever.navindex(question, 10).hits)
