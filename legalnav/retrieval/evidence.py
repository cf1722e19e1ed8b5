"""The second stage of navembed: evidence-sized ranges inside the best passages.

The first stage ranks passages (whole clauses, or pieces of about 900 characters of a long one).
A clause question is answered by a sentence or a sub-clause of them, so ten whole passages send
several times the evidence. This stage keeps the first stage's order (ranking sentences on their
own was measured worse: in ContractNLI the top passage's best sentence misses the evidence that
the passage holds one time in eight) and cuts each passage to the run of units (sentences, list
items, sub-clauses) that score near its best, and stops before k when the passages' scores fall
away. On the dev data this sends about half the text of ten whole passages for a few points of
recall (see scripts/fit_retrieval.py for the cross-validated figures).

The answering model still sees each range under its clause heading, and the definitions the
clause uses: ``payload_chars`` counts them (see ``Retriever.evidence``).

Parameters are settings (``LEGALNAV_EVIDENCE_*``), chosen by cross-validation on the dev data
(``scripts/fit_retrieval.py``), not by hand.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from legalnav.retrieval.bm25 import tokenize
from legalnav.retrieval.vector_cache import passage_key

# Unit boundaries: a blank line, a line opening an enumerated item ("(a)", "(ii)", "1.", "•"), a
# sentence end, or a semicolon closing an item of a list ("...; and (b) ...").
_UNIT_CUT = re.compile(
    r"\n[ \t\u00a0]*\n"
    r"|\n(?=[ \t\u00a0]*(?:\([a-zA-Z0-9]{1,4}\)|[a-zA-Z0-9]{1,3}[.)]\s|[•·\-–]\s))"
    r"|(?<=[.!?])[\"”’)]?\s+(?=[A-Z(“\"])"
    r"|(?<=;)\s+(?=(?:and\s+|or\s+)?\(?[a-zA-Z0-9]{1,4}\)\s)"
)
UNIT_MIN = 30  # a shorter piece joins its neighbour (a heading, "(a)", "Section 2.")
UNIT_MAX = 700  # a longer one is cut at a space near its middle (rare: unpunctuated text)


@dataclass(slots=True)
class Unit:
    row: int  # the corpus passage row it lies in
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class EvidenceParams:
    cutoff: float  # a passage scoring below this share of the best one is not returned ...
    keep: int  # ... unless it is among the first ``keep``
    trim: float  # inside a passage, keep the units scoring at least this share of its best
    lexical_share: float  # BM25's share in a unit's score (the rest is its cosine)

    @classmethod
    def from_settings(cls) -> EvidenceParams:
        return cls(
            cutoff=float(settings.LEGALNAV_EVIDENCE_CUTOFF),
            keep=int(settings.LEGALNAV_EVIDENCE_KEEP),
            trim=float(settings.LEGALNAV_EVIDENCE_TRIM),
            lexical_share=float(settings.LEGALNAV_EVIDENCE_LEXICAL_SHARE),
        )


def split_units(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """[start, end) of ``text`` cut into sentence-sized units, whitespace trimmed, each at least
    UNIT_MIN characters where the passage allows (short pieces join the piece before)."""
    cuts = [start]
    for m in _UNIT_CUT.finditer(text, start, end):
        cuts.append(m.start())
        cuts.append(m.end())
    cuts.append(end)
    pieces: list[list[int]] = []
    for a, b in zip(cuts[::2], cuts[1::2], strict=True):
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b <= a:
            continue
        if pieces and (b - a < UNIT_MIN or pieces[-1][1] - pieces[-1][0] < UNIT_MIN):
            pieces[-1][1] = b  # a short piece (or one after a short heading) joins the last
        else:
            pieces.append([a, b])
    out: list[tuple[int, int]] = []
    for a, b in pieces:
        while b - a > UNIT_MAX:
            cut = text.rfind(" ", a + UNIT_MAX // 2, a + UNIT_MAX)
            cut = cut if cut > a else a + UNIT_MAX
            out.append((a, cut))
            a = cut + 1
        out.append((a, b))
    return out


_WS = re.compile(r"\s+")


def units_of(corpus, rows: list[int]) -> list[Unit]:  # type: ignore[no-untyped-def]
    """The units of the given passage rows, in row order, with their document offsets."""
    out = []
    for row in rows:
        d, p = corpus.owner[row]
        doc, passage = corpus.docs[d], corpus.passage(row)
        text = _source_text(corpus, d)
        if text is None:  # no source text at hand: the passage is one unit
            out.append(Unit(row, passage.start, passage.end, passage.text))
            continue
        for a, b in split_units(text, passage.start, passage.end):
            out.append(Unit(row, a, b, _WS.sub(" ", text[a:b]).strip()))
        del doc
    return out


def _source_text(corpus, d: int) -> str | None:  # type: ignore[no-untyped-def]
    texts = getattr(corpus, "texts", None)
    return texts[d] if texts is not None else None


def lexical_scores(corpus, question_terms: list[str], units: list[Unit]) -> np.ndarray:  # type: ignore[no-untyped-def]
    """BM25 of each unit against the question, with the corpus's idf (a term rare in the
    documents weighs as much in a sentence as in a passage) and the units' own length norm."""
    if not units:
        return np.zeros(0)
    bm25 = corpus.bm25
    tokens = [tokenize(u.text) for u in units]
    lengths = np.array([len(t) for t in tokens], dtype=np.float64)
    avg = float(lengths.mean()) or 1.0
    norm = bm25.k1 * (1 - bm25.b + bm25.b * lengths / avg)
    out = np.zeros(len(units))
    wanted = Counter(question_terms)
    for j, toks in enumerate(tokens):
        counts = Counter(toks)
        score = 0.0
        for term, times in wanted.items():
            tf = counts.get(term, 0)
            if tf:
                score += times * bm25.idf.get(term, 0.0) * tf * (bm25.k1 + 1) / (tf + norm[j])
        out[j] = score
    return out


