"""The document-level vote on a CUAD yes/no column: does this contract have such a clause at all?

One number decided it before: the best passage probability of the column's own clause-topic
model. A contract says more than its best passage. Its other clauses tell what kind of contract it
is: a licence agreement nearly always grants a licence, and a distribution agreement often has
exclusivity. A rare clause that the topic models have too few examples of still has its wording
(most favoured nation, price restrictions, unlimited licence). So, per column, a small logistic
model reads:

- the logit of the best passage probability of every clause-topic model it was fitted with;
- the logit of the document's best unit probability under the column's sentence-level clause
  model (``unitclauses``), for a model fitted with one (``units``);
- ``log(1 + n)`` and ``n > 0``, where n is how many of the document's passages match the column's
  wording cues (``columns.py``);
- whether any passage has the column's operative wording (``operative_cues``: a provision that
  does what the column asks), for a model fitted with it (``operative``).

It was fitted by ``scripts/fit_yes_docs.py`` on the 368 CUAD contracts outside the dev sample.
Out of fold topic scores were used, so no topic model scored a contract it was trained on. The
penalty and threshold come from cross-validation by contract within those 368. A column gets a
model only where that beat the single threshold. The models live in ``topic_thresholds.json``
(``doc_models``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class DocModel:
    key: str
    topics: tuple[str, ...]  # the clause-topic models whose best passage it reads, in order
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float
    units: bool = False  # reads the column's unit model's best unit too
    operative: bool = False  # reads whether any passage has the column's operative wording

    @classmethod
    def of(cls, key: str, data: dict[str, object]) -> DocModel:
        def vec(name: str) -> np.ndarray:
            return np.asarray(data[name], dtype=np.float64)

        model = cls(
            key,
            tuple(str(t) for t in data["topics"]),  # type: ignore[attr-defined]
            vec("mean"),
            vec("scale"),
            vec("coef"),
            float(data["intercept"]),  # type: ignore[arg-type]
            float(data["threshold"]),  # type: ignore[arg-type]
            bool(data.get("units", False)),
            bool(data.get("operative", False)),
        )
        width = len(model.topics) + int(model.units) + 2 + int(model.operative)
        if not (model.mean.size == model.scale.size == model.coef.size == width):
            raise ValueError(
                f"document model for {key!r} has {model.coef.size} weights, not {width}"
            )
        return model

    def probability(self, x: Sequence[float]) -> float:
        z = float(((np.asarray(x, dtype=np.float64) - self.mean) / self.scale) @ self.coef)
        return 1.0 / (1.0 + math.exp(-(z + self.intercept)))


def clipped_logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def cue_count(passages: Sequence[str], patterns: Sequence[re.Pattern[str]]) -> int:
    """How many passages match any of the column's cue patterns."""
    return sum(1 for text in passages if any(rx.search(text) for rx in patterns))


def has_cue(passages: Sequence[str], patterns: Sequence[re.Pattern[str]]) -> bool:
    """Whether any passage matches any of the patterns (stops at the first that does)."""
    return any(rx.search(text) for text in passages for rx in patterns)


def cue_features(n: int) -> list[float]:
    """``[log(1 + n), n > 0]`` for ``n`` passages using the column's wording."""
    return [math.log1p(n), float(n > 0)]


def features(
    best_of: Callable[[str], float | None],
    topics: Sequence[str],
    passages: Sequence[str],
    patterns: Sequence[re.Pattern[str]],
    best_unit: float | None = None,
    operative: Sequence[re.Pattern[str]] | None = None,
) -> list[float] | None:
    """The model's input for one document: ``best_of(topic key)`` is the document's best passage
    probability under that topic's model (None when that model is missing: then there is no
    input, and the column falls back to its single threshold); ``best_unit`` its best unit's
    probability under the column's unit model, for a model that reads one; ``operative`` the
    column's operative wording, for a model that reads it."""
    has = None if operative is None else has_cue(passages, operative)
    return document_input(best_of, topics, cue_count(passages, patterns), best_unit, has)


def document_input(
    best_of: Callable[[str], float | None],
    topics: Sequence[str],
    cued: int,
    best_unit: float | None = None,
    operative: bool | None = None,
) -> list[float] | None:
    """``features`` for a document whose cue count ``cued`` (and, for a model that reads it,
    whether it has operative wording) is already known."""
    out = []
    for key in topics:
        p = best_of(key)
        if p is None:
            return None
        out.append(clipped_logit(p))
    if best_unit is not None:
        out.append(clipped_logit(best_unit))
    return out + cue_features(cued) + ([] if operative is None else [float(operative)])
