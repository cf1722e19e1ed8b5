"""Clause topics: the shipped models (trained on CUAD contracts outside the dev sample and on the
ContractNLI NDAs) recognise what a question asks about and lift the provisions of that kind."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings

from legalnav.evaluation import crossval
from legalnav.evaluation.gold import GoldItem
from legalnav.retrieval import topics
from legalnav.retrieval.engine import Corpus, Retriever, retrieve
from legalnav.retrieval.index import build_doc_index
from tests.retrieval.embedders import HashEmbedder

CUAD_GOVERNING_LAW = (
    "Governing Law: Which state/country's law governs the interpretation of the contract? "
    "(e.g., Nevada law)"
)

# The decoy repeats the question's words; the real clause uses none of "governs" or "country".
CONTRACT = """SUPPLY AGREEMENT

1. Interpretation. Headings govern nothing: the interpretation of the contract follows the
words used, and no state or country of any party changes the interpretation of the contract or
what law a reader thinks governs a word.

2. Delivery. The Supplier shall deliver the Products to the Buyer's warehouse within thirty days
of each purchase order, and title passes on delivery.

3. Miscellaneous. This Agreement shall be construed and enforced in accordance with the laws of
the State of Delaware, without regard to its conflicts of laws principles.
"""


def test_a_question_is_matched_to_the_topic_it_asks_about():
    book = topics.book()
    assert book.match(CUAD_GOVERNING_LAW).key == "Governing Law"
    # The review grid's wording of the same question.
    assert book.match("Which jurisdiction's law governs this agreement?").key == "Governing Law"
    assert book.match("Is there a cap on liability?").key == "Cap On Liability"
    # A ContractNLI hypothesis, as the NDA task asks it.
    hypothesis = (
        "Receiving Party shall not reverse engineer any objects which embody Disclosing "
        "Party's Confidential Information."
    )
    assert book.match(hypothesis).key == "No reverse engineering"
    # A topic named in passing does not outrank the question the text really is.
    assert book.match(f"{hypothesis} (unlike a non-compete)").key == "No reverse engineering"
    # A key in other inflections or spellings, when nothing closer matches.
    terminated = "How can the agreement be terminated for convenience?"
    assert book.match(terminated).key == "Termination For Convenience"
    assert book.match("Is the licence non-transferable?").key == "Non-Transferable License"
    # Nothing the models know.
    assert book.match("Is a dying declaration enough to convict without corroboration?") is None
    assert book.match("What did the court hold about adverse possession?") is None


def test_the_model_lifts_the_clause_of_its_kind():
    topic = topics.book().match(CUAD_GOVERNING_LAW)
    clause, delivery = topic.probabilities(
        [
            "13. Miscellaneous › 13.2 This Agreement shall be construed in accordance with the "
            "laws of the State of New York.",
            "4. Delivery › The Supplier shall deliver the Products within thirty days.",
        ]
    )
    assert clause > 0.5 > delivery


def _top(question: str, weight: float) -> str:
    index = build_doc_index(CONTRACT, "topic-test")
    retriever = Retriever(Corpus([index], embedder=HashEmbedder(), texts=[CONTRACT]))
    with override_settings(LEGALNAV_TOPIC_WEIGHT=weight, LEGALNAV_EVIDENCE=False):
        hits = retrieve(retriever, question, "navembed", 3).hits
    return CONTRACT[hits[0].start : hits[0].end]


def test_navembed_ranks_the_clause_of_the_topic_first_only_with_topics_on():
    assert "Headings govern nothing" in _top(CUAD_GOVERNING_LAW, 0.0)
    assert "laws of\nthe State of Delaware" in _top(CUAD_GOVERNING_LAW, 2.0)
    # A question about nothing the models know ranks as it did.
    other = "What does the interpretation clause say about headings?"
    assert _top(other, 2.0) == _top(other, 0.0)


def test_a_models_setting_can_name_a_model_file(tmp_path):
    model = {
        "name": "tiny",
        "topics": [
            {
                "key": "Rent Review",
                "question": "When is the rent reviewed?",
                "intercept": -3.0,
                "weights": {"rent": 2.0, "review": 2.0},
            }
        ],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(model))
    with override_settings(LEGALNAV_TOPIC_MODELS=[str(path)], LEGALNAV_TOPIC_WEIGHT=1.0):
        found = topics.topic_for("Rent Review: when is the rent reviewed?")
        assert found is not None and found.key == "Rent Review"
        assert topics.topic_for(CUAD_GOVERNING_LAW) is None  # the shipped models are not read
    with override_settings(LEGALNAV_TOPIC_MODELS=[str(path)], LEGALNAV_TOPIC_WEIGHT=0.0):
        assert topics.topic_for("Rent Review: when is the rent reviewed?") is None  # off


def _items(n: int) -> list[GoldItem]:
    return [
        GoldItem(
            id=f"q{i}",
            dataset="contractnli",
            question="q",
            documents=[f"/nda/{i}.txt"],
            spans=[(0, 0, 5)],
        )
        for i in range(n)
    ]


def test_contractnli_cross_validation_scores_each_nda_with_the_model_that_never_saw_it(tmp_path):
    items = _items(10)
    with override_settings(VAR_DIR=tmp_path):
        with pytest.raises(crossval.CrossValError, match="train_topics.py contractnli"):
            crossval.topic_fold_settings(items, 5)
        folder = tmp_path / "evaluation" / "topic-folds"
        folder.mkdir(parents=True)
        for f in range(5):
            (folder / f"contractnli-fold{f}.json").write_text(json.dumps({"topics": [], "f": f}))
        per_item, label = crossval.topic_fold_settings(items, 5)
    fold_of = crossval.item_folds(items, 5)
    for item in items:
        models = per_item(item)["LEGALNAV_TOPIC_MODELS"]
        assert models[-1].endswith(f"contractnli-fold{fold_of[item.id]}.json")
    assert label.startswith("topic-folds:")


def test_a_review_column_reads_its_topic():
    from legalnav.review.columns import column_from_request, preset_column
    from legalnav.review.fill import column_topic

    assert column_topic(preset_column("Governing Law")).key == "Governing Law"
    assert column_topic(preset_column("Anti-Assignment")).key == "Anti-Assignment"
    own = column_from_request("Lunch", "Who pays for the launch party lunch?", "text")
    assert column_topic(own) is None
