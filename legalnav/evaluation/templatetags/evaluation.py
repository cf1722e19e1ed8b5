"""Template helpers for the evaluation pages: a rate with its interval, and dictionary lookup
by a key that is not a valid template variable name ("hit@10", "navembed:bm25")."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html

register = template.Library()


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    if isinstance(mapping, dict):
        return mapping.get(key)
    return None


@register.simple_tag
def rate(cell: Any) -> str:
    """ "0.750 [0.53, 0.90]" with the counts in a tooltip; a plain number as is; "–" for none."""
    value = getattr(cell, "value", None)
    if value is None:
        return "–"
    if getattr(cell, "low", None) is None:
        return format_html("{}", f"{value:.3f}")
    return format_html(
        '<span title="{} of {}, exact 95% interval">{} <span class="ci">[{}, {}]</span></span>',
        cell.k,
        cell.n,
        f"{value:.3f}",
        f"{cell.low:.2f}",
        f"{cell.high:.2f}",
    )
