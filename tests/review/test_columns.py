"""The CUAD preset: 41 columns keyed exactly as CUAD's gold, in our own words, with valid types."""

from __future__ import annotations

import re

import pytest

from legalnav.evaluation.gold import cuad_descriptions
from legalnav.review.columns import (
    ANSWER_TYPES,
    CUAD_COLUMNS,
    YES_NO_KEYS,
    Column,
    column_from_request,
    compiled_cues,
    compiled_document_cues,
    compiled_operative_cues,
    preset_column,
)
from tests.review.cuad import cuad_dir, gold_rows


def test_forty_one_unique_columns_keyed_as_the_gold():
    keys = [c.key for c in CUAD_COLUMNS]
    assert len(keys) == 41 and len(set(keys)) == 41
    assert set(keys) == {r["category"] for r in gold_rows()}
    assert all(c.type in ANSWER_TYPES for c in CUAD_COLUMNS)
    assert all(c.question.endswith("?") and c.description for c in CUAD_COLUMNS)
    # The typed columns the grid shows as values rather than quotations.
    types = {c.key: c.type for c in CUAD_COLUMNS}
    assert types["Governing Law"] == "text" and types["Parties"] == "party"
    assert types["Expiration Date"] == "date" and types["Renewal Term"] == "duration"
    assert types["Cap On Liability"] == "amount" and types["Anti-Assignment"] == "yes_no"


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def test_questions_and_descriptions_are_not_cuads():
    """No question or description repeats a run of eight words from CUAD's README."""
    readme = " ".join(_words(" ".join(cuad_descriptions(cuad_dir().parent).values())))
    for column in CUAD_COLUMNS:
        for text in (column.question, column.description):
            words = _words(text)
            for i in range(len(words) - 7):
                assert " ".join(words[i : i + 8]) not in readme, (column.key, text)


def test_cues_compile_and_aliases_resolve():
    for column in CUAD_COLUMNS:
        for rx in compiled_cues(column):
            assert rx.pattern
    assert preset_column("notice to terminate renewal").key == "Notice Period To Terminate Renewal"
    assert preset_column("CAP ON LIABILITY").key == "Cap On Liability"
    assert preset_column("Who pays the lawyers") is None
    mine = column_from_request("Governing Law", "Whose law applies?", "clause")
    assert mine.question == "Whose law applies?" and mine.type == "clause" and mine.cues
    assert column_from_request("Mine", "What is the fee?", "amount").cues == ()


def test_a_column_refuses_an_unknown_type():
    with pytest.raises(ValueError, match="banana"):
        Column("x", "What?", "banana")


