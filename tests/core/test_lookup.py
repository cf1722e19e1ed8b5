"""``row_or_404``: the row a request's id names, within what the caller may see."""

from __future__ import annotations

import pytest
from django.db.models import Count
from django.http import Http404

from legalnav.core.lookup import aggregate_by, row_or_404
from legalnav.matters.models import Matter, Membership
from tests.conftest import MatterFactory, MembershipFactory


@pytest.mark.django_db
def test_the_row_is_found_by_an_id_of_any_type():
    matter = MatterFactory()
    assert row_or_404(Matter.objects.all(), str(matter.pk), "No such matter.") == matter
    assert row_or_404(Matter.objects.all(), matter.pk, "No such matter.") == matter


@pytest.mark.django_db
@pytest.mark.parametrize("row_id", ["abc", None, "1.5", ""])
def test_an_id_that_is_not_a_whole_number_is_404(row_id):
    with pytest.raises(Http404, match="No such matter."):
        row_or_404(Matter.objects.all(), row_id, "No such matter.", missing="Not in here.")


@pytest.mark.django_db
def test_a_row_outside_the_rows_is_404_with_the_fuller_message():
    matter = MatterFactory()
    outside = Matter.objects.exclude(pk=matter.pk)
    with pytest.raises(Http404, match="Not in here."):
        row_or_404(outside, matter.pk, "No such matter.", missing="Not in here.")
    with pytest.raises(Http404, match="No such matter."):
        row_or_404(outside, matter.pk, "No such matter.")


@pytest.mark.django_db
def test_aggregate_by_gives_one_figure_per_group_and_none_for_a_group_without_rows():
    two = MembershipFactory().matter
    MembershipFactory(matter=two)
    one = MembershipFactory().matter
    empty = MatterFactory()
    ids = [two.pk, one.pk, empty.pk]
    counts = aggregate_by(Membership.objects.filter(matter_id__in=ids), "matter_id", Count("id"))
    assert counts == {two.pk: 2, one.pk: 1}
