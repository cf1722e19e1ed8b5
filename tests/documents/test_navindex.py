"""The navindex serialisation: readable and token-optimised forms of the same content."""

from __future__ import annotations

import json

from legalnav.documents import navindex


def sample() -> navindex.IndexDocument:
    child = navindex.IndexNode(
        node_id="s2.01(a)",
        ref="(a)",
        title="",
        summary="",
        keywords=[],
        text="(a) Loans.",
        flags={"hasMoney": True},
    )
    root = navindex.IndexNode(
        node_id="s2.01",
        ref="Section 2.01",
        title="Commitments",
        summary="Commitments: each Lender lends.",
        keywords=["lender", "commitment"],
        text="Section 2.01. Commitments. " + "x" * 300,
        flags={"isDefinition": False, "hasDate": True},
        cross_refs=["s1.01", "D3:s2.20"],
        children=[child],
    )
    return navindex.IndexDocument(
        key="D7",
        title="Credit Agreement",
        kind="agreement",
        effective_date="2020-04-06",
        amends=None,
        jurisdiction="New York",
        topics=["loans"],
        roots=[root],
    )


def test_index_has_no_provision_text_but_a_short_snippet():
    index = navindex.build_index(sample())
    node = index["documentIndex"][0]
    assert node["nodeId"] == "s2.01" and node["crossReferencedIds"] == ["s1.01", "D3:s2.20"]
    assert node["textLength"] == len("Section 2.01. Commitments. " + "x" * 300)
    assert len(node["snippet"]) <= navindex.SNIPPET_CHARS
    assert "x" * 200 not in json.dumps(index)
    assert node["children"][0]["hasMoney"] is True


def test_full_store_maps_every_node_to_its_text():
    full = navindex.build_full(sample())
    assert full["provisions"] == {
        "s2.01": "Section 2.01. Commitments. " + "x" * 300,
        "s2.01(a)": "(a) Loans.",
    }


def test_optimised_form_uses_two_character_keys_and_drops_empty_values():
    readable = navindex.build_index(sample())
    text = navindex.dumps_optimised(readable)
    data = json.loads(text)
    # no whitespace outside string values
    assert text == json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    node = data["ix"][0]
    assert node["id"] == "s2.01" and node["xr"] == ["s1.01", "D3:s2.20"]
    assert "df" not in node  # false flag omitted
    assert "am" not in data  # null omitted
    assert "kw" not in node["ch"][0]  # empty list omitted
    assert all(len(k) == 2 for k in node)
    assert len(text) < 0.75 * len(navindex.dumps_readable(readable))


def test_expand_restores_the_readable_keys():
    readable = navindex.build_index(sample())
    again = navindex.expand(json.loads(navindex.dumps_optimised(readable)))
    assert again["documentIndex"][0]["crossReferencedIds"] == ["s1.01", "D3:s2.20"]
    full = navindex.expand(json.loads(navindex.dumps_optimised(navindex.build_full(sample()))))
    assert set(full["provisions"]) == {"s2.01", "s2.01(a)"}  # provision ids are not renamed
