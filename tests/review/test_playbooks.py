"""Playbooks against the real database: staff write them (versioned, audited outside any matter),
a member applies one to a matter's documents through a review grid, and each document gets a
verdict per position with its reason and quotation; a reviewer's correction re-decides it, an
amendment's changed term is what the agreement's verdict reads, the run keeps the version it ran
with, and the deviations reach the page, the XLSX and the PDF memo (read back)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import reverse
from openpyxl import load_workbook
from pypdf import PdfReader

from legalnav.documents.models import Document
from legalnav.matters.models import AuditEvent
from legalnav.review import actions, playbooks
from legalnav.review.models import Cell, Grid, PlaybookVersion, Verdict
from legalnav.review.playbooks import PlaybookRejected
from legalnav.review.services import ColumnSpec
from legalnav.review.verbs import Verb as ReviewVerb
from tests.conftest import MembershipFactory, UserFactory, index_bioamber_pair
from tests.llm.conftest import replay  # noqa: F401  (the replay server fixture)

pytestmark = pytest.mark.django_db

POSITIONS = [
    {"key": "Governing Law", "rule": {"allowed": ["New York", "Delaware"]}, "severity": "high",
     "note": "our courts"},
    {"key": "Expiration Date", "rule": {"after": "2012-01-01"}, "severity": "low"},
    {"key": "Renewal Term", "rule": {"max": "1 year"}},
    {"key": "Anti-Assignment", "rule": {"required": True}, "severity": "high"},
    {"key": "Uncapped Liability", "rule": {"forbidden": True}, "severity": "high"},
    {"key": "Payment terms", "question": "When are invoices due?", "type": "clause",
     "rule": {"words": "invoices are payable within 30 days"}},
]  # fmt: skip


@pytest.fixture
def pair(matter):
    return index_bioamber_pair(matter)


@pytest.fixture
def staff(db):
    return UserFactory(username="partner", is_staff=True)


@pytest.fixture
def playbook(staff):
    return actions.playbook_save(
        user=staff, playbook=None, name="US commercial", description="", positions=POSITIONS,
        via="page",
    )  # fmt: skip


def apply(matter, user, playbook, capture, grid=None):
    with capture(execute=True):
        run = actions.playbook_apply(
            matter=matter, user=user, playbook=playbook, document_ids=None, grid=grid, via="page"
        )
    run.grid.refresh_from_db()
    assert run.grid.status == Grid.Status.DONE, run.grid.error_message
    playbooks.run_refresh(run=run)
    return run


def verdicts(run) -> dict[tuple[str, str], Verdict]:
    """(document "base" or "amendment", column key) -> verdict, as a reader sees them (decided
    again if the grid has changed)."""
    playbooks.run_refresh(run=run)
    base, amendment = (d.pk for d in run.grid.documents.order_by("pk"))
    names = {base: "base", amendment: "amendment"}
    return {(names[v.document_id], v.key): v for v in playbooks.verdicts_filtered(run=run)}


def test_only_staff_write_playbooks_and_every_change_is_a_new_audited_version(owner, staff):
    with pytest.raises(PermissionDenied):
        actions.playbook_save(
            user=owner, playbook=None, name="Mine", description="", positions=POSITIONS, via="page"
        )
    with pytest.raises(PlaybookRejected, match="does not fit a date column"):
        actions.playbook_save(
            user=staff, playbook=None, name="Bad", description="", via="page",
            positions=[{"key": "Expiration Date", "rule": {"min": "1 year"}}],
        )  # fmt: skip
    assert not PlaybookVersion.objects.exists()
    saved = actions.playbook_save(
        user=staff, playbook=None, name="US", description="", positions=POSITIONS, via="api"
    )
    assert saved.version == 1
    same = actions.playbook_save(
        user=staff, playbook=saved, name="US", description="", positions=POSITIONS, via="api"
    )
    assert same.version == 1  # nothing changed: no new version
    changed = actions.playbook_save(
        user=staff, playbook=saved, name="US", description="", positions=POSITIONS[:2], via="api"
    )
    assert changed.version == 2
    assert list(PlaybookVersion.objects.values_list("number", flat=True)) == [2, 1]
    events = AuditEvent.objects.filter(action=ReviewVerb.PLAYBOOK_SAVED)
    assert events.count() == 2 and all(e.matter_id is None for e in events)
    assert events.first().detail["version"] == 2
    # Archived: kept, no longer applied, and no new version of its positions.
    archived = actions.playbook_save(
        user=staff, playbook=changed, name="US", description="", positions=POSITIONS[:2],
        via="page", archived=True,
    )  # fmt: skip
    assert archived.archived and archived.version == 2
    assert AuditEvent.objects.filter(action=ReviewVerb.PLAYBOOK_SAVED).count() == 3
    matter = MembershipFactory(user=owner).matter
    with pytest.raises(PlaybookRejected, match="archived"):
        actions.playbook_apply(
            matter=matter, user=owner, playbook=archived, document_ids=None, grid=None, via="page"
        )


def test_applying_gives_each_document_a_verdict_per_position_with_reason_and_quotation(
    matter, owner, pair, playbook, django_capture_on_commit_callbacks
):
    run = apply(matter, owner, playbook, django_capture_on_commit_callbacks)
    got = verdicts(run)
    law = got[("base", "Governing Law")]
    assert (law.verdict, law.value, law.severity) == ("deviates", "Minnesota", "high")
    assert "Minnesota" in law.quotation and law.citation.startswith(f"[{pair[0].key}:")
    assert "none of the allowed" in law.reason
    assert got[("base", "Expiration Date")].verdict == "meets"  # 2010-04-15 + 4 years
    assert got[("base", "Renewal Term")].verdict == "missing"
    assert got[("base", "Anti-Assignment")].verdict == "meets"
    # A forbidden provision deviates exactly when the cell says it is there.
    uncapped = got[("base", "Uncapped Liability")]
    assert uncapped.verdict == ("deviates" if uncapped.value.startswith("Yes") else "meets")
    assert got[("base", "Payment terms")].verdict == "review"  # in words, and offline
    # The amendment is judged in its agreement's row, not on its own.
    assert not any(doc == "amendment" for doc, _ in got)
    summary = playbooks.run_summary(run=run)
    assert summary[0].position.severity == "high"  # high severity first
    assert [s.headline for s in summary if s.position.key == "Governing Law"] == [
        "1 of 1 deviate on Governing Law"
    ]
    event = AuditEvent.objects.get(action=ReviewVerb.PLAYBOOK_APPLIED)
    assert (event.matter_id, event.detail["version"], event.detail["run_id"]) == (
        matter.pk, 1, run.pk,
    )  # fmt: skip


def test_a_correction_re_decides_the_verdict_and_an_amendments_term_is_what_is_read(
    matter, owner, pair, playbook, django_capture_on_commit_callbacks
):
    run = apply(matter, owner, playbook, django_capture_on_commit_callbacks)
    base, amendment = pair
    law = Cell.objects.get(grid=run.grid, document=base, column__key="Governing Law")
    actions.cell_review(
        matter=matter, user=owner, cell=law, status="corrected", value="Delaware", via="page"
    )
    assert verdicts(run)[("base", "Governing Law")].verdict == "meets"
    actions.cell_review(matter=matter, user=owner, cell=law, status="none", via="page")
    assert verdicts(run)[("base", "Governing Law")].verdict == "deviates"
    # The amendment changes the governing law (a reviewer's reading of it stands): the
    # agreement's verdict reads the agreement as amended.
    changed = Cell.objects.get(grid=run.grid, document=amendment, column__key="Governing Law")
    actions.cell_review(
        matter=matter, user=owner, cell=changed, status="corrected", value="New York", via="page"
    )
    amended = verdicts(run)[("base", "Governing Law")]
    assert amended.verdict == "meets" and amended.amended_by == amendment
    assert amended.reason.startswith(f"as amended by {amendment.key}")


def test_a_run_keeps_its_version_and_an_existing_grid_gets_only_the_columns_it_lacks(
    matter, owner, staff, pair, playbook, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        grid = actions.grid_create(
            matter=matter, user=owner, title="Law only", document_ids=None, mode="offline",
            columns=[ColumnSpec("Governing Law", "Which law governs?", "text")], via="page",
        )  # fmt: skip
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE
    first = Cell.objects.get(grid=grid, document=pair[0], column__key="Governing Law")
    run = apply(matter, owner, playbook, django_capture_on_commit_callbacks, grid=grid)
    assert run.grid.pk == grid.pk
    keys = list(grid.columns.order_by("position").values_list("key", flat=True))
    assert keys[0] == "Governing Law" and len(keys) == 6  # five added after it
    assert Cell.objects.get(pk=first.pk).filled_at == first.filled_at  # not filled again
    assert run.grid.cells_done == run.grid.cells_total == 12
    actions.playbook_save(
        user=staff, playbook=playbook, name="US commercial", description="v2",
        positions=POSITIONS[:1], via="page",
    )  # fmt: skip
    run.refresh_from_db()
    assert run.version.number == 1 and len(run.positions) == len(POSITIONS)


def test_no_one_outside_the_matter_applies_a_playbook_or_reads_its_deviations(
    client, matter, owner, pair, playbook, django_capture_on_commit_callbacks
):
    run = apply(matter, owner, playbook, django_capture_on_commit_callbacks)
    outsider = UserFactory(username="outsider")
    with pytest.raises(Http404):
        actions.playbook_apply(
            matter=matter, user=outsider, playbook=playbook, document_ids=None, grid=None,
            via="page",
        )  # fmt: skip
    client.force_login(outsider)
    assert client.get(reverse("playbook-run", args=[matter.pk, run.pk])).status_code == 404
    assert client.get(reverse("matter-playbooks", args=[matter.pk])).status_code == 404


def test_the_deviations_page_and_the_exports_carry_each_verdict_and_quotation(
    client, matter, owner, pair, playbook, django_capture_on_commit_callbacks
):
    run = apply(matter, owner, playbook, django_capture_on_commit_callbacks)
    client.force_login(owner)
    page = client.get(reverse("playbook-run", args=[matter.pk, run.pk])).content.decode()
    assert "1 of 1 documents deviate on at least one position" in page
    assert "Minnesota is none of the allowed: New York, Delaware" in page
    assert 'data-testid="run-documents"' in page and "Documents that deviate most" in page
    assert "The firm's note: our courts" in page
    only_low = client.get(
        reverse("playbook-run", args=[matter.pk, run.pk]), {"verdict": "", "severity": "low"}
    ).content.decode()
    assert "Expiration Date" in only_low and "Minnesota is none" not in only_low

    xlsx = client.post(reverse("grid-export", args=[matter.pk, run.grid.pk, "xlsx"]))
    book = load_workbook(io.BytesIO(xlsx.getvalue()))
    rows = list(book["Deviations"].iter_rows(values_only=True))
    assert rows[0][:8] == (
        "Playbook", "Document", "Title", "Position", "Rule", "Severity", "Verdict", "Value",
    )  # fmt: skip
    law = next(r for r in rows if r[3] == "Governing Law")
    assert law[6] == "Deviates" and "Minnesota" in law[9] and law[4].startswith("must be one of")

    pdf = client.post(reverse("grid-export", args=[matter.pk, run.grid.pk, "pdf"]))
    text = " ".join(
        " ".join((p.extract_text() or "").split())
        for p in PdfReader(io.BytesIO(pdf.getvalue())).pages
    )
    assert "Deviations from US commercial v1" in text
    assert "1 of 1 deviate on Governing Law" in text
    assert "Governing Law must be one of New York, Delaware (our courts)" in text


WORDS = {
    "key": "Payment terms",
    "question": "When are invoices due?",
    "type": "clause",
    "rule": {"words": "invoices are payable within 30 days"},
}


def test_a_position_in_words_needs_review_offline_until_a_reviewer_decides_it(
    matter, owner, pair, playbook, django_capture_on_commit_callbacks
):
    run = apply(matter, owner, playbook, django_capture_on_commit_callbacks)
    assert verdicts(run)[("base", "Payment terms")].verdict == "review"
    words = Cell.objects.get(
        grid=run.grid,
        document=pair[0],
        column__key="Payment terms: invoices are payable within 30 days",
    )
    assert words.column.type == "yes_no" and "does this agreement meet" in words.column.question
    actions.cell_review(
        matter=matter, user=owner, cell=words, status="corrected", value="Yes", via="page"
    )
    decided = verdicts(run)[("base", "Payment terms")]
    assert decided.verdict == "meets" and decided.reason.startswith("A reviewer reads")


def test_claude_reads_a_position_in_words_with_a_verified_quotation(
    matter,
    owner,
    staff,
    pair,
    replay,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    from legalnav.documents.models import Node
    from tests.llm.replay import message

    base, _ = pair
    node = Node.objects.filter(document=base, text__contains="within thirty (30) days of receipt")
    node = min(node, key=lambda n: len(n.text))
    quote = "Bioamber will pay Cargill's costs within thirty (30) days of receipt of invoice"
    law = Node.objects.get(document=base, text__contains="13.2 Governing Law")
    reply = {
        "cells": [
            {"key": "Governing Law", "found": True, "value": "Minnesota", "node": law.node_id,
             "quote": "the laws of the State of Minnesota", "confidence": 0.9},
            {"key": "Payment terms: invoices are payable within 30 days", "found": True,
             "value": "Yes", "quote": quote, "node": node.node_id, "confidence": 0.9},
        ]
    }  # fmt: skip
    replay.queue(message(json.dumps(reply), input_tokens=2500, output_tokens=120))
    playbook = actions.playbook_save(
        user=staff, playbook=None, name="Words", description="", via="page",
        positions=[POSITIONS[0], WORDS],
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        run = actions.playbook_apply(
            matter=matter, user=owner, playbook=playbook, document_ids=[base.pk], grid=None,
            via="api", mode="claude",
        )  # fmt: skip
    run.grid.refresh_from_db()
    assert run.grid.mode == "claude" and run.grid.status == Grid.Status.DONE
    playbooks.run_refresh(run=run)
    got = {v.key: v for v in playbooks.verdicts_filtered(run=run)}
    words = got["Payment terms"]
    assert words.verdict == "meets" and words.reason.startswith("Claude reads")
    assert quote in words.quotation and words.citation == f"[{base.key}:{node.node_id}]"
    assert got["Governing Law"].verdict == "deviates"
    assert run.grid.llm_calls == 1 and run.grid.dollars > 0


def test_verdicts_follow_a_refill_an_undone_review_and_an_amendment_link_when_read(
    matter, owner, pair, playbook, django_capture_on_commit_callbacks
):
    """What the verdicts were decided from is checked when they are read: a refill (new cells,
    same count), undoing a review that is not the latest, and linking an amendment each make
    the next read decide again; an unchanged grid is not decided again."""
    from legalnav.review import services

    base, amendment = pair
    run = apply(matter, owner, playbook, django_capture_on_commit_callbacks)
    assert not playbooks.run_refresh(run=run)  # nothing changed since
    law = Cell.objects.get(grid=run.grid, document=base, column__key="Governing Law")
    expiry = Cell.objects.get(grid=run.grid, document=base, column__key="Expiration Date")
    actions.cell_review(
        matter=matter, user=owner, cell=law, status="corrected", value="Delaware", via="page"
    )
    actions.cell_review(matter=matter, user=owner, cell=expiry, status="confirmed", via="page")
    assert verdicts(run)[("base", "Governing Law")].verdict == "meets"
    # Undo the earlier review: the latest review time is unchanged, the verdict is not.
    actions.cell_review(matter=matter, user=owner, cell=law, status="none", via="page")
    assert verdicts(run)[("base", "Governing Law")].verdict == "deviates"
    # A refill writes new cells (same count): the verdicts point at them.
    before = verdicts(run)[("base", "Renewal Term")].cell_id
    with django_capture_on_commit_callbacks(execute=True):
        assert services.grid_retry(grid=run.grid, refill=True)
    assert verdicts(run)[("base", "Renewal Term")].cell_id != before
    # The amendment unlinked: it is judged on its own row from then on.
    Document.objects.filter(pk=amendment.pk).update(amends=None)
    assert any(doc == "amendment" for doc, _ in verdicts(run))


def test_columns_added_while_a_grid_fills_are_filled_before_it_is_done(
    matter, owner, pair, monkeypatch
):
    """A playbook applied to a grid that is still filling adds columns its running job had not
    read: the job fills them too before it ends."""
    from legalnav.review import services
    from legalnav.review.models import GridColumn

    grid = services.grid_create(
        matter=matter, user=owner, title="g", documents=list(pair),
        columns=[ColumnSpec("Governing Law", "Which law governs?", "text")],
    )  # fmt: skip
    real = services._write_cells
    added = []

    def write_then_add(grid_, lease, document_id, new):  # type: ignore[no-untyped-def]
        real(grid_, lease, document_id, new)
        if not added:  # while the first document is being written, a column is added
            added.append(
                GridColumn.objects.create(
                    grid=grid_,
                    position=1,
                    key="Anti-Assignment",
                    question="May a party assign it?",
                    type="yes_no",
                )  # fmt: skip
            )
            Grid.objects.filter(pk=grid_.pk).update(cells_total=4)

    monkeypatch.setattr(services, "_write_cells", write_then_add)
    done = services.grid_fill(grid_id=grid.pk)
    assert done.status == Grid.Status.DONE
    assert Cell.objects.filter(grid=grid).count() == done.cells_done == 4
    assert Cell.objects.filter(grid=grid, column=added[0]).count() == 2


def test_a_memo_quoting_fewer_problems_than_a_run_has_says_the_xlsx_has_them_all(
    matter, owner, pair, playbook, django_capture_on_commit_callbacks, monkeypatch
):
    from legalnav.review import exports

    run = apply(matter, owner, playbook, django_capture_on_commit_callbacks)
    problems = playbooks.verdicts_filtered(run=run, verdict="problems").count()
    assert problems >= 1
    monkeypatch.setattr(exports, "MEMO_MAX_PROBLEMS", problems)  # all of them quoted
    assert "Deviations sheet has every one" not in exports.grid_memo_html(run.grid, owner)
    monkeypatch.setattr(exports, "MEMO_MAX_PROBLEMS", problems - 1)
    memo = exports.grid_memo_html(run.grid, owner)
    assert f"The first {problems - 1} problems are quoted below" in memo
    assert "Deviations sheet has every one" in memo
