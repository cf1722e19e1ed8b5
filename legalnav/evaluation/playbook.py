"""Measuring playbook verdicts on the CUAD dev contracts (RETRIEVE-PROTOCOL.md, "Playbook rules").

The project's own playbook of rules (``DEV_PLAYBOOK``: eleven positions over columns of six
kinds) is put to the 40 dev contracts through the measurement door, ``manage.py extract --json``,
driven as a subprocess exactly as an outside evaluator drives it; each cell's ``verdict`` is
compared with the verdict that CUAD's normalised answer decides (``gold_verdict``, written here
from the protocol with the value readers of evaluation/values.py, never the product's).

Scored as the protocol says: verdict accuracy over every (contract, rule) pair whose right
verdict the answer decides ("review" is never right, and its share is reported apart); recall and
precision of "deviates"; per rule.

Two sets of cells can be judged:
- the door's, with the filler's constants as shipped: those were fitted on these 40 contracts
  (review/calibration.py ``FITTED_ON``), so the figures are labelled in-sample;
- the held-out cells of ``scripts/eval_extract.py --fit`` (var/evaluation/grid-fit-held.json):
  each contract filled by constants fitted on the other folds, so those figures are
  cross-validated by contract. The rules themselves are fitted on nothing: rules.py decides
  from the value, with no constant learned from these contracts.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from legalnav.evaluation.values import (
    _first_length,
    _same_length,
    _tokens,
    answer_date,
    cuad_answers,
    lengths_in,
)

MEETS, DEVIATES, MISSING, REVIEW = "meets", "deviates", "missing", "review"

# (column key, rule, severity, the firm's note): the positions of a plausible US commercial
# playbook, chosen before any verdict was seen, over six kinds of column (jurisdiction, duration,
# date, yes/no, amount, clause).
DEV_PLAYBOOK: tuple[tuple[str, dict[str, Any], str, str], ...] = (
    ("Governing Law", {"allowed": ["New York", "Delaware"]}, "high", "our courts"),
    ("Renewal Term", {"max": "1 year"}, "medium", "no long lock-in on renewal"),
    ("Notice Period To Terminate Renewal", {"min": "60 days"}, "medium", "time to walk away"),
    ("Expiration Date", {"after": "2012-01-01"}, "low", "terms still running"),
    ("Agreement Date", {"after": "2005-01-01"}, "low", "recent paper only"),
    ("Anti-Assignment", {"required": True}, "high", "we choose our counterparty"),
    ("Uncapped Liability", {"forbidden": True}, "high", "no uncapped exposure"),
    ("Cap On Liability", {"required": True}, "high", "a cap on liability"),
    ("Non-Compete", {"forbidden": True}, "medium", "keep our markets open"),
    ("License Grant", {"required": True}, "low", "rights to use what we buy"),
    ("Audit Rights", {"required": True}, "medium", "we can check the numbers"),
)


def gold_verdict(rule: Mapping[str, Any], answer: str) -> str | None:
    """The verdict CUAD's normalised answer decides for a rule, or None when it decides none (a
    yes/no rule over an answer that is not Yes or No, a date answer that is no date)."""
    ((kind, arg),) = rule.items()
    answer = answer.strip()
    if kind in ("required", "forbidden"):
        if answer not in ("Yes", "No"):
            return None
        present = answer == "Yes"
        if kind == "required":
            return MEETS if present else DEVIATES
        return DEVIATES if present else MEETS
    if not answer:
        return MISSING
    perpetual = answer.lower() == "perpetual"
    if kind == "allowed":
        place = _tokens(answer.split(";")[0].split(",")[0])
        return MEETS if any(_tokens(a) == place for a in arg) else DEVIATES
    if kind in ("min", "max"):
        if perpetual:
            return MEETS if kind == "min" else DEVIATES
        have = _first_length(answer.split(";")[0])
        limits = lengths_in(str(arg))
        if have is None or not limits:
            return None
        need = min(limits)
        if _same_length(have, need):
            return MEETS
        return MEETS if (have > need) == (kind == "min") else DEVIATES
    if kind in ("after", "before"):
        if perpetual:
            return MEETS if kind == "after" else DEVIATES
        date = answer_date(answer)
        if date is None:
            return None
        limit = str(arg)
        ok = date.isoformat() >= limit if kind == "after" else date.isoformat() <= limit
        return MEETS if ok else DEVIATES
    return None


@dataclass(slots=True)
class Judged:
    doc: str
    key: str
    gold: str
    got: str


def judge(
    answers: Mapping[tuple[str, str], str],
    verdicts: Mapping[tuple[str, str], str],
    docs: Sequence[str],
    playbook: Sequence[tuple[str, Mapping[str, Any], str, str]] = DEV_PLAYBOOK,
) -> list[Judged]:
    """Every (contract, rule) pair whose answer decides a verdict; a cell the door did not
    return counts as "review" (not decided, never right)."""
    out = []
    for doc in docs:
        for key, rule, _, _ in playbook:
            if (doc, key) not in answers:
                continue
            gold = gold_verdict(rule, answers[(doc, key)])
            if gold is None:
                continue
            out.append(Judged(doc, key, gold, verdicts.get((doc, key), REVIEW)))
    return out


def _pr(judged: Sequence[Judged]) -> dict[str, float]:
    tp = sum(j.gold == DEVIATES and j.got == DEVIATES for j in judged)
    fp = sum(j.gold != DEVIATES and j.got == DEVIATES for j in judged)
    fn = sum(j.gold == DEVIATES and j.got != DEVIATES for j in judged)
    n = len(judged)
    return {
        "pairs": n,
        "accuracy": sum(j.gold == j.got for j in judged) / n if n else float("nan"),
        "deviates_gold": tp + fn,
        "deviates_recall": tp / (tp + fn) if tp + fn else float("nan"),
        "deviates_precision": tp / (tp + fp) if tp + fp else float("nan"),
        "review_share": sum(j.got == REVIEW for j in judged) / n if n else float("nan"),
    }


def figures(judged: Sequence[Judged]) -> dict[str, Any]:
    by_key: dict[str, list[Judged]] = defaultdict(list)
    for j in judged:
        by_key[j.key].append(j)
    confusion: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for j in judged:
        confusion[j.gold][j.got] += 1
    return {
        **_pr(judged),
        "per_rule": {k: _pr(v) for k, v in by_key.items()},
        "confusion": {g: dict(v) for g, v in confusion.items()},
        "wrong": [
            {"doc": j.doc, "key": j.key, "gold": j.gold, "got": j.got}
            for j in judged
            if j.gold != j.got
        ],
    }


def door_columns(playbook=DEV_PLAYBOOK) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    from legalnav.review.columns import preset_column

    out = []
    for key, rule, _, _ in playbook:
        column = preset_column(key)
        assert column is not None, key
        out.append({"key": key, "question": column.question, "type": column.type, "rule": rule})
    return out


def run_door(
    names: Sequence[str], data: Path, repo: Path
) -> tuple[dict[tuple[str, str], str], float, int]:
    """Drive ``manage.py extract --json`` with the playbook's columns over the contracts: the
    verdicts by (contract, column key), the wall time, and the lines that failed."""
    from legalnav.evaluation import door

    columns = door_columns()
    requests = [
        {
            "id": f"dev:cuad:{name}",
            "document": str(data / "cuad" / "contracts" / name),
            "columns": columns,
            "mode": "offline",
        }
        for name in names
    ]
    started = time.perf_counter()
    responses = door.run_door(requests, repo=repo, env=dict(os.environ), command="extract")
    wall = time.perf_counter() - started
    verdicts: dict[tuple[str, str], str] = {}
    errors = 0
    for response in responses:
        errors += bool(response.get("error"))
        doc = str(response["id"]).removeprefix("dev:cuad:")
        for cell in response.get("cells", []):
            if "verdict" in cell:
                verdicts[(doc, str(cell["key"]))] = str(cell["verdict"])
    return verdicts, wall, errors


def held_verdicts(path: Path) -> dict[tuple[str, str], str]:
    """Verdicts of the held-out cells that ``scripts/eval_extract.py --fit`` wrote (each
    contract filled by constants fitted on the other folds), decided by the product's rules from
    the value the cell shows, as the grid decides them for a corrected cell."""
    from legalnav.review.columns import preset_column
    from legalnav.review.rules import CellFacts, decide, parse_rule

    rules = {}
    for key, rule, _, _ in DEV_PLAYBOOK:
        column = preset_column(key)
        assert column is not None
        rules[key] = (column.type, parse_rule(rule, column.type))
    out: dict[tuple[str, str], str] = {}
    for cell in json.loads(path.read_text(encoding="utf-8")):
        if cell["key"] not in rules:
            continue
        type_, rule = rules[cell["key"]]
        facts = CellFacts(type_, str(cell["value"]), bool(cell["spans"]))
        out[(cell["doc"], cell["key"])] = decide(rule, facts, column=cell["key"]).verdict
    return out


def dev_answers(data: Path, names: Sequence[str]) -> dict[tuple[str, str], str]:
    rows = [
        json.loads(x) for x in (data / "cuad" / "spans.jsonl").open(encoding="utf-8") if x.strip()
    ]
    return cuad_answers(rows, set(names))


def dev_names(data: Path, n: int = 40) -> list[str]:
    """The CUAD dev contracts: the stride sample (every tenth in name order), the first ``n``,
    as the grid's other dev figures take them (evaluation.gold.cuad_items)."""
    from legalnav.evaluation.splits import cuad_dev, cuad_names

    return cuad_dev(cuad_names(data), n)


def table(label: str, f: Mapping[str, Any]) -> str:
    def num(x: float) -> str:
        return "  n/a" if x != x else f"{x:.3f}"

    lines = [
        f"{label}",
        f"  pairs {f['pairs']}, verdict accuracy {num(f['accuracy'])}, deviates recall "
        f"{num(f['deviates_recall'])} precision {num(f['deviates_precision'])} "
        f"({f['deviates_gold']} deviate in gold), review share {num(f['review_share'])}",
        f"  {'rule':<38} {'pairs':>5} {'acc':>6} {'dev':>4} {'recall':>7} {'prec':>6} {'review':>7}",
    ]
    for key, rule, _, _ in DEV_PLAYBOOK:
        r = f["per_rule"].get(key)
        if r is None:
            continue
        ((kind, arg),) = rule.items()
        name = f"{key} {kind}" + ("" if arg is True else f" {arg}")
        lines.append(
            f"  {name[:38]:<38} {r['pairs']:>5} {num(r['accuracy']):>6} {r['deviates_gold']:>4} "
            f"{num(r['deviates_recall']):>7} {num(r['deviates_precision']):>6} "
            f"{num(r['review_share']):>7}"
        )
    return "\n".join(lines)
