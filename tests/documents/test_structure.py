"""The structure parser on real agreements (demo/documents) and on the label styles it must know."""

from __future__ import annotations

import pytest

from legalnav.documents.parsing import parse_document
from legalnav.documents.parsing.structure import parse_structure
from tests.conftest import demo_bytes


@pytest.fixture(scope="module")
def coned():
    text = demo_bytes("coned-credit-agreement-2020.txt").decode("utf-8")
    return text, parse_document(text)


@pytest.fixture(scope="module")
def phillips():
    text = demo_bytes("phillips66-second-amendment-credit-agreement.txt").decode("utf-8")
    return text, parse_document(text)


def by_id(parsed):
    return {n.node_id: n for n in parsed.nodes}


def test_articles_sections_and_subclauses_nest(coned):
    _, parsed = coned
    nodes = by_id(parsed)
    art2, s202 = nodes["art2"], nodes["s2.02"]
    assert (art2.kind, art2.heading) == ("article", "THE CREDITS")
    assert nodes["s2.01"].parent == parsed.nodes.index(art2)
    assert s202.heading == "Notice of Borrowing"
    kids = [parsed.nodes[c].node_id for c in s202.children]
    assert kids == ["s2.02(a)", "s2.02(b)", "s2.02(c)", "s2.02(d)"]
    # roman sub-clauses under letters: (i), (ii) … not mistaken for the letter i
    assert [parsed.nodes[c].label for c in nodes["s2.07(b)"].children] == ["i", "ii", "iii", "iv"]


def test_each_definition_is_its_own_node_under_the_definitions_section(coned):
    _, parsed = coned
    nodes = by_id(parsed)
    lender = nodes["def:lender"]
    assert lender.kind == "definition"
    assert parsed.nodes[lender.parent].node_id == "s1.01"
    assert lender.text.startswith("“Lender” means")
    assert lender.flags["isDefinition"]
    defs = [n for n in parsed.nodes if n.kind == "definition" and n.scope == ""]
    assert len(defs) > 100


def test_offsets_point_at_the_verbatim_text(coned):
    text, parsed = coned
    for node in parsed.nodes:
        assert 0 <= node.start <= node.end <= node.subtree_end <= len(text)
        raw = text[node.start : node.end].split()
        cleaned = node.text.split()
        # The node text is the source with page furniture removed: its words are the source's
        # words, in order, starting with the first one.
        assert cleaned[:1] == raw[:1], node.node_id
        rest = iter(raw)
        assert all(word in rest for word in cleaned), node.node_id


def test_page_numbers_breaks_and_layout_line_breaks_are_removed(coned):
    text, parsed = coned
    node = by_id(parsed)["def:applicable-lending-office"]
    # In the file this definition follows a page footer ("1" and a row of dashes).
    assert "-----" not in "".join(n.text for n in parsed.nodes)
    s202 = by_id(parsed)["s2.02"]
    assert "\n" not in s202.text.split("(a)")[0]  # wrapped lines joined into one paragraph
    assert "Administrative Agent irrevocable notice" in s202.text
    assert node.text.startswith("“Applicable Lending Office” means")


def test_table_of_contents_is_detected_and_its_sections_are_found(coned):
    _, parsed = coned
    toc = by_id(parsed)["toc"]
    assert toc.flags["isTocEntry"] and toc.kind == "toc"
    listed = {(e.kind, e.label) for e in parsed.toc_entries}
    assert ("section", "2.17") in listed and ("article", "9") in listed
    found = {
        (n.kind, n.label)
        for n in parsed.nodes
        if n.kind in ("article", "section") and n.scope == ""
    }
    missing = {e for e in listed if e not in found}
    assert len(missing) <= 1, (
        missing
    )  # the contents list one section twice; every other one is a node


def test_recitals_signatures_and_exhibits(coned):
    _, parsed = coned
    nodes = by_id(parsed)
    assert nodes["signatures"].text.startswith("IN WITNESS WHEREOF")
    assert nodes["exA"].kind == "exhibit" and nodes["exA"].heading == "NOTE"
    # Exhibit I is a form of agreement with its own recitals and numbered sections.
    exi = nodes["exI"]
    assert nodes["exI/recitals"].parent == parsed.nodes.index(exi)
    assert nodes["exI/s2"].heading == "Assignment"
    assert [n.kind for n in parsed.nodes].count("toc") == 1


def test_amendment_with_roman_articles_and_a_conformed_agreement_attached(phillips):
    _, parsed = phillips
    nodes = by_id(parsed)
    assert nodes["art1"].ref == "I." and nodes["art1"].heading == "AMENDMENT"
    assert nodes["s5.1"].heading == "New Lenders"
    # Exhibit A restarts the numbering: its articles live in their own scope.
    assert nodes["exA/art2"].heading == "AMOUNT AND TERMS OF LOANS"
    assert nodes["exA/s2.1"].scope == "exA"
    assert nodes["schI"].kind == "schedule" and nodes["annexA"].kind == "annex"


def test_node_ids_are_unique_and_stable(coned):
    text, parsed = coned
    ids = [n.node_id for n in parsed.nodes]
    assert len(ids) == len(set(ids))
    assert ids == [n.node_id for n in parse_document(text).nodes]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "ARTICLE V\nCOVENANTS\nSection 5.17. Taxes. The Borrower shall pay.\n",
            [("article", "5"), ("section", "5.17")],
        ),
        (
            "1. Services. Consultant shall advise.\n\n2. Fees. Company shall pay.\n",
            [("section", "1"), ("section", "2")],
        ),
        ("1.1 Taxes.\n(a) first;\n(b) second:\n(i) one; and\n(ii) two.\n(A) big.\n", None),
    ],
)
def test_label_styles(source, expected):
    nodes = parse_structure(source).nodes
    found = [(n.kind, n.label) for n in nodes if n.kind in ("article", "section")]
    if expected is not None:
        assert found == expected
    else:
        labels = [
            (n.label, nodes[n.parent].label if n.parent is not None else None)
            for n in nodes
            if n.kind == "clause"
        ]
        assert labels == [("a", "1.1"), ("b", "1.1"), ("i", "b"), ("ii", "b"), ("A", "ii")]


def test_wrapped_reference_is_not_a_heading():
    source = (
        "Section 2.01. Loans. Each Lender agrees to lend as set out in Section\n"
        "2.17 and in clause\n(b) below, subject to the terms hereof.\n"
        "Section 2.02. Notices. Each notice shall be in writing.\n"
    )
    nodes = parse_structure(source).nodes
    assert [n.label for n in nodes if n.kind == "section"] == ["2.01", "2.02"]
    assert not [n for n in nodes if n.kind == "clause"]


def test_empty_and_unstructured_text():
    assert [n.kind for n in parse_structure("").nodes] == []
    nodes = parse_structure("Just a letter of one paragraph.\n").nodes
    assert [n.kind for n in nodes] == ["preamble"]
    assert nodes[0].text == "Just a letter of one paragraph."
