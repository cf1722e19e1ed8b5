"""``manage.py bench``: the report's parts, as a table and as JSON."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.conftest import DEMO

FILES = [
    str(DEMO / "bioamber-development-agreement.txt"),
    str(DEMO / "bioamber-development-agreement-first-amendment.txt"),
]
MODES = ["navembed:bm25", "inject", "naive:bm25"]


def test_bench_reports_throughput_latency_and_memory(tmp_path):
    out_file = tmp_path / "bench.json"
    out = StringIO()
    call_command(
        "bench", *FILES, modes=MODES, embed_sample=4, cache=str(tmp_path / "cache"),
        json=True, out=str(out_file), stdout=out,
    )  # fmt: skip
    report = json.loads(out.getvalue())
    assert report == json.loads(out_file.read_text())
    assert report["documents"] == 2
    assert report["characters"] == sum(len(open(f, encoding="utf-8").read()) for f in FILES)
    indexing = report["indexing"]
    assert indexing["nodes"] > 10 and indexing["passages"] > 10 and indexing["mb_per_s"] > 0
    assert report["embedding"]["passages"] == 4 and report["embedding"]["passages_per_s"] > 0
    assert set(report["latency_ms"]) == set(MODES)
    for lat in report["latency_ms"].values():
        assert 0 <= lat["p50"] <= lat["p95"] and lat["n"] == 16
    assert report["payload_chars_median"]["inject"] == report["characters"]
    assert report["payload_chars_median"]["naive:bm25"] == 10 * 500
    assert report["peak_rss_mb"] > 50


def test_bench_prints_a_table_and_refuses_bad_input(tmp_path):
    out = StringIO()
    call_command(
        "bench", FILES[1], modes=["inject"], embed_sample=2, cache=str(tmp_path), stdout=out
    )
    text = out.getvalue()
    assert "indexing" in text and "passages/s" in text and "peak RSS" in text
    assert "inject" in text
    with pytest.raises(CommandError, match="unknown mode"):
        call_command("bench", FILES[1], modes=["warp"], stdout=StringIO())
    with pytest.raises(CommandError, match="No such file"):
        call_command("bench", str(tmp_path / "missing.txt"), stdout=StringIO())
