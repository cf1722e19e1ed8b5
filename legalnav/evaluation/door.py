"""Scoring through the measurement door, as an outside evaluator would.

``manage.py evaluate`` calls the engine in-process; this module instead writes the gold
questions as protocol requests (RETRIEVE-PROTOCOL.md) to a ``manage.py retrieve --json``
process and scores what comes back with the same metrics, so the two can be checked against
each other. Only span-level gold sets (CUAD, ContractNLI, our QA quotes) apply.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from legalnav.evaluation import metrics
from legalnav.evaluation.gold import GoldItem
from legalnav.evaluation.stats import clopper_pearson


def door_requests(items: list[GoldItem], modes: list[str], k: int = 10) -> list[dict[str, Any]]:
    return [
        {
            "id": f"{item.id}|{mode}",
            "documents": item.documents,
            "question": item.question,
            "mode": mode,
            "k": k,
            "unit": "span",
        }
        for item in items
        if item.spans
        for mode in modes
    ]


def run_door(
    requests: list[dict[str, Any]],
    *,
    repo: Path,
    env: dict[str, str] | None = None,
    command: str = "retrieve",
) -> list[dict[str, Any]]:
    """One ``manage.py retrieve --json`` (or ``extract --json``) process for the whole batch,
    as the protocol says."""
    payload = "".join(json.dumps(r) + "\n" for r in requests)
    proc = subprocess.run(
        [sys.executable, "manage.py", command, "--json"],
        input=payload,
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the {command} door failed: {proc.stderr[-2000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def score_door(
    items: list[GoldItem], responses: list[dict[str, Any]], modes: list[str], k: int = 10
) -> dict[str, dict[str, Any]]:
    """Per mode: R@1/5/10 with exact intervals, MRR@10, gold coverage and the share of the
    documents returned. A response with an error, or none at all, is a miss."""
    answered = {r.get("id"): r for r in responses}
    by_mode: dict[str, list[dict[str, float]]] = defaultdict(list)
    lengths: dict[str, int] = {}
    for item, mode in ((i, m) for i in items if i.spans for m in modes):
        response = answered.get(f"{item.id}|{mode}") or {"results": [], "error": "no response"}
        position = {p: d for d, p in enumerate(item.documents)}
        returned = [
            metrics.Range(position.get(x["path"], -1), int(x["start"]), int(x["end"]))
            for x in response.get("results", [])[:k]
        ]
        gold = [metrics.Range(d, s, e) for d, s, e in item.spans]
        covers = metrics.span_covers(returned, gold)
        measured = metrics.ranking_metrics(covers, len(gold))
        measured["coverage"] = metrics.span_coverage(returned, gold, k)
        total = 0
        for p in item.documents:
            if p not in lengths:
                lengths[p] = len(Path(p).read_bytes().decode("utf-8"))
            total += lengths[p]
        measured["share"] = metrics.footprint(returned, total, k)
        measured["error"] = 1.0 if response.get("error") else 0.0
        measured["latency_ms"] = float(response.get("latency_ms", 0.0))
        by_mode[mode].append(measured)
    out: dict[str, dict[str, Any]] = {}
    for mode, rows in by_mode.items():
        n = len(rows)
        out[mode] = {
            "n": n,
            "errors": int(sum(r["error"] for r in rows)),
            **{
                f"hit@{x}": clopper_pearson(int(sum(r[f"hit@{x}"] for r in rows)), n).as_dict()
                for x in (1, 5, 10)
            },
            "mrr@10": round(statistics.fmean(r["mrr@10"] for r in rows), 4),
            "coverage": round(statistics.fmean(r["coverage"] for r in rows), 4),
            "share": round(statistics.fmean(r["share"] for r in rows), 4),
            "latency_p50_ms": round(statistics.median(r["latency_ms"] for r in rows), 1),
        }
    return out
