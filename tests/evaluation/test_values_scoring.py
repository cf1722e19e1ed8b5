"""The project's own check of RETRIEVE-PROTOCOL.md's "How values are scored"."""

from __future__ import annotations

import pytest

from legalnav.evaluation.values import ValueJudged, answer_parties, judge_value, value_figures


@pytest.mark.parametrize(
    "key, answer, value, found, right",
    [
        ("Governing Law", "Ontario, Canada", "Ontario, Canada", True, True),
        ("Governing Law", "New York", "Delaware", True, False),
        ("Governing Law", "", "not found", False, True),
        ("Governing Law", "", "New York", True, False),
        ("Expiration Date", "4/15/14", "2014-04-15", True, True),
        ("Expiration Date", "4/15/14", "4 years", True, False),
        ("Expiration Date", "perpetual", "perpetual (until terminated)", True, True),
        ("Expiration Date", "[]/[]/2035", "2035-01-01", True, None),
        ("Agreement Date", "5/8/14", "May 8, 2014", True, True),
        ("Agreement Date", "5/8/14", "2014-05-08", False, False),
        ("Renewal Term", "successive 1 year", "successive 12-month terms", True, True),
        ("Renewal Term", "successive 1 year", "60 days", True, False),
        (
            "Notice Period To Terminate Renewal",
            "30 days",
            "30 days' notice before the term ends",
            True,
            True,
        ),
        ("Parties", 'Acme, Inc. ("Acme"); Beta LLC ("Beta")', "Acme, Inc. (Acme)", True, False),
        (
            "Parties",
            'Acme, Inc. ("Acme"); Beta LLC ("Beta")',
            "Acme Inc (Acme); Beta LLC (Beta)",
            True,
            True,
        ),
        ("Anti-Assignment", "Yes", "Yes", True, True),
        ("Anti-Assignment", "No", "Yes: may not assign", True, False),
        ("Anti-Assignment", "No", "No", True, True),
        ("Anti-Assignment", "Yes", "not found", False, False),
    ],
)
def test_judge_value(key, answer, value, found, right):
    assert judge_value(key, answer, value, found) is right


def test_collective_entries_and_blanks_are_not_parties():
    answer = (
        "Marine MP, LLC (“Lender”); Arnold Schwarzenegger (“Endorser”); Fitness Publications, "
        "Inc. (“Fitness”); Lender, Endorser and Fitness (“AS Parties”)"
    )
    assert answer_parties(answer) == [
        "Marine MP, LLC",
        "Arnold Schwarzenegger",
        "Fitness Publications, Inc",
    ]
    assert answer_parties('[] ("Franchisee"); [] ("Member")') == []


def test_figures_count_yes_f1_and_the_all_no_baseline():
    judged = [
        ValueJudged("a", "Exclusivity", "Yes", "Yes", None),
        ValueJudged("b", "Exclusivity", "No", "Yes", None),
        ValueJudged("c", "Exclusivity", "No", "not found", None),
        ValueJudged("a", "Governing Law", "Texas", "Texas", True),
        ValueJudged("b", "Governing Law", "Texas", "Ohio", False),
    ]
    f = value_figures(judged)
    assert f["yes_f1_pooled"] == pytest.approx(2 / 3)
    assert f["yes_no_accuracy"] == pytest.approx(2 / 3)
    assert f["yes_no_all_no_accuracy"] == pytest.approx(2 / 3)
    assert f["jurisdiction_right"] == 0.5
