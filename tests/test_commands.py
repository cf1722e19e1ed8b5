"""Management commands: the demo matter, ingest, navindex export, and the measurement commands."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from legalnav.documents.models import CrossReference, Document
from legalnav.matters.models import Matter, Membership
from tests.conftest import DEMO

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_load_demo_builds_an_indexed_matter_with_an_amendment_pair():
    output = run("load_demo")
    matter = Matter.objects.get()
    docs = Document.objects.filter(matter=matter)
    assert docs.count() == 6 and set(docs.values_list("status", flat=True)) == {"indexed"}
    amendment = docs.get(kind="amendment", amends__isnull=False)
    assert CrossReference.objects.filter(
        source__document=amendment, target__document=amendment.amends
    ).exists()
    user = get_user_model().objects.get(username="demo")
    assert Membership.objects.filter(matter=matter, user=user, role="owner").exists()
    assert "is ready" in output
    # Loading again changes nothing.
    run("load_demo")
    assert Document.objects.count() == 6 and Matter.objects.count() == 1


def test_ingest_reports_each_file_and_fails_when_one_cannot_be_indexed(tmp_path):
    good = DEMO / "bioamber-development-agreement.txt"
    bad = tmp_path / "scan.pdf"
    bad.write_bytes(b"%PDF-1.5 broken")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    err = StringIO()
    with pytest.raises(CommandError, match="2 of 3"):
        call_command(
            "ingest",
            str(good),
            str(bad),
            str(empty),
            "--matter",
            "Cargill",
            stdout=StringIO(),
            stderr=err,
        )
    assert "damaged" in err.getvalue() and "empty" in err.getvalue()
    assert Document.objects.get(original_filename=good.name).status == "indexed"
    assert Document.objects.get(original_filename="scan.pdf").status == "failed"
    assert not Document.objects.filter(original_filename="empty.txt").exists()


def test_ingest_rejects_an_unknown_matter_id():
    with pytest.raises(CommandError, match="No matter with id"):
        run("ingest", str(DEMO / "bioamber-development-agreement.txt"), "--matter", "424242")


def test_export_navindex(tmp_path):
    run("ingest", str(DEMO / "bioamber-development-agreement.txt"), "--matter", "M")
    doc = Document.objects.get()
    output = run("export_navindex", "--matter", str(doc.matter_id), "--out", str(tmp_path))
    assert output.count("bytes") == 4
    data = json.loads((tmp_path / f"{doc.key}.index.min.json").read_text())
    assert data["di"] == doc.key
    with pytest.raises(CommandError):
        run("export_navindex", "--document", "999999")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    for name in ("coned-credit-agreement-2020.txt", "bioamber-development-agreement.txt"):
        shutil.copy(DEMO / name, tmp_path / name)
    return tmp_path


def test_structure_report_measures_recall_and_resolution(corpus):
    report = json.loads(run("structure_report", str(corpus), "--json"))
    assert report["documents"] == 2 and report["failures"] == []
    assert report["toc"]["documents_with_toc"] == 1 and report["toc"]["recall"] > 0.95
    assert 0.85 < report["cross_references"]["resolution_where_target_exists"] <= 1


def test_bench_parse_prints_throughput(corpus):
    result = json.loads(run("bench_parse", str(corpus), "--json"))
    assert result["documents"] == 2 and result["nodes"] > 400
    assert result["mb_per_s"] > 0 and result["peak_rss_mb"] > 0
    text = run("bench_parse", str(corpus))
    assert "nodes_per_s" in text


def test_bench_embed_counts_what_it_embeds_and_times_workers():
    """One small agreement, one worker process (the real model, loaded in a fresh process)."""
    amendment = str(DEMO / "bioamber-development-agreement-first-amendment.txt")
    result = json.loads(run("bench_embed", amendment, "--workers", "1", "--json"))
    assert result["documents"] == 1 and result["passages"] > 0
    # What was not embedded is counted by reason, and the two add up.
    assert result["embedded"] + sum(result["skipped"].values()) == result["passages"]
    assert result["passages_per_mb_embedded"] <= result["passages_per_mb_all"]
    (worker,) = result["workers"]
    assert worker["workers"] == 1 and worker["passages_per_s"] > 0
    assert worker["peak_mb_per_worker"] > 50  # a process that loaded torch and the model
    assert result["first_answer"]["total_s"] >= result["first_answer"]["question_s"] > 0
    with pytest.raises(CommandError, match="no such file"):
        run("bench_embed", "/nonexistent.txt")
