"""Gold-set loaders on the real shared data files, and our QA format's checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from legalnav.evaluation import gold
from legalnav.evaluation.gold import GoldError, qa_items
from legalnav.evaluation.keyfacts import key_fact_score
from tests.conftest import REPO


def text_of(path: str) -> str:
    return Path(path).read_bytes().decode("utf-8")


def test_cuad_sample_is_deterministic_and_spans_index_the_text():
    items = gold.cuad_items(contracts=3)
    assert len({i.documents[0] for i in items}) == 3
    assert items == gold.cuad_items(contracts=3)
    categories = {i.meta["category"] for i in items}
    # spans.jsonl and CUAD's README spell some categories differently; both must be asked.
    assert {"Governing Law", "Notice Period To Terminate Renewal", "Cap On Liability"} & categories
    for item in items:
        assert item.question.startswith(f"{item.meta['category']}: ")
        text = text_of(item.documents[0])
        for doc, start, end in item.spans:
            assert doc == 0 and 0 <= start < end <= len(text)
    governing = [i for i in items if i.meta["category"] == "Governing Law"]
    assert governing, "every sampled contract has a governing-law clause in CUAD"
    for item in governing:
        d, s, e = item.spans[0]
        assert "law" in text_of(item.documents[0])[s:e].lower() or item.reference


def test_cuad_fact_categories_carry_reference_answers():
    items = gold.load("cuad-facts", contracts=4)
    assert items and {i.meta["category"] for i in items} <= set(gold.CUAD_FACT_CATEGORIES)
    assert sum(bool(i.reference) for i in items) >= 0.8 * len(items)
    # CUAD's normalised answers ("Minnesota", "10/1/19") are what key facts are scored on.
    law = [i for i in items if i.meta["category"] == "Governing Law"]
    assert law and all(key_fact_score(i.reference, "").facts for i in law)


def test_contractnli_writes_each_nda_once_and_keeps_offsets(tmp_path):
    items = gold.contractnli_items(limit=30, texts_dir=tmp_path)
    assert len(items) == 30
    assert len({i.id for i in items}) == 30
    dev = json.loads((gold.data_dir() / "contractnli" / "dev.json").read_text(encoding="utf-8"))
    by_id = {str(d["id"]): d["text"] for d in dev["documents"]}
    for item in items:
        doc_id = Path(item.documents[0]).stem
        assert text_of(item.documents[0]) == by_id[doc_id]
        assert item.meta["label"] in ("Entailment", "Contradiction")
        assert all(0 <= s < e <= len(by_id[doc_id]) for _, s, e in item.spans)
    assert [i.id for i in gold.contractnli_items(limit=30, texts_dir=tmp_path)] == [
        i.id for i in items
    ]


def test_aila_qrels_name_relevant_case_documents():
    items = gold.aila_items()
    assert [i.meta["query"] for i in items][:2] == ["AILA_Q1", "AILA_Q2"]
    assert all(i.unit == "document" for i in items)
    assert len(items[0].documents) > 2000
    relevant = sum(len(i.relevant) for i in items)
    assert relevant == 24  # the data README: 24 relevant (query, case) pairs in dev
    for item in items:
        for position in item.relevant:
            assert Path(item.documents[position]).stem.startswith("C")


def test_overruling_labels():
    rows = gold.overruling_items()
    assert rows and all(isinstance(r.overrules, bool) for r in rows)
    assert any(r.overrules for r in rows) or all(not r.overrules for r in rows)
    assert all(r.text for r in rows)


def test_demo_qa_set_loads_with_controls_and_verified_quotes():
    items = qa_items()
    assert len(items) >= 20
    controls = [i for i in items if i.out_of_scope]
    assert len(controls) >= 3
    for item in items:
        assert item.reference
        for d, start, end in item.spans:
            assert end > start
            assert text_of(item.documents[d])[start:end].strip()
        if not item.out_of_scope:
            assert item.spans and item.nodes and item.must_contain


def test_qa_gold_nodes_exist_in_the_parse():
    from legalnav.documents.parsing import parse_document

    for item in qa_items():
        for d, node_id in item.nodes:
            ids = {n.node_id for n in parse_document(text_of(item.documents[d])).nodes}
            assert node_id in ids, (item.id, node_id)


def write(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


GOOD = {
    "id": "q1",
    "question": "Which law governs?",
    "documents": ["demo/documents/bioamber-development-agreement.txt"],
    "reference": "Minnesota",
    "gold_quotes": [
        {
            "document": "demo/documents/bioamber-development-agreement.txt",
            "text": "the laws of the State of Minnesota",
        }
    ],
}


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("{not json", "line 1: not JSON"),
        ({**GOOD, "surprise": 1}, "unknown field 'surprise'"),
        ({k: v for k, v in GOOD.items() if k != "reference"}, "'reference' is required"),
        ({**GOOD, "documents": ["demo/documents/nope.txt"]}, "does not exist"),
        (
            {**GOOD, "gold_quotes": [{**GOOD["gold_quotes"][0], "text": "not in the text at all"}]},
            "quote not found",
        ),
        ({**GOOD, "gold_quotes": []}, "needs gold_quotes or gold_nodes"),
        ({**GOOD, "out_of_scope": "yes"}, "'out_of_scope' must be a bool"),
    ],
)
def test_qa_format_errors_name_the_line_and_field(tmp_path, row, message):
    with pytest.raises(GoldError, match=message):
        qa_items(write(tmp_path, row), root=REPO)


def test_qa_duplicate_ids_and_whitespace_tolerant_quotes(tmp_path):
    wrapped = {
        **GOOD,
        "gold_quotes": [{**GOOD["gold_quotes"][0], "text": "the  laws of the\nState of Minnesota"}],
    }
    (item,) = qa_items(write(tmp_path, wrapped), root=REPO)
    d, s, e = item.spans[0]
    assert text_of(item.documents[d])[s:e] == "the laws of the State of Minnesota"
    with pytest.raises(GoldError, match="used twice"):
        qa_items(write(tmp_path, GOOD, GOOD), root=REPO)


def test_unknown_gold_set():
    with pytest.raises(GoldError, match="unknown gold set"):
        gold.load("nope")
