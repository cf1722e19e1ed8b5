"""The review grid's fitted not-found thresholds (evaluation/grid_fit.py): which cut a column's
cells get, judged on the values a reviewer reads."""

from __future__ import annotations

from legalnav.evaluation.grid_fit import Filled, cut, fit_thresholds


def _cell(doc: str, confidence: float, value: str, *, typed: bool) -> Filled:
    unread = value == "no date read"
    return Filled(doc, "Expiration Date", confidence, value, [(0, 10)], typed, unread)


def test_unread_cells_take_the_highest_cut_among_equals() -> None:
    # Three "no date read" cells: one for a contract with no expiration date (right only as
    # "not found"), two for contracts whose date the cell failed to read (wrong either way). Any
    # cut above 0.4 makes the same one value right; the unread group takes the highest, so an
    # unread cell above every one seen still says "not found".
    cells = [
        _cell("a", 0.4, "no date read", typed=False),
        _cell("b", 0.6, "no date read", typed=False),
        _cell("c", 0.8, "no date read", typed=False),
    ]
    answers = {("a", "Expiration Date"): "", ("b", "Expiration Date"): "5/8/14"}
    answers[("c", "Expiration Date")] = "6/1/01"
    typed, _ = fit_thresholds(cells, answers)
    assert typed["Expiration Date (no value)"] > 0.8
    shown = cut([_cell("d", 0.95, "no date read", typed=False)], typed, {}, 0.0)
    assert shown[0].value == "not found" and shown[0].spans == []


def test_read_cells_keep_the_lowest_cut_among_equals() -> None:
    # Dates read, every one right: any cut at or under the lowest confidence scores the same, and
    # the read group keeps the lowest (it shows what it read).
    cells = [
        _cell("a", 0.5, "2014-05-08", typed=True),
        _cell("b", 0.7, "2001-06-01", typed=True),
    ]
    answers = {("a", "Expiration Date"): "5/8/14", ("b", "Expiration Date"): "6/1/01"}
    typed, _ = fit_thresholds(cells, answers)
    assert typed["Expiration Date"] == 0.0
    shown = cut([_cell("c", 0.3, "2020-01-01", typed=True)], typed, {}, 0.0)
    assert shown[0].value == "2020-01-01"


def test_unread_cells_that_are_sometimes_right_keep_a_cut_that_shows_them() -> None:
    # Parties cells that read no party list show their passage, which can name every party: those
    # are not "read nothing" cells, and a cut that loses a right one is not taken.
    cells = [
        Filled("a", "Parties", 0.5, "between Acme Inc. and Beta LLC", [(0, 10)], False),
        Filled("b", "Parties", 0.9, "between Gamma Corp. and Delta Ltd.", [(0, 10)], False),
    ]
    answers = {
        ("a", "Parties"): "Acme Inc.; Beta LLC",
        ("b", "Parties"): "Gamma Corp.; Delta Ltd.",
    }
    typed, _ = fit_thresholds(cells, answers)
    assert typed["Parties (no value)"] <= 0.5