@pytest.mark.parametrize(
    "key, wording, cued",
    [
        # written for these cues from the 368 training contracts' misses, in our own words
        (
            "Most Favored Nation",
            "the Reseller shall be treated no less favorably than others",
            True,
        ),
        ("Most Favored Nation", "prices shall not be less favourable than those it offers", True),
        ("Most Favored Nation", "Client will not be charged a higher fee than other clients", True),
        ("Price Restrictions", "rates may not increase by more than ten percent (10%)", True),
        ("Price Restrictions", "the price may be adjusted from time to time", False),
        ("Non-Transferable License", "a worldwide, non-transferrable licence", True),
        ("Non-Transferable License", "the Licensee has no right to sublicense the Marks", True),
        ("Rofr/Rofo/Rofn", "a first option of negotiation for any new product", True),
        ("Minimum Commitment", "the minimum annual purchase requirement in Schedule B", True),
        ("Covenant Not To Sue", "Licensee will not contest the validity of the Marks", True),
        # "any number of" read most contracts as an unlimited licence (63 without one)
        ("Unlimited/All-You-Can-Eat-License", "any number of counterparts", False),
        ("Unlimited/All-You-Can-Eat-License", "an unlimited number of seats", True),
        # a second round (2026-12-06), likewise from the 368 training contracts' misses
        ("Volume Restriction", "the Artist will attend up to three (3) store visits", True),
        ("Volume Restriction", "no more than two releases in each calendar year", True),
        ("Volume Restriction", "the Supplier will ship the goods promptly", False),
        ("Affiliate License-Licensee", "may grant sublicences to its Subsidiaries", True),
        ("Affiliate License-Licensee", "grants to Buyer and the members of the Buyer Group", True),
        ("Minimum Commitment", "the Licensee shall pay the Minimum Fee each quarter", True),
        ("Minimum Commitment", "the Distributor shall pay any shortfall within 30 days", True),
        ("Non-Compete", "any product that directly or indirectly competes with the Device", True),
        ("Non-Compete", "the Reseller shall not market any product similar to it", True),
        (
            "Uncapped Liability",
            "except for breach of section 9 (confidentiality), neither party shall be liable",
            True,
        ),
        ("Uncapped Liability", "the Buyer waives any limitation on its liability", True),
        ("Non-Disparagement", "conduct detrimental to the goodwill of the Brand", True),
        ("Rofr/Rofo/Rofn", "the Sponsor has a preferential right to renew", True),
        ("Rofr/Rofo/Rofn", "the Owner shall first offer any surplus units to the Buyer", True),
        ("Covenant Not To Sue", "the Distributor shall not challenge the Marks", True),
        (
            "Competitive Restriction Exception",
            "holding shares shall not be deemed a violation of this clause",
            True,
        ),
        ("Liquidated Damages", "the Licensee shall make a buyout payment of $50,000", True),
        ("Ip Ownership Assignment", "the Consultant hereby assigns all rights in the Works", True),
    ],
)
def test_yes_no_cues_read_the_wording_they_were_written_for(key, wording, cued):
    column = preset_column(key)
    assert column is not None
    assert any(rx.search(wording) for rx in compiled_document_cues(column)) is cued


def test_document_cues_are_counted_by_the_document_model_not_weighed_by_the_filler():
    """The second round's wording is the document model's alone: the filler's cues (and the
    cue weights fitted for them) are unchanged, and a column named in a request keeps both."""
    volume = preset_column("Volume Restriction")
    assert volume is not None and volume.document_cues
    wording = "the Artist will attend up to three (3) store visits"
    assert not any(rx.search(wording) for rx in compiled_cues(volume))
    assert any(rx.search(wording) for rx in compiled_document_cues(volume))
    asked = column_from_request("volume restriction", "", "yes_no")
    assert asked.cues == volume.cues and asked.document_cues == volume.document_cues
    assert all(not c.document_cues for c in CUAD_COLUMNS if c.key not in YES_NO_KEYS)


@pytest.mark.parametrize(
    ("key", "wording", "operative"),
    [
        ("Third Party Beneficiary", "Duval is an intended third party beneficiary hereof", True),
        (
            "Third Party Beneficiary",
            "There are no third party beneficiaries of this Agreement",
            False,
        ),
        (
            "Change Of Control",
            "Licensor may terminate this Agreement upon a change of control",
            True,
        ),
        ("Change Of Control", '"Change of Control" means the acquisition of a majority', False),
        (
            "Affiliate License-Licensor",
            "Licensor, on behalf of itself and its Affiliates, hereby grants",
            True,
        ),
        (
            "Price Restrictions",
            "prices may not increase by more than five percent (5%) a year",
            True,
        ),
        ("Price Restrictions", "the price is set out in Schedule A", False),
    ],
)
def test_operative_cues_tell_a_provision_that_does_what_the_column_asks(key, wording, operative):
    """A column's operative wording names a provision that does what it asks ("X is an intended
    third-party beneficiary"), where the column's cues also match wording that only speaks of
    it ("no third party beneficiaries"); a column named in a request keeps it."""
    column = preset_column(key)
    assert column is not None and column.operative_cues
    assert any(rx.search(wording) for rx in compiled_operative_cues(column)) is operative
    asked = column_from_request(key.lower(), "", "yes_no")
    assert asked.operative_cues == column.operative_cues
    assert all(not c.operative_cues for c in CUAD_COLUMNS if c.key not in YES_NO_KEYS)
