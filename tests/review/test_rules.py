"""Playbook rules (review/rules.py): reading a rule, and the verdict a cell gets against it, for
every kind of rule and the values the grid writes (typed values, shown values, corrections)."""

from __future__ import annotations

import datetime as dt

import pytest

from legalnav.documents.parsing.values import Amount, Duration
from legalnav.review.rules import CellFacts, RuleError, decide, names, parse_rule


def verdict(rule, type_, value, found=True, typed=None) -> str:
    return decide(parse_rule(rule, type_), CellFacts(type_, value, found, typed)).verdict


@pytest.mark.parametrize(
    ("raw", "type_", "message"),
    [
        ({"allowed": []}, "text", "non-empty list"),
        ({"min": "sixty"}, "duration", "period with its unit"),
        ({"max": "lots"}, "amount", "takes an amount"),
        ({"after": "1 Jan 2015"}, "date", "ISO date"),
        ({"required": "yes"}, "yes_no", "takes true"),
        ({"min": "60 days"}, "date", "does not fit a date column"),
        ({"allowed": ["x"], "required": True}, "text", "a rule is one of"),
        ({"sometimes": True}, "clause", "unknown rule"),
    ],
)
def test_a_rule_that_cannot_be_applied_is_refused_with_what_to_change(raw, type_, message):
    with pytest.raises(RuleError, match=message):
        parse_rule(raw, type_)


def test_allowed_values_must_be_named_by_the_value():
    rule = {"allowed": ["New York", "Delaware"]}
    assert verdict(rule, "text", "the State of Delaware") == "meets"
    assert verdict(rule, "text", "New York") == "meets"
    assert verdict(rule, "text", "Texas") == "deviates"
    assert verdict(rule, "text", "York") == "deviates"  # 'York' alone is not New York
    assert verdict(rule, "text", "", found=False) == "missing"
    assert names("Ontario, Canada", "Ontario") and not names("Ontario", "Ontario, Canada")


def test_required_and_forbidden_read_yes_no_and_clause_cells():
    assert verdict({"required": True}, "yes_no", "Yes: the quoted provision ...") == "meets"
    # The filler writes "No" with the closest provision quoted: found, but not there.
    assert verdict({"required": True}, "yes_no", "No", typed=False) == "deviates"
    assert verdict({"required": True}, "yes_no", "", found=False) == "deviates"
    assert verdict({"forbidden": True}, "yes_no", "Yes") == "deviates"
    assert verdict({"forbidden": True}, "yes_no", "not found", found=False) == "meets"
    assert verdict({"required": True}, "clause", "Licensee may audit ...") == "meets"
    # A preset yes/no category in an amount column says "Yes: USD 1,000,000" or "No".
    assert verdict({"required": True}, "amount", "Yes: USD 1,000,000") == "meets"
    assert verdict({"required": True}, "amount", "No") == "deviates"


def test_periods_compare_across_units_and_perpetual_terms():
    assert verdict({"max": "1 year"}, "duration", "successive 1-year terms") == "meets"
    assert verdict({"max": "1 year"}, "duration", "12 months") == "meets"
    assert verdict({"max": "1 year"}, "duration", "successive 5-year terms") == "deviates"
    assert (
        verdict({"min": "60 days"}, "duration", "30 days' notice before the term ends")
        == "deviates"
    )
    assert verdict({"min": "60 days"}, "duration", "3 months' notice") == "meets"
    assert verdict({"min": "60 days"}, "duration", "x", typed=Duration(90, "day")) == "meets"
    assert verdict({"max": "1 year"}, "duration", "perpetual (until terminated)") == "deviates"
    assert verdict({"min": "60 days"}, "duration", "promptly") == "review"
    assert verdict({"min": "60 days"}, "duration", "", found=False) == "missing"


