"""Judge-free answer scoring: key facts, must-contain, must-not-claim, declination."""

from __future__ import annotations

import pytest

from legalnav.evaluation.keyfacts import (
    extract_facts,
    is_declination,
    key_fact_score,
    score_answer,
    states,
    words_to_number,
)
from legalnav.llm.prompts import SILENCE


def keys(text: str) -> set[tuple[str, str]]:
    return {(f.kind, f.key) for f in extract_facts(text)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$1,800,000,000; BNP Paribas", {("amount", "USD:1800000000")}),
        ("a $30 million payment", {("amount", "USD:30000000")}),
        ("US$ 2.5 billion", {("amount", "USD:2500000000")}),
        ("July 3, 2031.", {("date", "2031-07-03")}),
        ("dated as of 11/15/12", {("date", "2012-11-15")}),
        ("the 5th day of March, 2014", {("date", "2014-03-05")}),
        ("not more than twenty percent (20%) of", {("percentage", "20")}),
        ("at 12.5% of", {("percentage", "12.5")}),
        ("upon thirty (30) days' prior written notice", {("duration", "30:day")}),
        ("a one-year renewal term", {("duration", "1:year")}),
        ("Section 9.2(a) and Article IV", {("clause", "s:9.2(a)"), ("clause", "a:iv")}),
        (
            "governed by the laws of the State of New York",
            {("jurisdiction", "new york")},
        ),
        (
            "CONVERGTV, INC. and Fulucai Productions Ltd.",
            {("party", "convergtv"), ("party", "fulucai productions")},
        ),
    ],
)
def test_extract_facts(text, expected):
    assert keys(text) >= expected


def test_numbers_in_words():
    assert words_to_number("one hundred twenty") == 120
    assert words_to_number("forty-five") == 45
    assert words_to_number("Governing") is None


def test_a_name_of_a_place_needs_a_law_or_venue_context():
    assert ("jurisdiction", "washington") not in keys("George Washington signed it.")
    assert ("jurisdiction", "washington") in keys("the courts of the State of Washington")


def test_a_bare_place_in_a_reference_is_the_governing_law_fact():
    score = key_fact_score("New York", "governed by the laws of the State of New York [D1:s9]")
    assert score.score == 1.0
    assert key_fact_score("Minnesota", "governed by Delaware law").score == 0.0


def test_key_fact_score_normalises_forms():
    reference = "A $30 million cash payment; principal of $500 million on July 3, 2031."
    answer = "The borrower paid $30,000,000 [D1:s2.01]; maturity 3 July 2031."
    score = key_fact_score(reference, answer)
    assert score.score == pytest.approx(2 / 3)
    assert [f.key for f in score.missing] == ["USD:500000000"]
    assert key_fact_score("no facts here", "anything").score is None


def test_must_contain_and_must_not_claim():
    answer = "Notice must be given thirty (30) days before the end of the term under Section 9.2."
    assert states(answer, "30 days")
    assert states(answer, "Section 9.2")
    assert not states(answer, "60 days")
    assert states(answer, "before the end of the term")
    assert not states(answer, "after the end")
    scored = score_answer(
        answer=answer,
        reference="30 days",
        must_contain=["30 days", "Section 9.2"],
        must_not_claim=["90 days"],
    )
    assert scored.contains_all is True and scored.claims_none is True
    assert scored.key_facts is not None and scored.key_facts.score == 1.0


def test_declination_on_controls_and_false_declination():
    assert is_declination(SILENCE)
    assert is_declination("The provided documents do not address this question.")
    assert is_declination("This is not addressed in the provided documents.")
    assert not is_declination("The Agreement is governed by New York law [D1:s9.10].")
    control = score_answer(answer=SILENCE, reference="Not in the documents.", out_of_scope=True)
    assert control.declination_correct and control.key_facts is None
    fabricated = score_answer(answer="The CET1 minimum is 4.5%.", out_of_scope=True)
    assert not fabricated.declination_correct
    wrongly_silent = score_answer(answer=SILENCE, reference="$25,000,000")
    assert not wrongly_silent.declination_correct
    assert wrongly_silent.key_facts is not None and wrongly_silent.key_facts.score == 0.0


def test_citation_validity_is_carried():
    bad = score_answer(answer="x [D9:s1]", citation_problems=["[D9:s1] no such"], citations=1)
    assert bad.citations_ok is False
    assert score_answer(answer="x", citations=0).citations_ok is None
