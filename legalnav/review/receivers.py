"""The review app's part in what happens elsewhere, connected in ``ReviewConfig.ready()``.

- A matter is purged (``matters.signals.matter_purging``): delete its grids (their columns, cells
  with the quoted text and snapshots, chunks, playbook runs and verdicts cascade) and its saved
  columns. Playbooks are the firm's, not the matter's: they stay.
- A document is deleted (Django's ``pre_delete`` of ``Document``): its rows and cells go with it
  (cascade), so the counts kept on each grid it was a row of lose them too (not in a purge,
  which deletes the grids as well).
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


def uncount_deleted_document(sender: Any, *, instance: Any, **kwargs: Any) -> None:
    # Django's pre_delete rather than documents.signals.document_deleting: it is sent inside the
    # transaction that deletes the document and cascades to its cells, on every path (the
    # actions, a purge, a command), so the counts go down exactly when the cells go.
    from legalnav.matters.models import Matter
    from legalnav.review.services import document_cells_uncount

    # A closed matter takes no writes: a document of one is deleted only by its purge, which
    # deletes the matter's grids too (purge_matter_review), so their counts need no upkeep; a
    # purge of 10,000 documents would otherwise lock and recount the grids 10,000 times.
    if Matter.objects.filter(pk=instance.matter_id, status=Matter.Status.CLOSED).exists():
        return
    document_cells_uncount(document_id=instance.pk)
