"""The grid's cells written in Python (templatetags/grid_cells.py): the markup the page, its
keyboard script and the out-of-band swap after a review rely on, with every text escaped."""

from __future__ import annotations

from django.template import Context, Template

from legalnav.review.models import Cell

PAGE = Template("{% load grid_cells %}{% for c in cells %}{% grid_cell c %}{% endfor %}")


def _render(cells, **context):
    return PAGE.render(
        Context({"cells": cells, "cells_url": "/matters/1/grids/2/cells/", **context})
    )


def test_a_found_cell_links_to_its_panel_and_escapes_its_value():
    cell = Cell(
        pk=5, document_id=3, value="<script>alert(1)</script> New York", found=True,
        confidence=0.9149, citation="[D1:s9]", verdict="quote_not_found", node_ref="s9",
        reviewed_status="confirmed",
    )  # fmt: skip
    html = _render([cell])
    assert '<td class="" data-cell="5" data-doc="3" data-ref="s9">' in html
    assert 'href="/matters/1/grids/2/cells/5/" hx-get="/matters/1/grids/2/cells/5/"' in html
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; New York" in html
    assert "[D1:s9] · 0.91 · ⚠ not verbatim" in html
    assert 'class="cell reviewed reviewed-confirmed"' in html and "✓ confirmed" in html
    assert "hx-swap-oob" not in html


def test_not_found_low_and_empty_cells_say_so():
    nf = Cell(pk=6, document_id=3, value="", found=False, confidence=0.0, node_ref="s1")
    low = Cell(pk=7, document_id=4, value="30 days", found=True, confidence=0.2, verdict="verified")
    filling = _render([nf, low, None])  # a grid that is not filling
    assert '<td class="cell-nf" data-cell="6" data-doc="3">' in filling  # no reader anchor
    assert "not found" in filling and "data-ref" not in filling.split("cell-low")[0]
    assert '<td class="cell-low" data-cell="7"' in filling and "0.20" in filling
    assert "not verbatim" not in filling
    running = type("G", (), {"status": "running"})()
    assert '<span class="muted">…</span>' in _render([None], grid=running)
    filtered = type("T", (), {"which": "not_found"})()
    assert '<span class="muted"></span>' in _render([None], grid=running, table=filtered)


def test_a_yes_no_cell_shows_and_is_marked_by_how_sure_its_value_is():
    """A cell whose value has a confidence of its own (a yes/no column's document model) shows
    that one, and is low by it, not by its closest quotation's."""
    sure_no = Cell(pk=9, document_id=3, value="No", found=True, confidence=0.17,
                   value_confidence=0.96, citation="[D1:s4]", verdict="verified")  # fmt: skip
    unsure_yes = Cell(pk=10, document_id=4, value="Yes", found=True, confidence=0.93,
                      value_confidence=0.31, citation="[D2:s7]", verdict="verified")  # fmt: skip
    html = _render([sure_no, unsure_yes])
    assert '<td class="" data-cell="9"' in html and "[D1:s4] · 0.96" in html
    assert '<td class="cell-low" data-cell="10"' in html and "[D2:s7] · 0.31" in html
    assert "0.17" not in html and "0.93" not in html
    # A No read with nothing near enough to quote: still "No", how sure, no citation, and
    # kept among the cells with no quotation.
    unquoted = Cell(pk=11, document_id=5, value="No", found=False, confidence=0.01,
                    value_confidence=0.88)  # fmt: skip
    html = _render([unquoted])
    assert '<td class="cell-nf" data-cell="11" data-doc="5">' in html
    assert '<span class="cell-value">No</span>' in html and "none quoted · 0.88" in html
    assert "not found" not in html and "0.01" not in html
    assert unquoted.has_certainty and sure_no.has_certainty
    # Not found, and no value read: nothing to be sure of, no confidence shown.
    missing = Cell(pk=12, document_id=6, value="", found=False, confidence=0.01)
    assert not missing.has_certainty
    html = _render([missing])
    assert "not found" in html and "0.01" not in html and "none quoted" not in html


def test_the_link_alone_is_sent_out_of_band_after_a_review():
    cell = Cell(pk=8, document_id=3, value="Yes", found=True, confidence=0.8, verdict="verified",
                reviewed_status="corrected", corrected_value="No")  # fmt: skip
    html = Template("{% load grid_cells %}{% cell_link c %}").render(
        Context({"c": cell, "oob": True, "cells_url": "/x/"})
    )
    assert html.startswith('<a class="cell reviewed reviewed-corrected" id="cell-link-8"')
    assert 'hx-swap-oob="true"' in html and ">No</span>" in html and "corrected" in html
    # the filler's confidence was in its own value, not the reviewer's: not shown
    assert "0.80" not in html
