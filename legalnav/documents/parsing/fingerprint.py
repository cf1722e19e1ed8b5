"""Near-duplicates: the same text in two files (a PDF and the DOCX it was printed from, a scan
of a text PDF, a copy with a new cover page).

A document's sketch is the ``K`` smallest hashes of its word 3-grams (a bottom-k MinHash: words
lower-cased, punctuation and layout ignored); two sketches estimate the Jaccard similarity of the
two texts' 3-gram sets without reading the texts again. 3-grams rather than longer ones so that a
scan's OCR errors (a word in twenty misread) still leave most 3-grams whole.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

K = 128
#: Estimated similarity at or above which two documents are shown as likely copies.
LIKELY_COPY = 0.6
_MASK = (1 << 52) - 1  # hashes that JSON and every database keep exactly
_WORD = re.compile(r"[a-z0-9]+")


def sketch(text: str, k: int = K) -> list[int]:
    words = _WORD.findall(text.lower())
    grams = {" ".join(words[i : i + 3]) for i in range(max(0, len(words) - 2))}
    hashes = {
        int.from_bytes(hashlib.blake2b(g.encode(), digest_size=8).digest(), "big") & _MASK
        for g in grams
    }
    return sorted(hashes)[:k]


def similarity(a: Sequence[int], b: Sequence[int], k: int = K) -> float:
    """Estimated Jaccard similarity of the texts behind two sketches."""
    if not a or not b:
        return 0.0
    sa, sb = set(a), set(b)
    union = sorted(sa | sb)[: min(k, len(sa | sb))]
    both = sum(1 for h in union if h in sa and h in sb)
    return both / len(union)


def likely_copies(
    sketches: Sequence[tuple[int, Sequence[int]]], threshold: float = LIKELY_COPY
) -> list[tuple[int, int, float]]:
    """(id, id, similarity) of each pair at or above ``threshold``, most alike first. Pairs
    are found through the hashes they share, so documents with nothing in common are never
    compared."""
    by_hash: dict[int, list[int]] = {}
    for n, (_, sk) in enumerate(sketches):
        for h in sk[:32]:  # a pair alike above the threshold shares some of its smallest hashes
            by_hash.setdefault(h, []).append(n)
    pairs: set[tuple[int, int]] = set()
    for members in by_hash.values():
        if 1 < len(members) <= 50:
            for i, a in enumerate(members):
                for b in members[i + 1 :]:
                    pairs.add((a, b))
    out = []
    for a, b in pairs:
        s = similarity(sketches[a][1], sketches[b][1])
        if s >= threshold:
            out.append((sketches[a][0], sketches[b][0], round(s, 3)))
    return sorted(out, key=lambda x: (-x[2], x[0], x[1]))
