"""Sentence vectors read off the passage's own pass through the embedding model.

The review grid scores each candidate sentence (a unit, evidence.py) partly by its cosine with
the column's question. Embedding every candidate alone, under its heading path, cost a
never-seen contract about 3 s of CPU on 2 cores at its first fill (41 columns, about two thirds
of its sentences), on top of embedding its passages at indexing. Here the passage's pass keeps
its token vectors, and a unit's vector is the mean of the heading path's tokens and the unit's
own tokens, each read in the context of the whole passage: free once the passage is embedded.
The passage's vector is the one ``Embedder.encode`` gives, so retrieval is unchanged.

These vectors rank a column's candidates; only the few best (fill.rescored_units) are then
embedded alone, because the unit model was fitted on, and reads best with, the units' own
vectors: on the 40 CUAD dev contracts, cross-validated, scoring every candidate with the pooled
vectors instead (refitted) lost 0.015 of typed values right and 0.03 of mean AUPR.

A passage longer than the model's window (256 tokens; about one passage in thirteen of a CUAD
contract) is cut there, as ``encode`` cuts it: the units past the cut are read in a further pass
of the rest of the passage under the same heading. A unit that cannot be placed in the
passage's text is read on its own under the heading.

A passage's unit vectors are kept as one matrix under ``pooled_key``, one row per unit of
``split_units`` in order, beside the passage vectors in the vector cache.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from legalnav.retrieval.embeddings import Embedder, TokenPass
from legalnav.retrieval.evidence import split_units
from legalnav.retrieval.passages import Passage
from legalnav.retrieval.vector_cache import passage_key

_WS = re.compile(r"\s+")
# What a unit's vector is the mean of (part of the cache key): "heading and unit", the heading
# path's tokens and its own; "unit", its own only. On 10 CUAD dev contracts x 41 columns the
# unit the model ranks best with every candidate's own vector was among the four best by these
# vectors 98% of the time either way, and the two best 91% / 89%: "heading and unit" is kept.
POOLING = "heading and unit"


def pooled_key(passage: Passage) -> bytes:
    """The vector-cache key of a passage's unit matrix: its indexed text, which fixes its units
    (their offsets inside the passage) and the heading they are read under."""
    return passage_key(f"pooled units ({POOLING})\n{passage.indexed_text}")


def passage_units(text: str, passage: Passage) -> list[tuple[int, int]]:
    """The passage's units, [start, end) in the document's ``text`` (as the grid cuts them)."""
    return split_units(text, passage.start, passage.end)


@dataclass
class _Window:
    item: int  # which passage
    text: str
    context: int  # characters of heading path at the start of ``text``
    units: list[tuple[int, int, int]] = field(default_factory=list)  # (unit, start, end) in text
    whole: bool = False  # the passage's own indexed text, whose pass gives its vector


@dataclass(frozen=True, slots=True)
class PassageVectors:
    vector: np.ndarray  # the passage's, as Embedder.encode gives it
    units: np.ndarray  # one row per unit of passage_units, in order


def embed_passages(
    embedder: Embedder, passages: Sequence[Passage], texts: Sequence[str]
) -> list[PassageVectors]:
    """Each passage's vector and its units' vectors, from one pass of each passage through the
    model (plus one of the rest of a passage longer than the model's window). ``texts[i]`` is
    the text of the document ``passages[i]`` belongs to."""
    windows: list[_Window] = []
    counts: list[int] = []
    for i, (passage, text) in enumerate(zip(passages, texts, strict=True)):
        spans = passage_units(text, passage)
        counts.append(len(spans))
        head = len(passage.context) + 1
        window = _Window(i, passage.indexed_text, len(passage.context), whole=True)
        windows.append(window)
        cursor = 0
        for u, (a, b) in enumerate(spans):
            unit = _WS.sub(" ", text[a:b]).strip()
            at = passage.text.find(unit, cursor) if unit else -1
            if at < 0:  # not in the passage's text as written (a node's own spacing): alone
                alone = _Window(i, f"{passage.context}\n{unit}", len(passage.context))
                alone.units.append((u, head, head + len(unit)))
                windows.append(alone)
                continue
            window.units.append((u, head + at, head + at + len(unit)))
            cursor = at + len(unit)
    vectors: list[np.ndarray | None] = [None] * len(passages)
    units = [np.zeros((n, embedder.dimension), dtype=np.float32) for n in counts]
    while windows:
        passes = embedder.encode_tokens([w.text for w in windows])
        rest: list[_Window] = []
        for window, tp in zip(windows, passes, strict=True):
            if window.whole:
                vectors[window.item] = tp.vector
            limit = tp.covered
            left = []
            for k, (u, a, b) in enumerate(window.units):
                if b <= limit or k == 0:  # the first unit of a window is read as far as it goes
                    units[window.item][u] = _pool(tp, window.context, a, b)
                else:
                    left.append((u, a, b))
            if left:
                cut = left[0][1]
                body = window.context + 1
                later = _Window(window.item, window.text[:body] + window.text[cut:], window.context)
                later.units = [(u, a - cut + body, b - cut + body) for u, a, b in left]
                rest.append(later)
        windows = rest
    out = []
    for v, m in zip(vectors, units, strict=True):
        assert v is not None  # every passage has its whole window
        out.append(PassageVectors(v, m))
    return out


def _pool(tp: TokenPass, context: int, start: int, end: int) -> np.ndarray:
    """The mean of the tokens inside [start, end) (and the heading path's, see POOLING), at
    unit length."""
    s, e = tp.offsets[:, 0], tp.offsets[:, 1]
    real = e > s  # special tokens cover no characters
    inside = (s < end) & (e > start)
    chosen = real & (inside | (s < context)) if POOLING == "heading and unit" else real & inside
    if not chosen.any():
        return tp.vector
    v = tp.tokens[chosen].mean(axis=0)
    norm = float(np.linalg.norm(v))
    return (v / norm).astype(np.float32) if norm else tp.vector


def unit_matrices(corpus, rows: Sequence[int], text: str) -> dict[int, np.ndarray]:  # type: ignore[no-untyped-def]
    """The unit matrix of each passage row among ``rows``, all of one document whose text is
    ``text``: kept from the passages' pass at indexing (in the vector cache, or in memory where
    there is none), else made now from one pass of those passages and kept."""
    embedder = corpus.embedder
    keys = {row: pooled_key(corpus.passage(row)) for row in rows}
    found = {row: corpus.unit_memo[k] for row, k in keys.items() if k in corpus.unit_memo}
    if corpus.cache is not None and len(found) < len(keys):
        wanted = [k for row, k in keys.items() if row not in found]
        cached = corpus.cache.passages.get_matrices(embedder.name, wanted, embedder.dimension)
        found.update({row: cached[k] for row, k in keys.items() if k in cached})
    for row in list(found):  # a matrix of another cut of the passage into units is not used
        if len(found[row]) != len(passage_units(text, corpus.passage(row))):
            del found[row]
    todo = [row for row in rows if row not in found]
    if todo:
        read = embed_passages(embedder, [corpus.passage(r) for r in todo], [text] * len(todo))
        made = {keys[row]: r.units for row, r in zip(todo, read, strict=True)}
        if corpus.cache is not None:
            corpus.cache.passages.put_many(embedder.name, made.items())
        else:
            corpus.unit_memo.update(made)
        found.update({row: r.units for row, r in zip(todo, read, strict=True)})
    return found
