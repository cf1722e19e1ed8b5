"""Reading rows, for every app's selectors and services: one row by the id a request carries
(``row_or_404``), and one figure per group of rows (``aggregate_by``)."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Aggregate, Model, QuerySet
from django.http import Http404

M = TypeVar("M", bound=Model)


def row_or_404(rows: QuerySet[M], row_id: object, message: str, *, missing: str = "") -> M:
    """The row of ``rows`` whose primary key is ``row_id``, an id as it came (from a URL, a form,
    the API: a string, a number, anything). Http404 with ``message`` for an id that is not a
    whole number and for one ``rows`` does not hold (or with ``missing`` for that, where it says
    more, "No such question in this matter."): ``rows`` narrows to what the caller may see, so
    the ids of others' rows do not leak."""
    try:
        pk = int(str(row_id))
    except (TypeError, ValueError):
        raise Http404(message) from None
    row = rows.filter(pk=pk).first()
    if row is None:
        raise Http404(missing or message)
    return row


def aggregate_by(rows: QuerySet[Any], key: str, aggregate: Aggregate) -> dict[Any, Any]:
    """``{value of key: aggregate over the rows that have it}`` in one grouped query, such as
    ``aggregate_by(Membership.objects.filter(...), "matter_id", Count("id"))``. The model's
    default ordering is dropped: its columns would split the groups. A value with no rows is
    absent."""
    grouped = rows.order_by().values(key).annotate(aggregate_value=aggregate)
    return dict(grouped.values_list(key, "aggregate_value"))
