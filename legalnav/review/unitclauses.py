"""Sentence-level clause models: does one of a document's units read as a CUAD clause category?

The clause-topic models (``retrieval.topics``) score whole passages. A unit model scores the
grid's own units (``evidence.split_units``: sentence-sized pieces of a passage), each read under
its passage's heading path, with the same features (words and word pairs) and the same kind of
model. Fitted by ``scripts/fit_yes_units.py`` on the 368 CUAD contracts outside the dev sample;
a document's best unit probability is one input of its column's document model (``docvote``).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from legalnav.retrieval.topics import Topic

UNIT_MODELS_FILE = Path(__file__).resolve().parent / "unit_models.json"


def unit_model_text(context: str, text: str) -> str:
    """What a unit model reads: the passage's heading path, then the unit's words."""
    return f"{context}\n{' '.join(text.split())}"


@functools.cache
def unit_models() -> dict[str, Topic]:
    """The shipped unit model of each yes/no column that has one (none when the file is absent)."""
    try:
        data = json.loads(UNIT_MODELS_FILE.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return {
        str(k): Topic(
            str(k), "", float(v["intercept"]), {str(f): float(w) for f, w in v["weights"].items()}
        )
        for k, v in data.get("models", {}).items()
    }
