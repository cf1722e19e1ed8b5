#!/usr/bin/env python
"""Measure the review grid's offline cell filler on the CUAD dev contracts, from outside.

    .venv/bin/python scripts/eval_extract.py --contracts 40            # through the door
    .venv/bin/python scripts/eval_extract.py --contracts 40 --fit      # refit fill.py's constants

Default: drives ``manage.py extract --json`` as a subprocess (one batch, one request per
contract with the 41 CUAD preset columns), as an outside evaluator would, and prints per category
and overall the AUPR of cells ranked by confidence, precision at 80% recall, and cell precision,
recall and accuracy, beside the CUAD paper's best model, with the wall time.

``--fit`` runs the filler in-process instead: it computes every candidate unit's features once,
fits the unit and cell models and the "not found" threshold by 5-fold cross-validation by
contract, prints the held-out figures (what the constants can be expected to do on contracts they
were not fitted on), and prints the constants fitted on all the contracts, to paste into fill.py.

The dev contracts are CUAD's stride sample (every tenth contract in name order, as
legalnav.evaluation.gold.cuad_items takes them); no other contract is read.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# The CUAD paper (Hendrycks et al. 2021), Table 2: DeBERTa-xlarge, the best model.
PAPER = {"aupr": 0.478, "p@80r": 0.440}


def dev_contracts(
    data: Path, n: int
) -> tuple[list[str], dict[tuple[str, str], list[tuple[int, int]]], set[tuple[str, str]]]:
    """(contract names, located gold spans by (contract, category), (contract, category) pairs
    whose gold answer could not be located in the text, left out of the scores)."""
    rows = [
        json.loads(x) for x in (data / "cuad" / "spans.jsonl").open(encoding="utf-8") if x.strip()
    ]
    from legalnav.evaluation.splits import cuad_dev

    names = cuad_dev(sorted({r["doc"] for r in rows}), n)
    wanted = set(names)
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    unlocated: set[tuple[str, str]] = set()
    for r in rows:
        if r["doc"] not in wanted:
            continue
        located = [(s["start"], s["end"]) for s in r["spans"] if s.get("start") is not None]
        if located:
            spans[(r["doc"], r["category"])] = located
        elif r["spans"]:  # gold text CUAD has but the .txt could not place
            unlocated.add((r["doc"], r["category"]))
    return names, spans, unlocated


def columns_for(questions: str) -> list[dict[str, str]]:
    from legalnav.review.columns import CUAD_COLUMNS

    if questions == "cuad":
        from legalnav.evaluation.gold import _CUAD_ALIASES, cuad_descriptions

        desc = cuad_descriptions()
        return [
            {
                "key": c.key,
                "question": desc.get(_CUAD_ALIASES.get(c.key.lower(), c.key.lower()), c.question),
                "type": c.type,
            }
            for c in CUAD_COLUMNS
        ]
    return [{"key": c.key, "question": c.question, "type": c.type} for c in CUAD_COLUMNS]


def judge_cells(names, spans, unlocated, cells_by_doc):  # type: ignore[no-untyped-def]
    """{category: [Judged]} from {contract: [cell dicts]}; a missing cell is a silent 'not found'."""
    from legalnav.review.columns import CUAD_COLUMNS
    from legalnav.review.scoring import Judged, overlaps

    out: dict[str, list[Judged]] = defaultdict(list)
    for name in names:
        cells = {c["key"]: c for c in cells_by_doc.get(name, [])}
        for column in CUAD_COLUMNS:
            if (name, column.key) in unlocated:
                continue
            gold = spans.get((name, column.key), [])
            cell = cells.get(column.key, {"spans": [], "confidence": 0.0})
            quoted = [(int(s["start"]), int(s["end"])) for s in cell["spans"]]
            out[column.key].append(
                Judged(float(cell["confidence"]), bool(quoted), overlaps(quoted, gold), bool(gold))
            )
    return out


def report(judged, *, title: str, as_json: bool) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    from legalnav.review.scoring import aupr, cell_figures, precision_at_recall

    table: dict[str, dict[str, float]] = {}
    pooled = []
    for key, cells in judged.items():
        pooled.extend(cells)
        table[key] = {
            "gold": sum(c.has_gold for c in cells),
            "aupr": aupr(cells),
            "p@80r": precision_at_recall(cells),
            **cell_figures(cells),
        }
    scored = [v for v in table.values() if not math.isnan(v["aupr"])]
    overall = {
        "aupr_mean": sum(v["aupr"] for v in scored) / len(scored),
        "p@80r_mean": sum(v["p@80r"] for v in scored) / len(scored),
        "aupr_pooled": aupr(pooled),
        "p@80r_pooled": precision_at_recall(pooled),
        **cell_figures(pooled),
    }
    if as_json:
        return {"categories": table, "overall": overall}
    print(f"\n{title}")
    print(f"{'category':<38}{'gold':>5}{'AUPR':>7}{'P@80R':>7}{'prec':>7}{'recall':>7}{'acc':>7}")
    for key, v in sorted(
        table.items(), key=lambda kv: -(kv[1]["aupr"] if not math.isnan(kv[1]["aupr"]) else -1)
    ):
        print(
            f"{key:<38}{v['gold']:>5.0f}{v['aupr']:>7.3f}{v['p@80r']:>7.3f}{v['precision']:>7.3f}"
            f"{v['recall']:>7.3f}{v['accuracy']:>7.3f}"
        )
    print(
        f"{'overall (mean of categories)':<38}{'':>5}{overall['aupr_mean']:>7.3f}"
        f"{overall['p@80r_mean']:>7.3f}"
    )
    print(
        f"{'overall (all cells pooled)':<38}{sum(v['gold'] for v in table.values()):>5.0f}"
        f"{overall['aupr_pooled']:>7.3f}{overall['p@80r_pooled']:>7.3f}{overall['precision']:>7.3f}"
        f"{overall['recall']:>7.3f}{overall['accuracy']:>7.3f}"
    )
    print(f"{'CUAD paper, DeBERTa-xlarge':<38}{'':>5}{PAPER['aupr']:>7.3f}{PAPER['p@80r']:>7.3f}")
    return {"categories": table, "overall": overall}


def report_values(data: Path, names: list[str], by_doc, *, as_json: bool) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The value-level figures (RETRIEVE-PROTOCOL.md, "How values are scored")."""
    from legalnav.evaluation.values import cuad_answers, judge_cells, value_figures

    rows = [
        json.loads(x) for x in (data / "cuad" / "spans.jsonl").open(encoding="utf-8") if x.strip()
    ]
    judged = judge_cells(cuad_answers(rows, set(names)), by_doc, names)
    figures = value_figures(judged)
    if not as_json:
        print("\nvalues against CUAD's normalised answers")
        for key in ("typed_right", "dates_right", "parties_right", "durations_right",
                    "jurisdiction_right", "yes_no_accuracy", "yes_no_all_no_accuracy",
                    "yes_f1_pooled", "yes_f1_mean"):  # fmt: skip
            print(f"  {key:<28}{figures.get(key, float('nan')):.3f}")
        print(f"  per typed column: {figures['per_key']}")
        print(f"  yes F1 per column: {figures['yes_f1_per_key']}")
    return figures


