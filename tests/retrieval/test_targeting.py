"""Document targeting: a question that names one document of a matter (by title, parties or
key) is ranked inside that document and its family; a question that names none is ranked as
before."""

from __future__ import annotations

import hashlib
from datetime import date

import pytest

from legalnav.retrieval.engine import Corpus, Retriever, _retrieve, normalise_mode, retrieve
from legalnav.retrieval.index import build_doc_index
from legalnav.retrieval.services import matter_retriever
from legalnav.retrieval.targeting import DocProfile, DocumentTargeter, opening_text
from tests.conftest import index_bioamber_pair
from tests.retrieval.embedders import HashEmbedder

CONTRACTS = [
    ("SUPPLY AGREEMENT", "Acme Widgets Inc.", "Bolt Logistics LLC", "New York"),
    ("DISTRIBUTION AGREEMENT", "Carrow Pharmaceuticals Ltd.", "Dunmore Health Inc.", "Delaware"),
    ("LICENSE AGREEMENT", "Ember Software Corp.", "Fallow Media Inc.", "California"),
    ("SERVICES AGREEMENT", "Gannet Energy Co.", "Harlow Engineering LLC", "Texas"),
]


def contract(title: str, first: str, second: str, state: str) -> str:
    name = title.title()
    return (
        f"{title}\n\n"
        f'This {name} (the "Agreement") is entered into as of March 1, 2019 by and between '
        f'{first} ("Company") and {second} ("Counterparty").\n\n'
        "1. Definitions. Capitalised terms have the meanings given in this Agreement.\n\n"
        "2. Term. This Agreement continues for three (3) years unless terminated earlier.\n\n"
        "3. Payment. Fees are payable within thirty (30) days of invoice.\n\n"
        f"4. Governing Law. This Agreement shall be governed by the laws of the State of {state}.\n\n"
        "5. Notices. Notices must be in writing and delivered to the addresses above.\n"
    )


def build(texts: list[str], profiles: list[DocProfile] | None = None) -> Retriever:
    docs = [build_doc_index(t, hashlib.sha256(t.encode()).hexdigest()) for t in texts]
    if profiles is not None:
        profiles = [
            DocProfile(
                key=p.key,
                title=p.title,
                kind=p.kind,
                effective_date=p.effective_date,
                amends=p.amends,
                opening=opening_text(d.passages),
            )
            for p, d in zip(profiles, docs, strict=True)
        ]
    return Retriever(Corpus(docs, embedder=HashEmbedder(), profiles=profiles))


@pytest.fixture
def room() -> Retriever:
    return build([contract(*c) for c in CONTRACTS])


LAW = "which state's law governs it?"


def _docs(result) -> list[int]:  # type: ignore[no-untyped-def]
    return [h.doc for h in result.hits]


@pytest.mark.parametrize("mode", ["navembed", "navembed:bm25", "navindex"])
def test_a_question_naming_a_document_by_parties_ranks_inside_it(room, mode) -> None:
    question = f"In the agreement between Carrow Pharmaceuticals and Dunmore Health: {LAW}"
    result = retrieve(room, question, mode, 10)
    assert result.hits and set(_docs(result)) == {1}
    assert result.notes["targeted"] == [1]
    # and the named contract's governing-law clause comes first, not its title block (the
    # offline planner, with this toy embedder, may read the preamble first)
    clause = contract(*CONTRACTS[1]).index("4. Governing Law")
    top = 2 if mode == "navindex" else 1
    assert any(h.start <= clause < h.end for h in result.hits[:top])


def test_a_question_naming_a_document_by_title_ranks_inside_it(room) -> None:
    result = retrieve(room, f"Under the License Agreement, {LAW}", "navembed", 10)
    assert set(_docs(result)) == {2}
    # Without the name, every contract's governing-law clause competes.
    plain = retrieve(room, f"Under the agreement, {LAW}", "navembed", 10)
    assert len(set(_docs(plain))) > 1 and "targeted" not in plain.notes


def test_a_question_naming_a_document_by_key_ranks_inside_it() -> None:
    texts = [contract(*c) for c in CONTRACTS]
    keys = [
        DocProfile(key=f"D{n}", title=c[0].title(), kind="agreement")
        for n, c in zip((10, 11, 12, 13), CONTRACTS, strict=True)
    ]
    room = build(texts, keys)
    result = retrieve(room, f"In D12, {LAW}", "navembed", 10)
    assert set(_docs(result)) == {2}
    assert result.notes["targeted_by"] == "key"
    assert room.targets("What does D99 say?").documents == []  # not in this matter


