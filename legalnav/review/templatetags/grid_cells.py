"""The grid's cells, written in Python: a data room's page shows 50 rows x 41 columns, and the
same markup through the template engine (a lookup, a filter and a localisation per value, 2,050
times) was most of the page's time. ``{% grid_cell cell %}`` is a table cell; ``{% cell_link
cell %}`` the link inside it, also sent alone (out of band) after a review. Every text is
escaped by ``format_html``."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator

register = template.Library()

_FILLING = ("queued", "running")


@register.simple_tag(takes_context=True)
def grid_cell(context: template.Context, cell: Any) -> SafeString:
    """A ``<td>``: its value, citation and confidence, or "…" while the grid fills."""
    if cell is None:
        table, grid = context.get("table"), context.get("grid")
        waiting = not getattr(table, "which", "") and getattr(grid, "status", "") in _FILLING
        return mark_safe(  # noqa: S308 - constant markup
            '<td class="cell-empty"><span class="muted">'
            + ("…" if waiting else "")
            + "</span></td>"
        )
    kind = "cell-nf" if not cell.found else "cell-low" if cell.low_confidence else ""
    ref = format_html(' data-ref="{}"', cell.node_ref) if cell.found and cell.node_ref else ""
    return format_html(
        '<td class="{}" data-cell="{}" data-doc="{}"{}>{}</td>',
        kind,
        cell.pk,
        cell.document_id,
        ref,
        cell_link(context, cell),
    )


@register.simple_tag(takes_context=True)
def cell_link(context: template.Context, cell: Any) -> SafeString:
    """The cell's link to its panel (``context["cells_url"]`` + its id)."""
    url = f"{context.get('cells_url', '')}{cell.pk}/"
    reviewed = cell.reviewed
    classes = "cell" + (f" reviewed reviewed-{cell.reviewed_status}" if reviewed else "")
    conf = ""
    if cell.reviewed_status == "corrected":
        # The reviewer's value: the filler's confidence was in another one.
        conf = format_html("{}", cell.citation) if cell.found else ""
    elif cell.found:
        conf = format_html(
            "{} · {}{}",
            cell.citation,
            f"{cell.certainty:.2f}",
            "" if cell.verdict == "verified" else " · ⚠ not verbatim",
        )
    elif cell.has_certainty:  # a value read with nothing near enough to quote
        conf = format_html("none quoted · {}", f"{cell.certainty:.2f}")
    if reviewed:
        tick = "✓ " if cell.reviewed_status == "confirmed" else ""
        conf = format_html(
            '{} <span class="rv" data-testid="cell-review">{}{}</span>',
            conf,
            tick,
            cell.get_reviewed_status_display().lower(),
        )
    amended = ""
    by = getattr(cell, "amended_by", None)
    if by:
        amended = format_html(
            '\n  <span class="amended" data-testid="amended">changed by {}: {} {}</span>',
            by.document.key,
            Truncator(by.shown_value).chars(40),
            by.citation,
        )
    return format_html(
        '<a class="{}" id="cell-link-{}"{} href="{}" hx-get="{}"><span class="cell-value">{}'
        '</span>\n  <span class="conf">{}</span>{}</a>',
        classes,
        cell.pk,
        mark_safe(' hx-swap-oob="true"') if context.get("oob") else "",  # noqa: S308
        url,
        url,
        Truncator(cell.shown_value).chars(90),
        conf,
        amended,
    )
