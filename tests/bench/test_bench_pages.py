from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from legalnav.documents.models import Document
from legalnav.matters.models import Matter
from tests.conftest import DEMO


@pytest.mark.django_db
def test_bench_pages_times_each_page_and_cleans_up():
    out = StringIO()
    call_command(
        "bench_pages",
        str(DEMO / "bioamber-development-agreement.txt"),
        str(DEMO / "bioamber-development-agreement-first-amendment.txt"),
        "--repeat",
        "2",
        "--json",
        stdout=out,
    )
    report = json.loads(out.getvalue())
    assert report["documents"] == 2 and report["clauses"] > 50
    assert set(report["pages"]) == {"matters list", "matter", "reader", "answer"}
    for row in report["pages"].values():
        assert row["median_ms"] > 0 and row["p95_ms"] >= row["median_ms"] and row["queries"] > 0
    assert not Matter.objects.exists() and not Document.objects.exists()
