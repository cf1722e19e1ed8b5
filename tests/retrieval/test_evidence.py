"""The evidence stage of navembed: sentence-sized ranges inside the best passages, a cut-off that
returns fewer than k, and the payload that counts headings and definitions."""

from __future__ import annotations

import numpy as np
import pytest
from django.test import override_settings

from legalnav.retrieval import evidence
from legalnav.retrieval.engine import Corpus, Retriever, retrieve
from legalnav.retrieval.evidence import EvidenceParams, Unit, evidence_ranges, split_units
from legalnav.retrieval.index import build_doc_index
from tests.conftest import DEMO
from tests.retrieval.embedders import HashEmbedder

BIOAMBER = DEMO / "bioamber-development-agreement.txt"

CLAUSE = (
    "13.2 Governing Law. This Agreement shall be governed by the laws of the State of New "
    "York, without regard to its conflict of laws rules. Each party submits to the courts of "
    "New York County.\n\n(a) Notices shall be in writing; and (b) notices are given when "
    "delivered by hand."
)


def params(**changes: object) -> EvidenceParams:
    base = dict(cutoff=0.0, keep=1, trim=0.5, lexical_share=0.5)
    base.update(changes)
    return EvidenceParams(**base)  # type: ignore[arg-type]


def test_units_are_sentences_and_list_items_at_exact_offsets():
    text = "PREFIX " + CLAUSE + " SUFFIX"
    start = text.index("13.2")
    end = start + len(CLAUSE)
    units = split_units(text, start, end)
    pieces = [text[a:b] for a, b in units]
    # The short heading joins its sentence; each sentence and list item stands alone.
    assert pieces[0].startswith("13.2 Governing Law. This Agreement shall be governed")
    assert pieces[0].endswith("conflict of laws rules.")
    assert pieces[1] == "Each party submits to the courts of New York County."
    assert any(p.startswith("(a) Notices") for p in pieces)
    assert pieces[-1].endswith("(b) notices are given when delivered by hand.")
    assert not pieces[-1].startswith("(a)")
    # Exact, ordered, inside the range, nothing but whitespace left out.
    assert all(start <= a < b <= end for a, b in units)
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(units, units[1:], strict=False))
    gaps = "".join(text[b1:a2] for (_, b1), (a2, _) in zip(units, units[1:], strict=False))
    assert not gaps.strip()


def test_an_unpunctuated_run_is_cut_below_the_maximum():
    text = "word " * 400
    units = split_units(text, 0, len(text))
    assert len(units) > 1
    assert all(b - a <= evidence.UNIT_MAX for a, b in units)


def _units() -> list[Unit]:
    # Two passages (rows 0 and 1), three units each, in order.
    return [
        Unit(0, 0, 100, "a"),
        Unit(0, 101, 200, "b"),
        Unit(0, 201, 300, "c"),
        Unit(1, 1000, 1100, "d"),
        Unit(1, 1101, 1200, "e"),
        Unit(1, 1201, 1300, "f"),
    ]


def test_passages_keep_their_order_and_are_cut_to_the_units_near_their_best():
    ranked = [(1, 0.9), (0, 0.8)]
    lexical = np.array([0.0, 9.0, 8.0, 1.0, 0.0, 0.0])
    cosine = np.array([0.1, 0.9, 0.8, 0.2, 0.1, 0.1])
    got = evidence_ranges(ranked, _units(), lexical, cosine, params(), 10)
    # Row 1 first, as the first stage ranked it; row 0 is cut to units b and c (a scores low).
    assert [(r.row, r.start, r.end) for r in got] == [(1, 1000, 1100), (0, 101, 300)]
    assert [r.score for r in got] == [0.9, 0.8]
    # With no trim, the whole passage goes.
    whole = evidence_ranges(ranked, _units(), lexical, cosine, params(trim=0.0), 10)
    assert [(r.start, r.end) for r in whole] == [(1000, 1300), (0, 300)]
    # A unit between two kept ones goes with them: the range is one run of text.
    gap = np.array([9.0, 0.0, 9.0, 0.0, 0.0, 0.0])
    run = evidence_ranges([(0, 1.0)], _units(), gap, None, params(lexical_share=1.0), 10)
    assert [(r.start, r.end) for r in run] == [(0, 300)]


