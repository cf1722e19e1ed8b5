"""The review part of a matter's handover zip: every grid as the XLSX a reviewer downloads (cells,
citations, review state and playbook deviations), registered in ``ReviewConfig.ready``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from legalnav.matters.apphooks import HandoverPart
from legalnav.matters.handover import Entry, safe_name
from legalnav.matters.models import Matter
from legalnav.review import exports
from legalnav.review.models import Grid

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def grids_part(matter: Matter, user: User) -> Iterator[Entry]:
    for grid in Grid.objects.filter(matter=matter).order_by("pk"):
        name = safe_name(f"G{grid.pk} {grid.title or 'grid'}", 100)
        yield f"grids/{name}.xlsx", exports.grid_xlsx(grid)


# The line of the zip's README that describes this part, and its place there.
PART = HandoverPart(
    30,
    "grids/: each review grid as XLSX (values, citations, review state, playbook deviations)",
    grids_part,
)
