#!/usr/bin/env python
"""Fit retrieval settings by k-fold cross-validation on the dev data, and report the folds' spread.

    .venv/bin/python scripts/fit_retrieval.py cuad \\
        --grid '{"LEGALNAV_FUSION_ALPHA": [0.3, 0.5, 0.7], "LEGALNAV_DENSE_WEIGHT": [1.0]}' \\
        --max-share 0.065
    .venv/bin/python scripts/fit_retrieval.py contractnli --grid grid.json --json
    .venv/bin/python scripts/fit_retrieval.py named --grid grid.json --max-share 0.01

Gold sets: ``cuad`` (the 40-contract dev sample), ``contractnli`` (every dev hypothesis with
evidence), ``named`` (the CUAD dev contracts as one matter, each question naming its contract).
The grid (a JSON object or file: setting -> list of values) is run in-process, every question
once per config, and the results are kept under var/evaluation/crossval so that a rerun, or a
grid that shares configs with an earlier one, answers only what is new. Folds are by document.
The logic is legalnav/evaluation/crossval.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", choices=["cuad", "contractnli", "named"])
    parser.add_argument("--grid", required=True, help="JSON object or file: setting -> values")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--objective", default="mrr@10", choices=["mrr@10", "hit@1", "hit@10"])
    parser.add_argument(
        "--max-share",
        type=float,
        default=None,
        help="choose only configs whose mean share (top-10 characters / document) is within this",
    )
    parser.add_argument("--mode", default="navembed")
    parser.add_argument(
        "--contracts", type=int, default=40, help="CUAD dev contracts (cuad, named)"
    )
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions")
    parser.add_argument("--seed", default="", help="another fold assignment (default: none)")
    parser.add_argument("--max-configs", type=int, default=64)
    parser.add_argument("--no-naive", action="store_true", help="skip the naive floor")
    parser.add_argument("--no-cache", action="store_true", help="keep results in memory only")
    parser.add_argument("--json", action="store_true", help="the whole report as JSON")
    parser.add_argument(
        "--topic-folds",
        action="store_true",
        help="contractnli: score each NDA with the topic model trained without its fold "
        "(scripts/train_topics.py contractnli --folds N --write)",
    )
    args = parser.parse_args()

    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
    import django

    django.setup()
    from django.conf import settings

    from legalnav.evaluation import crossval

    try:
        grid = crossval.parse_grid(args.grid)
        items = crossval.gold_items(args.gold, contracts=args.contracts, limit=args.limit)
        configs = crossval.expand_grid(grid, cap=args.max_configs)
        print(f"{len(configs)} configs, {len(items)} questions", file=sys.stderr)
        item_settings, label = None, ""
        if args.topic_folds:
            item_settings, label = crossval.topic_fold_settings(items, args.folds, args.seed)
        evaluator = crossval.Evaluator(
            mode=args.mode,
            item_settings=item_settings,
            item_settings_label=label,
            results_dir=None
            if args.no_cache
            else Path(settings.VAR_DIR) / "evaluation" / "crossval",
        )
        report = crossval.fit(
            items,
            grid,
            evaluator=evaluator,
            folds=args.folds,
            objective=args.objective,
            max_share=args.max_share,
            seed=args.seed,
            naive=not args.no_naive,
            max_configs=args.max_configs,
            name=args.gold,
        )
    except (crossval.CrossValError, OSError) as exc:
        parser.exit(2, f"fit_retrieval: {exc}\n")
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(crossval.format_report(report))


if __name__ == "__main__":
    main()
