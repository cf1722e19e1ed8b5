#!/usr/bin/env python
"""Measure retrieval through the measurement door on the dev data in ../shared/data.

    .venv/bin/python scripts/eval_retrieval.py cuad --contracts 40 --modes navembed navembed:bm25 navembed:dense navindex
    .venv/bin/python scripts/eval_retrieval.py contractnli --modes navembed navembed:bm25

Builds protocol requests (CUAD: every (contract, category) with a located gold span, the question
being the category's description from CUAD's README, over a deterministic sample of every tenth
contract; ContractNLI: every hypothesis with evidence spans), runs `manage.py retrieve --json`, and
prints recall@1/5/10, MRR@10 (a hit is a returned range overlapping a gold span) and the share of
the document returned. The full evaluation harness (intervals, judged runs) is later work.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def cuad_requests(
    contracts: int, modes: list[str]
) -> tuple[list[dict], dict[str, list[tuple[int, int]]]]:
    readme = (DATA / "cuad" / "CUAD_v1_README.txt").read_text()
    desc = {
        m.group(1).strip(): m.group(2).strip()
        for m in re.finditer(r"Category:\s*(.+?)\n\s*Description:\s*(.+?)\n", readme)
    }
    rows = [json.loads(line) for line in (DATA / "cuad" / "spans.jsonl").open()]
    sample = set(sorted({r["doc"] for r in rows})[::10][:contracts])
    requests, gold = [], {}
    for r in rows:
        spans = [(s["start"], s["end"]) for s in r["spans"] if s.get("start") is not None]
        if r["doc"] not in sample or not spans or r["category"] not in desc:
            continue
        rid = f"dev:cuad:{r['doc']}:{r['category']}"
        gold[rid] = spans
        for mode in modes:
            requests.append(
                {
                    "id": f"{rid}|{mode}",
                    "documents": [str(DATA / "cuad" / "contracts" / r["doc"])],
                    "question": f"{r['category']}: {desc[r['category']]}",
                    "mode": mode,
                    "k": 10,
                    "unit": "span",
                }
            )
    return requests, gold


def contractnli_requests(
    modes: list[str], folder: Path
) -> tuple[list[dict], dict[str, list[tuple[int, int]]]]:
    dev = json.loads((DATA / "contractnli" / "dev.json").read_text())
    paths = {}
    for doc in dev["documents"]:
        path = folder / f"{doc['id']}.txt"
        with path.open("w", encoding="utf-8", newline="") as fh:
            fh.write(doc["text"])
        paths[doc["id"]] = str(path)
    requests, gold = [], {}
    for line in (DATA / "contractnli" / "dev_flat.jsonl").open():
        r = json.loads(line)
        if not r["evidence_char_spans"]:
            continue
        rid = f"dev:cnli:{r['doc_id']}:{r['hypothesis_id']}"
        gold[rid] = [tuple(s) for s in r["evidence_char_spans"]]
        for mode in modes:
            requests.append(
                {
                    "id": f"{rid}|{mode}",
                    "documents": [paths[r["doc_id"]]],
                    "question": r["hypothesis"],
                    "mode": mode,
                    "k": 10,
                    "unit": "span",
                }
            )
    return requests, gold


def score(responses: list[dict], gold: dict[str, list[tuple[int, int]]]) -> None:
    by_mode: dict[str, list[dict]] = defaultdict(list)
    for r in responses:
        rid, mode = r["id"].rsplit("|", 1)
        r["_gold"] = gold[rid]
        by_mode[mode].append(r)
    lengths: dict[str, int] = {}
    print(
        f"{'mode':<22}{'n':>5}{'err':>5}{'R@1':>7}{'R@5':>7}{'R@10':>7}{'MRR@10':>8}{'returned':>10}{'p50 ms':>8}"
    )
    for mode, items in by_mode.items():
        hits = {1: 0, 5: 0, 10: 0}
        mrr, errors, share, latency = 0.0, 0, [], []
        for r in items:
            if r.get("error"):
                errors += 1
                continue
            latency.append(r["latency_ms"])
            if r["results"]:
                path = r["results"][0]["path"]
                length = lengths.setdefault(path, len(Path(path).read_bytes().decode("utf-8")))
                share.append(sum(x["end"] - x["start"] for x in r["results"][:10]) / length)
            rank = next(
                (
                    i
                    for i, x in enumerate(r["results"][:10])
                    if any(x["start"] < e and s < x["end"] for s, e in r["_gold"])
                ),
                None,
            )
            if rank is not None:
                mrr += 1 / (rank + 1)
                for k in hits:
                    hits[k] += rank < k
        n = len(items)
        print(
            f"{mode:<22}{n:>5}{errors:>5}{hits[1] / n:>7.3f}{hits[5] / n:>7.3f}{hits[10] / n:>7.3f}{mrr / n:>8.3f}"
            f"{statistics.mean(share) if share else 0:>10.3f}{statistics.median(latency) if latency else 0:>8.0f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset", choices=["cuad", "contractnli"])
    parser.add_argument("--contracts", type=int, default=40)
    parser.add_argument(
        "--modes", nargs="+", default=["navembed", "navembed:bm25", "navembed:dense", "navindex"]
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.dataset == "cuad":
            requests, gold = cuad_requests(args.contracts, args.modes)
        else:
            requests, gold = contractnli_requests(args.modes, Path(tmp))
        payload = "".join(json.dumps(r) + "\n" for r in requests)
        proc = subprocess.run(
            [sys.executable, "manage.py", "retrieve", "--json"],
            input=payload,
            text=True,
            capture_output=True,
            cwd=REPO,
            check=True,
        )
        score([json.loads(line) for line in proc.stdout.splitlines()], gold)


if __name__ == "__main__":
    main()