def test_dates_compare_by_the_calendar_and_say_when_a_day_is_missing():
    rule = {"after": "2012-01-01"}
    assert verdict(rule, "date", "2014-04-15", typed=dt.date(2014, 4, 15)) == "meets"
    assert verdict(rule, "date", "2011-12-31") == "deviates"
    assert verdict(rule, "date", "perpetual (until terminated)", typed="perpetual") == "meets"
    assert verdict({"before": "2020-01-01"}, "date", "perpetual (until terminated)") == "deviates"
    assert verdict(rule, "date", "July 2017") == "meets"  # no day, but the month is past it
    assert verdict({"after": "2017-07-15"}, "date", "July 2017") == "review"
    assert verdict(rule, "date", "4 years from the start (no start date found)") == "review"


def test_a_date_rule_over_a_provision_that_states_no_date_finds_nothing_to_check():
    """A cell that quotes a provision with neither a date nor a period in it (an opening
    sentence whose date was left blank) gives the rule no date: missing, as when nothing was
    found; one that states a period with no start is for a reviewer."""
    rule = {"after": "2005-01-01"}
    opening = 'This Software Hosting Agreement (the "Agreement") is entered into by and between'
    assert verdict(rule, "date", opening) == "missing"
    assert verdict(rule, "date", "The term shall be the sooner of six (6) months or") == "review"
    typed = {"number": 2, "unit": "year"}
    assert verdict(rule, "date", "two years after the launch", typed=typed) == "review"


def test_a_date_with_no_day_or_month_is_compared_by_what_it_says_not_by_its_typed_value():
    # The filler types "July 2017" as its month's first day: the shown value says there is no day.
    assert verdict({"after": "2017-07-15"}, "date", "July 2017", typed="2017-07-01") == "review"
    assert verdict({"before": "2017-08-01"}, "date", "July 2017", typed="2017-07-01") == "meets"
    blank = "2000 (day and month left blank)"
    assert verdict({"after": "2012-01-01"}, "date", blank, typed="2000-01-01") == "deviates"
    assert verdict({"before": "2001-01-01"}, "date", blank, typed="2000-01-01") == "meets"
    assert verdict({"after": "2000-06-30"}, "date", blank, typed="2000-01-01") == "review"


def test_amounts_compare_in_one_currency_only():
    assert verdict({"min": "USD 1,000,000"}, "amount", "USD 5,000,000") == "meets"
    assert verdict({"max": "$1 million"}, "amount", "$5 million") == "deviates"
    assert verdict({"min": "USD 1,000,000"}, "amount", "EUR 2,000,000") == "review"
    relative = Amount(None, "", "the fees paid in the preceding twelve months")
    assert verdict({"min": "1000"}, "amount", "fees paid", typed=relative) == "review"
    typed = {"value": "250000", "currency": "USD", "basis": ""}  # as stored in Cell.typed
    assert verdict({"min": "USD 1,000,000"}, "amount", "USD 250,000", typed=typed) == "deviates"


def test_a_position_in_words_needs_review_offline():
    rule = {"words": "the cap is at least twelve months of fees"}
    got = decide(parse_rule(rule, "amount"), CellFacts("amount", "USD 1", True))
    assert got.verdict == "review" and "Claude" in got.reason


def test_the_door_applies_a_rule_that_does_not_fit_its_column_as_well_as_the_value_allows():
    """The editor refuses {"allowed": ...} on a clause column; the measurement door reads it
    on the value's words, and a limit with no period in it as an amount."""
    with pytest.raises(RuleError):
        parse_rule({"allowed": ["Texas"]}, "clause")
    rule = parse_rule({"allowed": ["Texas"]}, "clause", strict=False)
    facts = CellFacts("clause", "the laws of the State of Texas", True)
    assert decide(rule, facts).verdict == "meets"
    cap = parse_rule({"min": "$1,000,000"}, "duration", strict=False)
    assert cap.limit == "$1,000,000"
    with pytest.raises(RuleError, match="period with its unit"):
        parse_rule({"max": "a while"}, "duration", strict=False)
