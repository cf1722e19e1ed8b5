"""The review app's part in what happens elsewhere, connected in ``ReviewConfig.ready()``.

- A matter is purged (``matters.signals.matter_purging``): delete its grids (their columns, cells
  with the quoted text and snapshots, chunks, playbook runs and verdicts cascade) and its saved
  columns. Playbooks are the firm's, not the matter's: they stay.
"""

from __future__ import annotations

from typing import Any


def purge_matter_review(sender: Any, *, matter: Any, **kwargs: Any) -> dict[str, int]:
    from legalnav.review.models import Cell, Grid, PlaybookRun, SavedColumn

    grids = Grid.objects.filter(matter=matter)
    counts = {
        "grids": grids.count(),
        "cells": Cell.objects.filter(grid__matter=matter).count(),
        "playbook_runs": PlaybookRun.objects.filter(matter=matter).count(),
        "saved_columns": SavedColumn.objects.filter(matter=matter).count(),
    }
    PlaybookRun.objects.filter(matter=matter).delete()
    grids.delete()
    SavedColumn.objects.filter(matter=matter).delete()
    return counts
