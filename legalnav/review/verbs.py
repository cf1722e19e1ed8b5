"""The audit verbs of this app (review grids, their cells and columns, and playbooks), registered with the audit trail in
``ready()`` (``matters.audit.register_verbs``): a new verb needs no migration."""

from __future__ import annotations

from django.db import models


class Verb(models.TextChoices):
    GRID_CREATED = "grid_created", "Created review grid"
    CELL_REVIEWED = "cell_reviewed", "Reviewed grid cell"
    COLUMN_SAVED = "column_saved", "Saved review column"
    PLAYBOOK_SAVED = "playbook_saved", "Saved playbook"
    PLAYBOOK_APPLIED = "playbook_applied", "Applied playbook"
