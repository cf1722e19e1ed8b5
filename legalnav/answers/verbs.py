"""The audit verbs of this app (asking questions), registered with the audit trail in
``ready()`` (``matters.audit.register_verbs``): a new verb needs no migration."""

from __future__ import annotations

from django.db import models


class Verb(models.TextChoices):
    ASKED = "asked", "Asked"
