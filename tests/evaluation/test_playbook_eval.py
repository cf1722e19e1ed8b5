"""The project's own check of the protocol's playbook scoring (legalnav/evaluation/playbook.py):
the verdict CUAD's normalised answer decides for each kind of rule, and the figures computed
from judged pairs (accuracy, deviates recall and precision, the share of review)."""

from __future__ import annotations

import pytest

from legalnav.evaluation.playbook import DEV_PLAYBOOK, figures, gold_verdict, judge


@pytest.mark.parametrize(
    ("rule", "answer", "expected"),
    [
        ({"allowed": ["New York", "Delaware"]}, "Delaware", "meets"),
        ({"allowed": ["New York", "Delaware"]}, "Ontario, Canada", "deviates"),
        ({"allowed": ["Ontario"]}, "Ontario, Canada", "meets"),
        ({"allowed": ["New York"]}, "", "missing"),
        ({"required": True}, "Yes", "meets"),
        ({"required": True}, "No", "deviates"),
        ({"forbidden": True}, "Yes", "deviates"),
        ({"forbidden": True}, "No", "meets"),
        ({"required": True}, "", None),  # a yes/no rule needs a yes/no answer
        ({"max": "1 year"}, "successive 1 year", "meets"),
        ({"max": "1 year"}, "12 months", "meets"),
        ({"max": "1 year"}, "successive 5 years", "deviates"),
        ({"max": "1 year"}, "perpetual", "deviates"),
        ({"min": "60 days"}, "30 days", "deviates"),
        ({"min": "60 days"}, "3 months", "meets"),
        ({"min": "60 days"}, "", "missing"),
        ({"after": "2012-01-01"}, "6/21/14", "meets"),
        ({"after": "2012-01-01"}, "6/21/00", "deviates"),
        ({"after": "2012-01-01"}, "perpetual", "meets"),
        ({"before": "2012-01-01"}, "perpetual", "deviates"),
        ({"after": "2012-01-01"}, "[]/[]/2013", None),
    ],
)
def test_the_answer_decides_the_verdict(rule, answer, expected):
    assert gold_verdict(rule, answer) == expected


def test_figures_count_review_as_wrong_and_score_deviates():
    answers = {
        ("a", "Governing Law"): "Texas",  # deviates
        ("b", "Governing Law"): "Delaware",  # meets
        ("c", "Governing Law"): "Texas",  # deviates
        ("a", "Anti-Assignment"): "Yes",  # meets
        ("b", "Anti-Assignment"): "",  # decides nothing: left out
    }
    got = {
        ("a", "Governing Law"): "deviates",
        ("b", "Governing Law"): "deviates",  # a false deviation
        ("c", "Governing Law"): "review",  # never right
        # ("a", "Anti-Assignment") not returned: counted as review
    }
    judged = judge(answers, got, ["a", "b", "c"])
    assert len(judged) == 4
    f = figures(judged)
    assert f["accuracy"] == 0.25
    assert (f["deviates_recall"], f["deviates_precision"]) == (0.5, 0.5)
    assert f["review_share"] == 0.5
    assert f["per_rule"]["Governing Law"]["pairs"] == 3


def test_the_dev_playbook_spans_eight_columns_of_six_kinds():
    from legalnav.review.columns import preset_column

    keys = [key for key, *_ in DEV_PLAYBOOK]
    assert len(set(keys)) >= 8
    kinds = {preset_column(k).type for k in keys} | {next(iter(r)) for _, r, *_ in DEV_PLAYBOOK}
    assert {"text", "duration", "date", "yes_no", "amount", "clause"} <= kinds
