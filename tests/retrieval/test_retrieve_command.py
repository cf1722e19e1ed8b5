"""`manage.py retrieve --json`, the measurement door, driven as the protocol says: a process fed
JSON lines on stdin, read until it exits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DEMO, REPO

BIOAMBER = str(DEMO / "bioamber-development-agreement.txt")
AMENDMENT = str(DEMO / "bioamber-development-agreement-first-amendment.txt")
CONED = str(DEMO / "coned-credit-agreement-2020.txt")


def run_retrieve(lines: list[object], cache: Path) -> tuple[list[dict], str]:
    payload = "".join(
        (line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines
    )
    env = {
        **os.environ,
        "LEGALNAV_RETRIEVE_CACHE": str(cache),
        "DJANGO_SETTINGS_MODULE": "legalnav.settings",
    }
    env.pop("DATABASE_URL", None)
    proc = subprocess.run(
        [sys.executable, "manage.py", "retrieve", "--json"],
        input=payload,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(line) for line in proc.stdout.splitlines()], proc.stderr


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("retrieve-cache")


def request(ident: str, question: str, mode: str, documents=(BIOAMBER,), **extra) -> dict:
    return {
        "id": ident,
        "documents": list(documents),
        "question": question,
        "mode": mode,
        "k": 10,
        **extra,
    }


def text_of(path: str) -> str:
    return open(path, "rb").read().decode("utf-8")


def test_every_mode_answers_with_exact_ranges(cache):
    question = "Which state's law governs the interpretation of the agreement?"
    modes = [
        "navembed",
        "navembed:bm25",
        "navembed:dense",
        "navembed:dense+xref",
        "navindex",
        "inject",
        "auto",
    ]
    responses, stderr = run_retrieve([request(m, question, m) for m in modes], cache)
    assert [r["id"] for r in responses] == modes
    text = text_of(BIOAMBER)
    governing = text.index("13.2 Governing Law")
    for r in responses:
        assert "error" not in r, r
        assert 0 < len(r["results"]) <= 10 and r["payload_chars"] > 0 and r["latency_ms"] >= 0
        for hit in r["results"]:
            assert hit["path"] == BIOAMBER and 0 <= hit["start"] < hit["end"] <= len(text)
        scores = [h["score"] for h in r["results"]]
        assert scores == sorted(scores, reverse=True)
    by_mode = {r["id"]: r for r in responses}
    for mode in ("navembed", "navembed:bm25", "navindex"):
        top = by_mode[mode]["results"][0]
        assert top["start"] <= governing < top["end"], mode
    inject = by_mode["inject"]
    assert inject["results"] == [{"path": BIOAMBER, "start": 0, "end": len(text), "score": 1.0}]
    assert inject["payload_chars"] == len(text)
    # navindex selects at most 10 nodes and reads the cross-referenced ones too.
    assert len(by_mode["navindex"]["results"]) <= 10
    assert stderr is not None


def test_bad_lines_get_an_error_and_the_rest_are_answered(cache, tmp_path):
    missing = str(tmp_path / "nowhere.txt")
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("Section 1. Caf\xe9 terms.".encode("latin-1"))
    lines = [
        "this is not json",
        request("unknown-mode", "q", "telepathy"),
        request("missing-file", "q", "navembed", documents=[missing]),
        request("not-utf8", "q", "navembed", documents=[str(latin)]),
        {"id": "no-docs", "documents": [], "question": "q", "mode": "navembed"},
        request("bad-k", "q", "navembed", k=0),
        request("fine", "How long does the agreement last?", "navembed:bm25"),
    ]
    responses, _ = run_retrieve(lines, cache)
    assert len(responses) == len(lines)
    errors = {r["id"]: r.get("error") for r in responses}
    assert errors["unknown-mode"] and "navembed:bm25" in errors["unknown-mode"]
    assert errors["missing-file"] and errors["not-utf8"] and errors["no-docs"] and errors["bad-k"]
    assert responses[0]["id"] is None and "JSON" in responses[0]["error"]
    fine = responses[-1]
    assert fine["id"] == "fine" and "error" not in fine and fine["results"]
    assert all(r["results"] == [] for r in responses if r.get("error"))


def test_many_documents_document_unit_and_determinism(cache):
    lines = [
        request(
            "docs",
            "development of succinic acid with Cargill",
            "navembed",
            documents=[CONED, BIOAMBER, AMENDMENT],
            unit="document",
        ),
        request(
            "span",
            "Which Section 2.2 FTE amendment applies?",
            "navembed",
            documents=[BIOAMBER, AMENDMENT],
        ),
    ]
    first, _ = run_retrieve(lines, cache)
    second, _ = run_retrieve(lines, cache)
    strip = lambda rs: [(r["id"], r["results"], r["payload_chars"]) for r in rs]  # noqa: E731
    assert strip(first) == strip(second)
    docs = first[0]["results"]
    assert len({h["path"] for h in docs}) == len(docs) == 3
    assert (
        docs[-1]["path"] == CONED
    )  # the credit agreement is least about Cargill's development work
    span_paths = {h["path"] for h in first[1]["results"]}
    assert AMENDMENT in span_paths
    assert any(cache.glob("*.pkl")), "document indexes are cached for later processes"