def unit_key(passage, text: str) -> bytes:  # type: ignore[no-untyped-def]
    """The vector-cache key of a unit embedded on its own under its passage's heading path
    (``text``: the unit's words, however spaced)."""
    return passage_key(f"unit\n{passage.context}\n{_WS.sub(' ', text).strip()}")


def unit_vectors(corpus, units: list[Unit]) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Each unit's vector, embedded with its passage's heading path as the passage was, and
    cached like passage vectors (a unit is embedded once, whichever question reads it)."""
    embedder = corpus.embedder
    texts = [f"{corpus.passage(u.row).context}\n{u.text}" for u in units]
    keys = [unit_key(corpus.passage(u.row), u.text) for u in units]
    cache = corpus.cache.passages if corpus.cache is not None else None
    known = cache.get_many(embedder.name, keys, embedder.dimension) if cache is not None else {}
    # A unit that is the whole of its passage reads as the passage did: the same text gives the
    # passage's vector, computed when the document was indexed (about a sixth of a contract's
    # units), so it is not embedded again.
    for j, (u, key) in enumerate(zip(units, keys, strict=True)):
        if key not in known and texts[j] == corpus.passage(u.row).indexed_text:
            vector = corpus.embedded(u.row)
            if vector is not None:
                known[key] = vector
    todo = [j for j, key in enumerate(keys) if key not in known and key not in corpus.unit_memo]
    if todo:
        fresh = embedder.encode([texts[j] for j in todo])
        computed = {keys[j]: fresh[n] for n, j in enumerate(todo)}
        corpus.unit_memo.update(computed)
        if cache is not None:
            cache.put_many(embedder.name, computed.items())
    rows = [known[key] if key in known else corpus.unit_memo[key] for key in keys]
    return np.vstack(rows) if rows else np.zeros((0, embedder.dimension), dtype=np.float32)


@dataclass(slots=True)
class Scored:
    row: int
    start: int
    end: int
    score: float


def evidence_ranges(
    ranked: list[tuple[int, float]],
    units: list[Unit],
    lexical: np.ndarray,
    cosine: np.ndarray | None,
    params: EvidenceParams,
    k: int,
) -> list[Scored]:
    """The first stage's passages, best first, each cut to the run of its units that carry the
    evidence, and fewer than ``k`` of them once the scores fall away.

    A passage is dropped when its score is below ``cutoff`` x the best passage's (after the
    first ``keep``). Inside a passage, a unit scores ``lexical_share`` x its BM25 (over the best
    unit's of the question) + the rest x its cosine; the range returned runs from the first to
    the last unit scoring at least ``trim`` x the passage's best unit, so the passage order (and
    the rank of the first hit) is the first stage's, and only the text around the evidence goes."""
    if not ranked:
        return []
    by_row: dict[int, list[int]] = {}
    for j, u in enumerate(units):
        by_row.setdefault(u.row, []).append(j)
    top_lex = float(lexical.max()) if lexical.size else 0.0
    own = params.lexical_share * (lexical / top_lex if top_lex > 0 else lexical)
    if cosine is not None and cosine.size:
        own = own + (1 - params.lexical_share) * cosine
    best = ranked[0][1]
    out: list[Scored] = []
    for n, (row, score) in enumerate(ranked[:k]):
        if n >= params.keep and best > 0 and score < params.cutoff * best:
            break
        members = by_row.get(row)
        if not members:
            continue
        high = max(float(own[j]) for j in members)
        kept = [j for j in members if float(own[j]) >= params.trim * high] or members
        out.append(
            Scored(row, min(units[j].start for j in kept), max(units[j].end for j in kept), score)
        )
    return out