def test_an_amendment_comes_with_its_agreement() -> None:
    texts = [contract(*c) for c in CONTRACTS]
    amendment = (
        "FIRST AMENDMENT TO SUPPLY AGREEMENT\n\n"
        "This First Amendment amends the Supply Agreement between Acme Widgets Inc. and Bolt "
        "Logistics LLC.\n\n"
        "1. Governing Law. Section 4 is amended: the laws of the State of New Jersey govern.\n"
    )
    profiles = [
        DocProfile(key=f"D{i + 1}", title=c[0].title(), kind="agreement")
        for i, c in enumerate(CONTRACTS)
    ]
    profiles.append(
        DocProfile(
            key="D5",
            title="First Amendment",
            kind="amendment",
            amends=0,
            effective_date=date(2020, 1, 1),
        )
    )
    room = build([*texts, amendment], profiles)
    targeting = room.targets(
        f"In the Supply Agreement between Acme Widgets and Bolt Logistics: {LAW}"
    )
    assert targeting.documents == [0, 4] or targeting.documents == [4, 0]
    result = retrieve(room, f"In the Supply Agreement between Acme and Bolt: {LAW}", "navembed", 10)
    assert set(_docs(result)) == {0, 4}
    assert 4 in _docs(result)  # the amendment's governing-law provision is there


@pytest.mark.parametrize(
    "mode", ["navembed", "navembed:hybrid", "navembed:bm25", "navindex", "auto"]
)
def test_a_question_naming_nothing_keeps_todays_ranking(room, mode) -> None:
    for question in (
        f"Under the agreement, {LAW}",
        "When are fees payable?",
        "Governing Law: Which state/country's law governs the interpretation of the contract?",
        "Who are the parties to the agreement?",
    ):
        assert not room.targets(question)
        got = retrieve(room, question, mode, 10)
        today = _retrieve(room, question, mode, 10, normalise_mode(mode))
        assert [(h.doc, h.start, h.end, h.score) for h in got.hits] == [
            (h.doc, h.start, h.end, h.score) for h in today.hits
        ]


def test_one_document_is_never_targeted() -> None:
    single = build([contract(*CONTRACTS[0])])
    assert not single.targets(f"In the Supply Agreement between Acme and Bolt: {LAW}")


def test_generic_words_name_nothing() -> None:
    targeter = DocumentTargeter(
        [DocProfile(title=f"{c[0].title()}", opening=contract(*c)[:400]) for c in CONTRACTS]
    )
    assert not targeter.target("In the agreement between the parties, what is the term?")
    assert targeter.target("In the agreement with Gannet Energy, what is the term?").named == [3]


def test_a_title_named_as_a_phrase_names_its_document_when_its_words_are_common() -> None:
    """In the demo matter every agreement's text says "development" somewhere, so the word
    alone names nothing; "the development agreement", its title, does."""
    titles = [
        "Development Agreement (Cargill / BioAmber)",
        "Credit Agreement (Consolidated Edison, Inc.)",
        "Second Amendment to Credit Agreement (Phillips 66)",
        "LLC Agreement",
    ]
    targeter = DocumentTargeter(
        [DocProfile(title=t) for t in titles], text_holders=lambda word: range(len(titles))
    )
    assert not targeter.target("What law governs the development work?")  # the word alone
    found = targeter.target("What law governs the development agreement?")
    assert (found.named, found.by) == ([0], "title")
    assert found.without_names("What law governs the development agreement?") == (
        "What law governs the agreement?"
    )
    # The longest title the question holds: the credit agreement, not its amendment.
    assert targeter.target("What interest does the credit agreement charge?").named == [1]
    assert targeter.target("What did the second amendment to credit agreement change?").named == [2]
    # A title of generic words only, or none at all, names nothing.
    assert not targeter.target("What does the LLC agreement say about transfers?")
    assert not targeter.target("What law governs the agreement?")


@pytest.mark.django_db
def test_in_a_matter_the_agreement_named_brings_its_amendment(matter) -> None:
    from legalnav.documents.services import document_add, document_index

    base, amendment = index_bioamber_pair(matter)
    other, _ = document_add(
        matter=matter,
        filename="supply.txt",
        data=contract(*CONTRACTS[0]).encode(),
        kind="agreement",
        title="Supply Agreement",
        enqueue=False,
    )
    assert document_index(document_id=other.pk).status == "indexed"
    built = matter_retriever(matter=matter, dense=False)
    position = {d.pk: i for i, d in enumerate(built.documents)}
    question = "In the Development Agreement between Cargill and Bioamber, which law governs?"
    targeting = built.retriever.targets(question)
    assert sorted(targeting.documents) == sorted([position[base.pk], position[amendment.pk]])
    result = retrieve(built.retriever, question, "navembed:bm25", 10)
    assert position[other.pk] not in _docs(result)
    keyed = retrieve(
        built.retriever, f"What does {other.key} say about payment?", "navembed:bm25", 5
    )
    assert set(_docs(keyed)) == {position[other.pk]}
