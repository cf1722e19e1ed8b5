"""`manage.py extract --json`, the review grid's measurement door, driven as the protocol says: a
process fed JSON lines on stdin, read until it exits, on real CUAD dev contracts."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from legalnav.documents.parsing.values import extract_jurisdiction
from legalnav.review.columns import CUAD_COLUMNS
from legalnav.review.scoring import overlaps
from tests.conftest import REPO
from tests.retrieval.test_retrieve_command import cache, text_of  # noqa: F401  (the fixture)
from tests.review.cuad import contract_path, dev_names, gold_spans

# Two short dev contracts (8 KB each), so the door indexes them in seconds.
SIBANNAC = "SIBANNAC,INC_12_04_2017-EX-2.1-Strategic Alliance Agreement.txt"
VEONEER = "VEONEER,INC_02_21_2020-EX-10.11-JOINT VENTURE AGREEMENT.txt"
COLUMNS = [{"key": c.key, "question": c.question, "type": c.type} for c in CUAD_COLUMNS]
MINE = {"key": "Notices", "question": "Where must notices be sent?", "type": "clause"}


def run_extract(lines: list[object], cache_dir: Path) -> tuple[list[dict], str]:
    payload = "".join(
        (line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines
    )
    env = {
        **os.environ,
        "LEGALNAV_RETRIEVE_CACHE": str(cache_dir),
        "DJANGO_SETTINGS_MODULE": "legalnav.settings",
    }
    env.pop("DATABASE_URL", None)
    proc = subprocess.run(
        [sys.executable, "manage.py", "extract", "--json"],
        input=payload,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(line) for line in proc.stdout.splitlines()], proc.stderr


def request(ident: str, name: str, columns=COLUMNS, **extra) -> dict:  # type: ignore[no-untyped-def]
    return {"id": ident, "document": contract_path(name), "columns": columns, **extra}


@pytest.fixture(scope="module")
def filled(cache) -> list[dict]:  # noqa: F811
    assert SIBANNAC in dev_names() and VEONEER in dev_names()
    lines = [
        request("sibannac", SIBANNAC, [*COLUMNS, MINE], mode="offline"),
        request("veoneer", VEONEER),
    ]
    responses, _ = run_extract(lines, cache)
    return responses


def test_every_column_gets_one_well_formed_cell(filled):
    assert [r["id"] for r in filled] == ["sibannac", "veoneer"]
    for response, name, width in zip(filled, (SIBANNAC, VEONEER), (42, 41), strict=True):
        assert "error" not in response, response
        assert response["latency_ms"] > 0
        text = text_of(contract_path(name))
        cells = response["cells"]
        assert len(cells) == width and len({c["key"] for c in cells}) == width
        for cell in cells:
            assert 0.0 <= cell["confidence"] <= 1.0
            assert (cell["value"] == "not found") == (not cell["spans"]), cell
            for span in cell["spans"]:
                assert 0 <= span["start"] < span["end"] <= len(text)
        assert any(c["spans"] for c in cells) and any(not c["spans"] for c in cells)


def test_governing_law_and_parties_are_found_and_typed(filled):
    cells = {c["key"]: c for c in filled[0]["cells"]}
    text = text_of(contract_path(SIBANNAC))
    for key in ("Governing Law", "Parties"):
        quoted = [(s["start"], s["end"]) for s in cells[key]["spans"]]
        assert overlaps(quoted, gold_spans(SIBANNAC, key)), (key, cells[key])
    # The value is the jurisdiction the gold clause names, not the clause.
    gold = gold_spans(SIBANNAC, "Governing Law")
    expected = extract_jurisdiction(" ".join(text[a:b] for a, b in gold))
    assert expected is not None and cells["Governing Law"]["value"] == expected.display
    assert ";" in cells["Parties"]["value"]  # two parties or more


def test_confidence_ranks_gold_above_absent_categories(filled):
    """Over both contracts, the cells whose quotation hits gold are more confident on average
    than the cells of categories the contract does not have."""
    hits, absent = [], []
    for response, name in zip(filled, (SIBANNAC, VEONEER), strict=True):
        for cell in response["cells"]:
            if cell["key"] == MINE["key"]:
                continue
            gold = gold_spans(name, cell["key"])
            quoted = [(s["start"], s["end"]) for s in cell["spans"]]
            if gold and overlaps(quoted, gold):
                hits.append(cell["confidence"])
            elif not gold:
                absent.append(cell["confidence"])
    assert len(hits) >= 5 and len(absent) >= 20
    assert sum(hits) / len(hits) > sum(absent) / len(absent) + 0.2


def test_same_input_same_cells_and_the_retrieve_cache_is_shared(filled, cache):  # noqa: F811
    again, _ = run_extract([request("veoneer", VEONEER)], cache)
    assert again[0]["cells"] == filled[1]["cells"]
    sha = hashlib.sha256(text_of(contract_path(VEONEER)).encode("utf-8")).hexdigest()
    assert list(cache.glob(f"{sha}-*.pkl")), "indexed by content hash in the door's cache"


def test_bad_lines_get_an_error_and_the_rest_are_answered(cache, tmp_path):  # noqa: F811
    few = COLUMNS[:3]
    lines = [
        "not json at all",
        request("missing", "no-such-contract.txt", few),
        request("bad-type", VEONEER, [{"key": "Fee", "question": "What fee?", "type": "money"}]),
        request("bad-mode", VEONEER, few, mode="telepathy"),
        request("twice", VEONEER, [few[0], few[0]]),
        request("no-columns", VEONEER, []),
        request("fine", VEONEER, few),
    ]
    responses, _ = run_extract(lines, cache)
    assert len(responses) == len(lines)
    errors = {r["id"]: r.get("error") for r in responses}
    assert responses[0]["id"] is None and "JSON" in responses[0]["error"]
    assert errors["missing"] and "No such file" in errors["missing"]
    assert errors["bad-type"] and "money" in errors["bad-type"]
    assert errors["bad-mode"] and "offline" in errors["bad-mode"]
    assert errors["twice"] and errors["no-columns"]
    assert all(r["cells"] == [] for r in responses if r.get("error"))
    fine = responses[-1]
    assert "error" not in fine and [c["key"] for c in fine["cells"]] == [c["key"] for c in few]


def test_a_column_with_a_playbook_rule_gets_the_verdict_its_value_decides(cache):  # noqa: F811
    """RETRIEVE-PROTOCOL.md, "Playbook rules": the verdict is the one rules.py decides from the
    cell the door returns, and only columns that carry a rule get one; a rule that cannot be read
    gives its cell "review" with the reason and leaves the line's other cells alone."""
    from legalnav.review.columns import preset_column
    from legalnav.review.rules import CellFacts, decide, parse_rule

    law = preset_column("Governing Law")
    renewal = preset_column("Renewal Term")
    assert law is not None and renewal is not None
    rules = {
        "Governing Law": {"allowed": ["New York", "Delaware"]},
        "Renewal Term": {"max": "1 year"},
        "Anti-Assignment": {"required": True},
    }
    columns = [
        {**c, "rule": rules[c["key"]]} if c["key"] in rules else c
        for c in COLUMNS
        if c["key"] in (*rules, "Parties")
    ]
    bad = [
        {"key": "Renewal Term", "question": "", "type": "duration", "rule": {"max": "a while"}},
        {"key": "Governing Law", "question": "", "type": "text", "rule": {"allowed": ["Texas"]}},
    ]
    responses, _ = run_extract(
        [request("ruled", SIBANNAC, columns), request("bad-rule", VEONEER, bad)], cache
    )
    cells = {c["key"]: c for c in responses[0]["cells"]}
    assert "verdict" not in cells["Parties"]
    for key, rule in rules.items():
        cell, column = cells[key], preset_column(key)
        assert column is not None
        facts = CellFacts(column.type, cell["value"], bool(cell["spans"]))
        assert cell["verdict"] == decide(parse_rule(rule, column.type), facts).verdict, cell
    # SIBANNAC is governed by the law of Texas: a deviation.
    assert cells["Governing Law"]["verdict"] == "deviates", cells["Governing Law"]
    # A rule that cannot be read costs only its own cell a verdict ("review", and why).
    assert "error" not in responses[1]
    unread, fine = responses[1]["cells"]
    assert unread["verdict"] == "review" and "period with its unit" in unread["rule_error"]
    assert fine["verdict"] in ("meets", "deviates", "missing") and "rule_error" not in fine