def test_the_cut_off_returns_fewer_than_k_but_never_fewer_than_keep():
    ranked = [(0, 1.0), (1, 0.5)]
    lexical = np.ones(6)
    both = evidence_ranges(ranked, _units(), lexical, None, params(cutoff=0.4), 10)
    assert len(both) == 2
    cut = evidence_ranges(ranked, _units(), lexical, None, params(cutoff=0.6), 10)
    assert [r.row for r in cut] == [0]
    kept = evidence_ranges(ranked, _units(), lexical, None, params(cutoff=0.6, keep=2), 10)
    assert [r.row for r in kept] == [0, 1]
    assert len(evidence_ranges(ranked, _units(), lexical, None, params(), 1)) == 1


@pytest.fixture(scope="module")
def bioamber():
    text = BIOAMBER.read_text(encoding="utf-8")
    doc = build_doc_index(text, "sha-bioamber")
    return text, doc


def test_navembed_sends_less_than_whole_passages_and_keeps_the_answer(bioamber, settings):
    settings.LEGALNAV_EVIDENCE_TRIM = 0.5
    settings.LEGALNAV_EVIDENCE_CUTOFF = 0.0
    text, doc = bioamber
    corpus = Corpus([doc], embedder=HashEmbedder(), texts=[text])
    retriever = Retriever(corpus)
    question = "Which state's law governs the interpretation of the agreement?"
    ranges = retrieve(retriever, question, "navembed", 10)
    whole = retrieve(retriever, question, "navembed:passages", 10)
    assert ranges.strategy == "navembed:convex"
    assert whole.strategy == "navembed:passages"
    sent = sum(h.end - h.start for h in ranges.hits)
    assert sent < sum(h.end - h.start for h in whole.hits)
    governing = text.index("Governing Law")
    assert any(h.start <= governing + 40 < h.end for h in ranges.hits[:3]), ranges.hits[:3]
    # Every range is inside one passage of its clause, with its text as the prompt reads it.
    for h in ranges.hits:
        assert 0 <= h.start < h.end <= len(text)
        assert " ".join(text[h.start : h.end].split()) == h.text
    # The payload adds each clause's heading path and the definitions it uses.
    assert ranges.payload_chars >= sent
    with override_settings(LEGALNAV_EVIDENCE=False):
        off = retrieve(retriever, question, "navembed", 10)
    assert [(h.start, h.end) for h in off.hits] == [(h.start, h.end) for h in whole.hits]
    # Without trimming or a cut-off the stage returns the whole passages, in the same order.
    with override_settings(LEGALNAV_EVIDENCE_TRIM=0.0):
        untrimmed = retrieve(retriever, question, "navembed", 10)
    assert [(h.start, h.end) for h in untrimmed.hits] == [(h.start, h.end) for h in whole.hits]


def test_without_the_document_text_a_passage_is_one_range(bioamber):
    text, doc = bioamber
    retriever = Retriever(Corpus([doc], embedder=HashEmbedder()))
    found = retrieve(retriever, "governing law", "navembed", 10)
    starts = {(p.start, p.end) for p in doc.passages}
    assert found.hits and all((h.start, h.end) in starts for h in found.hits)


def test_a_high_cut_off_returns_fewer_ranges(bioamber):
    text, doc = bioamber
    retriever = Retriever(Corpus([doc], embedder=HashEmbedder(), texts=[text]))
    question = "Which state's law governs the interpretation of the agreement?"
    with override_settings(LEGALNAV_EVIDENCE_CUTOFF=0.0):
        full = retrieve(retriever, question, "navembed", 10)
    with override_settings(LEGALNAV_EVIDENCE_CUTOFF=0.95, LEGALNAV_EVIDENCE_KEEP=1):
        cut = retrieve(retriever, question, "navembed", 10)
    assert len(full.hits) == 10
    assert 1 <= len(cut.hits) < len(full.hits)
    assert (cut.hits[0].start, cut.hits[0].end) == (full.hits[0].start, full.hits[0].end)
