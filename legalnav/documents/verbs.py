"""The audit verbs of this app (uploading, re-indexing, deleting documents and reviewing amendment links), registered with the audit trail in
``ready()`` (``matters.audit.register_verbs``): a new verb needs no migration."""

from __future__ import annotations

from django.db import models


class Verb(models.TextChoices):
    UPLOADED = "uploaded", "Uploaded"
    REINDEXED = "reindexed", "Re-indexed"
    DELETED = "deleted", "Deleted"
    LINK_REVIEWED = "link_reviewed", "Reviewed a proposed amendment link"
