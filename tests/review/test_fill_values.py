"""Dates a grid reads together: an expiration stated as a term is its start plus the term, with
the arithmetic shown; an effective date 'first written above' is the agreement date."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from legalnav.documents.parsing.values import Duration
from legalnav.review import fill


def _cell(key, value, typed, text=""):
    spans = [(0, len(text) or 1)]
    cand = fill.Candidate(0, len(text) or 1, text, 0, np.zeros(1), np.zeros(0))
    return fill.Cell(key, value, spans, 0.9, "date", typed, "", [cand])


@pytest.mark.parametrize(
    "start, period, end",
    [
        (dt.date(2010, 4, 15), Duration(4, "year"), dt.date(2014, 4, 15)),
        (dt.date(2016, 2, 29), Duration(1, "year"), dt.date(2017, 2, 28)),
        (dt.date(2017, 11, 30), Duration(3, "month"), dt.date(2018, 2, 28)),
        (dt.date(2020, 1, 1), Duration(90, "day"), dt.date(2020, 3, 31)),
    ],
)
def test_add_period(start, period, end):
    assert fill.add_period(start, period) == end


def test_expiration_is_the_effective_date_plus_the_term():
    cells = [
        _cell("Effective Date", "2010-04-15", dt.date(2010, 4, 15)),
        _cell(
            "Expiration Date", "4 years", Duration(4, "year"), "shall continue for four (4) years"
        ),
    ]
    fill.dates_resolve(cells, lambda key: None)
    assert cells[1].value == "2014-04-15"
    assert cells[1].typed == dt.date(2014, 4, 15)
    assert cells[1].reason.startswith("2010-04-15 + 4 years = 2014-04-15")


def test_the_start_the_term_names_wins_and_a_missing_column_is_filled():
    asked = []

    def helper(key):
        asked.append(key)
        return _cell(key, "2001-11-28", dt.date(2001, 11, 28))

    cells = [
        _cell(
            "Expiration Date",
            "3 years",
            Duration(3, "year"),
            "The Term shall commence on January 1, 2012 and continue for three (3) years",
        )
    ]
    fill.dates_resolve(cells, helper)
    assert cells[0].value == "2015-01-01"
    cells = [_cell("Expiration Date", "7 years", Duration(7, "year"), "the seventh anniversary")]
    fill.dates_resolve(cells, helper)
    assert cells[0].value == "2008-11-28" and "Agreement Date" in asked


def test_an_effective_date_first_written_above_is_the_agreement_date():
    # As the filler leaves it: no date in the quotation, so "no date read" and no certainty.
    effective = _cell(
        "Effective Date",
        "no date read",
        None,
        '"Effective Date" means the date first written above.',
    )
    effective.value_confidence, effective.unread = 0.0, True
    cells = [_cell("Agreement Date", "2018-10-30", dt.date(2018, 10, 30)), effective]
    fill.dates_resolve(cells, lambda key: None)
    assert cells[1].value == "2018-10-30" and "Agreement Date" in cells[1].reason
    assert not cells[1].unread
    assert cells[1].value_confidence is None  # a date now: the quotation's confidence shows


def test_a_start_with_only_its_year_gives_an_end_with_only_its_year():
    blank = "2000 (day and month left blank)"
    cells = [
        _cell("Agreement Date", blank, dt.date(2000, 1, 1)),
        _cell("Expiration Date", "10 years", Duration(10, "year"), "for ten (10) years"),
    ]
    fill.dates_resolve(cells, lambda key: None)
    assert cells[1].value == "2010 (day and month left blank)"
    assert cells[1].reason.startswith("2000 + 10 years = 2010 ")
    # Eighteen months from a year, or 90 days from a month, is not known to the month: no date.
    for start, value, term in [
        (blank, "18 months", Duration(18, "month")),
        ("July 2017", "90 days", Duration(90, "day")),
    ]:
        cells = [
            _cell("Agreement Date", start, dt.date(2000, 1, 1)),
            _cell("Expiration Date", value, term, "for the term"),
        ]
        fill.dates_resolve(cells, lambda key: None)
        assert cells[1].value.startswith(f"{value} from ") and cells[1].typed == term
    cells = [
        _cell("Agreement Date", "July 2017", dt.date(2017, 7, 1)),
        _cell("Expiration Date", "3 years", Duration(3, "year"), "for three years"),
    ]
    fill.dates_resolve(cells, lambda key: None)
    assert cells[1].value == "July 2020"


def test_no_start_no_invented_date():
    cells = [_cell("Expiration Date", "2 years", Duration(2, "year"), "for two (2) years")]
    fill.dates_resolve(cells, lambda key: None)
    assert "no start date" in cells[0].value and cells[0].typed == Duration(2, "year")


@pytest.mark.parametrize(
    "text, no",
    [
        ("Licensor grants a non-exclusive license to use the Marks.", True),
        ("Nothing in this Agreement shall be deemed exclusive.", True),
        ("Distributor shall be the exclusive distributor in the Territory.", False),
        (
            "Distributor is the exclusive distributor; the trademark licence is non-exclusive.",
            False,
        ),
    ],
)
def test_an_exclusivity_waiver_is_not_exclusivity(text, no):
    assert bool(fill._not_yes("Exclusivity", text)) is no


def test_a_term_from_the_date_hereof_runs_from_the_agreement_date():
    cells = [
        _cell("Agreement Date", "2001-11-28", dt.date(2001, 11, 28)),
        _cell("Effective Date", "2001-12-01", dt.date(2001, 12, 1)),
        _cell(
            "Expiration Date",
            "7 years",
            Duration(7, "year"),
            "the term of this Agreement shall end on the seventh anniversary of the date hereof",
        ),
    ]
    fill.dates_resolve(cells, lambda key: None)
    assert cells[2].value == "2008-11-28" and "Agreement Date" in cells[2].reason


def test_a_term_past_the_calendar_keeps_the_period_and_says_why():
    cells = [
        _cell("Agreement Date", "2010-04-15", dt.date(2010, 4, 15)),
        _cell(
            "Expiration Date", "9000 years", Duration(9000, "year"), "shall continue for 9000 years"
        ),
    ]
    fill.dates_resolve(cells, lambda key: None)
    assert cells[1].value == "9000 years from 2010-04-15"
    assert "past the year 9999" in cells[1].reason


def test_a_cap_with_no_amount_read_says_yes_and_leaves_the_quotation_to_its_panel():
    """A yes/no category read as an amount (a cap on liability) says "Yes" with its amount when
    one is read, and "Yes" alone when none is: never the quotation squeezed into the cell."""
    from legalnav.documents.parsing.values import extractor_for
    from legalnav.review.columns import preset_column

    column = preset_column("Cap On Liability")
    assert column is not None and fill.value_type(column) != "yes_no"
    text = "In no event shall either party's aggregate liability exceed the fees paid hereunder."
    cand = fill.Candidate(0, len(text), text, 0, np.zeros(1), np.zeros(0))
    value, typed, reason, unread = fill._value(column, [cand])
    assert (value, typed, unread) == ("Yes", True, False) and reason.startswith("Yes: ")
    amount = "Each party's liability is capped at USD 1,000,000 in the aggregate."
    read = extractor_for(column.key, fill.value_type(column))(amount)
    cand = fill.Candidate(0, len(amount), amount, 0, np.zeros(1), np.zeros(0), read)
    assert fill._value(column, [cand])[0] == "Yes: USD 1,000,000"
