"""CUAD dev contracts for the review tests, read from the shared data at test time (nothing of
CUAD is copied into the repository). The dev contracts are the stride sample that
legalnav.evaluation.gold.cuad_items takes: every tenth contract in name order."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from django.conf import settings


def cuad_dir() -> Path:
    return Path(settings.DATA_DIR) / "cuad"


@cache
def gold_rows() -> tuple[dict, ...]:
    with (cuad_dir() / "spans.jsonl").open(encoding="utf-8") as fh:
        return tuple(json.loads(line) for line in fh if line.strip())


@cache
def dev_names() -> tuple[str, ...]:
    return tuple(sorted({r["doc"] for r in gold_rows()})[::10][:40])


def contract_path(name: str) -> str:
    return str(cuad_dir() / "contracts" / name)


def contract_text(name: str) -> str:
    return Path(contract_path(name)).read_bytes().decode("utf-8")


def dev_gold(category: str) -> list[tuple[dict, list[str]]]:
    """(gold row, the located span texts) for every dev contract with gold in the category."""
    dev = set(dev_names())
    out = []
    for r in gold_rows():
        if r["doc"] in dev and r["category"] == category:
            located = [s for s in r["spans"] if s.get("start") is not None]
            if located:
                text = contract_text(r["doc"])
                out.append((r, [text[s["start"] : s["end"]] for s in located]))
    return out


def gold_spans(name: str, category: str) -> list[tuple[int, int]]:
    for r in gold_rows():
        if r["doc"] == name and r["category"] == category:
            return [(s["start"], s["end"]) for s in r["spans"] if s.get("start") is not None]
    return []