def run_door(
    names: list[str], data: Path, columns: list[dict[str, str]], cache: str | None
) -> tuple[dict[str, list[dict]], float, int]:
    lines = [
        json.dumps(
            {
                "id": f"dev:cuad:{name}",
                "document": str(data / "cuad" / "contracts" / name),
                "columns": columns,
                "mode": "offline",
            }
        )
        for name in names
    ]
    env = dict(os.environ)
    if cache:
        env["LEGALNAV_RETRIEVE_CACHE"] = cache
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "manage.py", "extract", "--json"],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"the extract door failed ({proc.returncode}): {proc.stderr[-2000:]}")
    responses = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
    errors = [r for r in responses if r.get("error")]
    for r in errors:
        print(f"error: {r['id']}: {r['error']}", file=sys.stderr)
    by_doc = {str(r["id"]).removeprefix("dev:cuad:"): r.get("cells", []) for r in responses}
    return by_doc, wall, len(errors)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--contracts", type=int, default=40)
    parser.add_argument("--questions", choices=["preset", "cuad"], default="preset")
    parser.add_argument("--fit", action="store_true", help="refit fill.py's constants in-process")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--write", action="store_true", help="with --fit: write legalnav/review/calibration.py"
    )
    parser.add_argument("--cache", default=None, help="index cache folder (default the door's)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--save", default=None, help="write the door's cells to this JSON file")
    args = parser.parse_args()

    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
    import django

    django.setup()
    from django.conf import settings

    data = Path(settings.DATA_DIR)
    names, spans, unlocated = dev_contracts(data, args.contracts)
    columns = columns_for(args.questions)
    if args.fit:
        from legalnav.evaluation import grid_fit

        grid_fit.main(
            names,
            data,
            spans,
            unlocated,
            columns,
            folds=args.folds,
            cache=args.cache,
            write=args.write,
        )
        return
    by_doc, wall, errors = run_door(names, data, columns, args.cache)
    if args.save:
        Path(args.save).write_text(json.dumps(by_doc), encoding="utf-8")
    judged = judge_cells(names, spans, unlocated, by_doc)
    title = (
        f"extract --json on {len(names)} CUAD dev contracts x {len(columns)} columns "
        f"({args.questions} questions); {errors} error lines; {len(unlocated)} cells left out "
        f"(gold answer not located); wall {wall:.1f} s, {wall / max(len(names), 1):.1f} s per "
        "contract (indexing included where the cache lacked it)"
    )
    from legalnav.review.calibration import FITTED_ON

    seen = len(set(names) & set(FITTED_ON))
    label = (
        f"IN-SAMPLE: the filler's constants were fitted on {seen} of these {len(names)} contracts "
        "(scripts/eval_extract.py --fit prints the cross-validated figures)"
        if seen
        else "blind: none of these contracts was used to fit the filler's constants"
    )
    title = f"{title}\n{label}"
    result = report(judged, title=title, as_json=args.json)
    result["label"] = label
    result["values"] = report_values(data, names, by_doc, as_json=args.json)
    if args.json:
        result["wall_s"] = wall
        result["contracts"] = len(names)
        print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
