"""The audit verbs of this app (evaluation runs (outside any matter)), registered with the audit trail in
``ready()`` (``matters.audit.register_verbs``): a new verb needs no migration."""

from __future__ import annotations

from django.db import models


class Verb(models.TextChoices):
    STARTED = "started", "Started evaluation run"
