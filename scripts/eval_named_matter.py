#!/usr/bin/env python
"""Document targeting in a matter, measured through the measurement door.

The dev CUAD contracts (every tenth in name order, the first ``--contracts``) form one matter,
and each clause question names its contract the way a lawyer would, from the contract's own
Document Name and Parties gold answers ("In the SUPPLY AGREEMENT between A and B: …"):

    .venv/bin/python scripts/eval_named_matter.py --contracts 40 --modes navembed
    .venv/bin/python scripts/eval_named_matter.py --single --limit 60   # one contract a question

``--single`` asks the plain questions with each contract alone (the usual CUAD run), so that the
untargeted figures can be checked not to move. The named questions are built by
``legalnav.evaluation.crossval.named_matter_items``, which scripts/fit_retrieval.py also uses.
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
    parser.add_argument("--contracts", type=int, default=40)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--modes", nargs="+", default=["navembed"])
    parser.add_argument("--single", action="store_true", help="plain questions, one contract each")
    parser.add_argument("--show", type=int, default=0, help="print this many named questions")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
    import django

    django.setup()
    from legalnav.evaluation import gold
    from legalnav.evaluation.crossval import named_matter_items
    from legalnav.evaluation.door import door_requests, run_door, score_door

    if args.single:
        items = gold._stride_sample(gold.cuad_items(contracts=args.contracts), args.limit)
    else:
        items = named_matter_items(args.contracts, args.limit)
    for item in items[: args.show]:
        print(item.question[:200], file=sys.stderr)
    responses = run_door(door_requests(items, args.modes), repo=REPO)
    scores = score_door(items, responses, args.modes)
    if args.json:
        print(json.dumps(scores, indent=2))
        return
    for mode, s in scores.items():
        print(
            f"{mode:<18} n={s['n']} err={s['errors']} R@1={s['hit@1']['rate']:.3f} "
            f"R@5={s['hit@5']['rate']:.3f} R@10={s['hit@10']['rate']:.3f} "
            f"MRR@10={s['mrr@10']:.3f} share={s['share']:.4f} p50={s['latency_p50_ms']:.0f}ms"
        )


if __name__ == "__main__":
    main()
