"""The hand-labelled stance sets are what they say they are: each pair's holding is the court's
words, verbatim in its judgment; no pair repeats; a blind set shares no judgment with any set
labelled before it (else its score would not be blind)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from legalnav.bench.research_eval import GOLD_DIR
from tests.research.conftest import aila_text, uk_text

BLIND_SETS = sorted(GOLD_DIR.glob("stance_blind_*.jsonl"))
STANCES = {"supporting", "adverse", "neutral"}


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_there_are_blind_sets_to_check():
    assert len(BLIND_SETS) >= 2, BLIND_SETS


@pytest.mark.parametrize("path", BLIND_SETS, ids=lambda p: p.stem)
def test_a_blind_set_quotes_holdings_verbatim_and_never_repeats_a_pair(path):
    rows = _rows(path)
    assert len(rows) >= 80
    pairs = [(r["query"], r["doc"]) for r in rows]
    assert len(pairs) == len(set(pairs))
    texts: dict[tuple[str, str], str] = {}
    for r in rows:
        assert r["stance"] in STANCES, r
        assert r["source"] in ("aila", "ewca"), r
        if r["stance"] == "neutral":
            assert r["holding"] == "", r
            continue
        key = (str(r["source"]), str(r["doc"]))
        if key not in texts:
            read = aila_text if key[0] == "aila" else uk_text
            texts[key] = _collapse(read(key[1]))
        assert _collapse(str(r["holding"])) in texts[key], (r["query"], r["doc"])
    counts = {s: sum(1 for r in rows if r["stance"] == s) for s in STANCES}
    assert min(counts.values()) >= 20, counts  # every stance is measured, not only one


def test_each_blind_set_shares_no_judgment_with_the_sets_labelled_before_it():
    earlier: set[str] = set()
    for name in ("aila_stance.jsonl", "stance_tune_ewca.jsonl", "silver_handcheck.jsonl"):
        earlier |= {str(r.get("doc") or r.get("doc_id")) for r in _rows(GOLD_DIR / name)}
    for path in BLIND_SETS:  # in date order: each is checked against every set before it
        docs = {str(r["doc"]) for r in _rows(path)}
        assert not docs & earlier, (path.name, sorted(docs & earlier)[:5])
        earlier |= docs
