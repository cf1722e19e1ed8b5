#!/usr/bin/env python
"""Measure retrieval through the measurement door (``manage.py retrieve --json``) on the dev data.

    .venv/bin/python scripts/eval_retrieval.py cuad --contracts 40 --modes navembed navembed:bm25 navindex
    .venv/bin/python scripts/eval_retrieval.py contractnli --limit 300 --modes navembed navembed:bm25

A thin wrapper: the gold sets, metrics and statistics live in legalnav.evaluation (gold.py,
door.py, metrics.py, stats.py). ``manage.py evaluate`` runs the same gold sets in-process,
stores the run and adds answers, the judge and the naive floor; this script checks the door
itself from outside.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset", choices=["cuad", "contractnli", "qa"])
    parser.add_argument("--contracts", type=int, default=40)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument(
        "--modes", nargs="+", default=["navembed", "navembed:bm25", "navembed:dense", "navindex"]
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
    import django

    django.setup()
    from legalnav.evaluation import gold
    from legalnav.evaluation.door import door_requests, run_door, score_door

    items = gold.load(args.dataset, contracts=args.contracts, limit=args.limit)
    responses = run_door(door_requests(items, args.modes), repo=REPO)
    scores = score_door(items, responses, args.modes)
    if args.json:
        print(json.dumps(scores, indent=2))
        return
    print(
        f"{'mode':<22}{'n':>5}{'err':>5}{'R@1':>20}{'R@5':>20}{'R@10':>20}{'MRR@10':>8}{'cover':>7}{'share':>7}{'p50 ms':>8}"
    )
    for mode, s in scores.items():
        cells = "".join(
            f"{s[k]['rate']:>7.3f} [{s[k]['low']:.2f},{s[k]['high']:.2f}]"
            for k in ("hit@1", "hit@5", "hit@10")
        )
        print(
            f"{mode:<22}{s['n']:>5}{s['errors']:>5}{cells}{s['mrr@10']:>8.3f}{s['coverage']:>7.3f}"
            f"{s['share']:>7.3f}{s['latency_p50_ms']:>8.0f}"
        )


if __name__ == "__main__":
    main()
