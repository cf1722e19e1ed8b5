"""Every dev/train split of the public data, in one place, and which fitted files saw what.

CUAD: the **dev** contracts are the stride sample, every tenth contract in name order, the first
40 (the data README's sample). The other 368 are **train**: the clause-topic models, the yes/no
votes and the document models are fitted on them. The grid's own constants
(``review/calibration.py``) are fitted on the 40 dev contracts, so the grid's dev figures through
the door are in-sample. ``scripts/eval_extract.py --fit`` gives the cross-validated ones. Asking
for more than 40 dev contracts is an error here, because the 41st would be a training contract.

``fitted_files()`` lists each fitted file with the ids it was fitted on, read from the file
itself. ``in_sample(ids)`` names the files that saw any of the ids an evaluation scores. An
evaluation that gets a non-empty answer marks its figures in-sample.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

CUAD_DEV_SIZE = 40
_ROOT = Path(__file__).resolve().parents[1]


def cuad_names(data: Path) -> list[str]:
    """Every CUAD contract of the data folder, in name order."""
    return sorted(
        {
            json.loads(line)["doc"]
            for line in (data / "cuad" / "spans.jsonl").open(encoding="utf-8")
            if line.strip()
        }
    )


def cuad_dev(names: list[str], n: int = CUAD_DEV_SIZE) -> list[str]:
    """The first ``n`` CUAD dev contracts (``names`` in name order, as ``cuad_names`` gives)."""
    if n > CUAD_DEV_SIZE:
        raise ValueError(
            f"there are {CUAD_DEV_SIZE} CUAD dev contracts; a {n}th would be one the topic "
            "models were trained on"
        )
    return names[::10][:CUAD_DEV_SIZE][:n]


def cuad_train(names: list[str]) -> list[str]:
    """The CUAD contracts outside the dev sample, in name order."""
    dev = set(cuad_dev(names))
    return [n for n in names if n not in dev]


def fitted_files() -> dict[str, set[str]]:
    """Each fitted file the product ships (path relative to ``legalnav/``) and the ids of the
    documents it was fitted on, as the file records them."""
    from legalnav.review import calibration

    out: dict[str, set[str]] = {}
    for path in sorted((_ROOT / "retrieval" / "topic_models").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out[str(path.relative_to(_ROOT))] = set(data.get("trained_ids", ()))
    for votes in (
        _ROOT / "review" / "topic_thresholds.json",
        _ROOT / "review" / "unit_models.json",
    ):
        if votes.exists():
            out[str(votes.relative_to(_ROOT))] = set(
                json.loads(votes.read_text(encoding="utf-8")).get("fitted_ids", ())
            )
    out["review/calibration.py"] = set(calibration.FITTED_ON)
    return out


def in_sample(ids: Iterable[str], *, among: str = "") -> dict[str, int]:
    """The fitted files that saw any of ``ids`` (document file names), with how many of them
    each saw; ``among`` keeps only the files whose path starts with it (the ones an evaluation
    uses: ``"retrieval/topic_models/"`` for a retrieval run)."""
    wanted = {Path(i).name for i in ids}
    seen = {
        name: len(wanted & {Path(i).name for i in fitted})
        for name, fitted in fitted_files().items()
        if name.startswith(among)
    }
    return {name: n for name, n in seen.items() if n}


def scored_documents(item_ids: Iterable[str]) -> set[str]:
    """The document file names a gold set's item ids name (``cuad:<file>:<category>``,
    ``cnli:<id>:<hypothesis>``); the judgment sets name queries, not documents."""
    out = set()
    for item in item_ids:
        kind, _, rest = item.partition(":")
        doc = rest.rpartition(":")[0]
        if kind == "cuad" and doc:
            out.add(doc)
        elif kind == "cnli" and doc:
            out.add(f"{doc}.txt")
    return out
