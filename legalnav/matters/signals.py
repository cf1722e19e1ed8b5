"""Moments in a matter's life that the apps above ``matters`` act on, without ``matters``
importing them (the layer contract: a lower app sends, a higher one connects in ``ready()``).

``matter_purging`` is sent by ``matters.actions.matter_purge`` with ``matter`` once the purge has
been asked for and confirmed. Each app that keeps anything of a matter's content connects a
receiver that removes its own part: documents (source files, clause rows, navindex files, and
through ``documents.signals.document_deleting`` their vectors and cached indexes), answers
(questions, answers, citation snapshots, research runs), review (grids, cells and their
snapshots, saved columns, playbook runs), llm (the ledger keeps its amounts, loses any text).

It is sent with ``send()``: a receiver that cannot remove its part raises, the purge is recorded
as failed with that reason, and running it again finishes the work (every receiver is
idempotent: what is already gone is not an error).
"""

from __future__ import annotations

from django.dispatch import Signal

matter_purging = Signal()
