"""Audit verbs are registered by the apps that write them: a row with a verb nobody registered is
refused, and a new verb needs no migration (the column is text, checked when written)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from legalnav.documents.verbs import Verb as DocumentVerb
from legalnav.matters import audit
from legalnav.matters.audit import audit_record, register_verbs, verb_label
from legalnav.matters.models import AuditEvent

pytestmark = pytest.mark.django_db


def test_every_app_registers_its_own_verbs():
    assert verb_label(DocumentVerb.UPLOADED) == "Uploaded"
    assert verb_label("grid_created") == "Created review grid"
    assert verb_label(AuditEvent.Action.CLOSED) == "Closed matter"
    in_matter = dict(audit.matter_verbs())
    assert "uploaded" in in_matter and "closed" in in_matter
    assert "started" not in in_matter and "token_revoked" not in in_matter  # outside any matter


def test_an_unregistered_verb_is_refused(matter):
    with pytest.raises(ValueError, match="register it"):
        audit_record(matter=matter, user=None, action="teleported", target="x")
    assert not AuditEvent.objects.exists()


def test_a_new_verb_needs_no_migration(matter, monkeypatch):
    monkeypatch.setattr(audit, "_VERBS", dict(audit._VERBS))
    register_verbs([("annotated", "Annotated a clause")])
    event = audit_record(matter=matter, user=None, action="annotated", target="D1 s2")
    assert AuditEvent.objects.get(pk=event.pk).action_label == "Annotated a clause"
    with pytest.raises(ValueError, match="registered twice"):
        register_verbs([("annotated", "Something else")])
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)  # exits 1 on a change
    assert "No changes detected" in out.getvalue()
