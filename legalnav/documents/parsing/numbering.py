"""Clause numbering: roman numerals, letter ordinals and the label styles of real agreements."""

from __future__ import annotations

import re

_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_ROMAN_RE = re.compile(r"^(?=[mdclxvi])m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")


def roman_to_int(s: str) -> int | None:
    s = s.lower()
    if not s or not _ROMAN_RE.match(s):
        return None
    total = 0
    for a, b in zip(s, s[1:] + " ", strict=True):
        va = _ROMAN[a]
        if b != " " and _ROMAN[b] > va:
            total -= va
        else:
            total += va
    return total


def alpha_ordinal(s: str) -> int | None:
    """a=1 … z=26, then aa=27, bb=28 … (the doubled-letter style of long lists)."""
    s = s.lower()
    if not s.isalpha() or not s.isascii():
        return None
    if len(s) == 1:
        return ord(s) - 96
    if len(set(s)) == 1 and len(s) <= 3:
        return (len(s) - 1) * 26 + ord(s[0]) - 96
    return None


def article_number(label: str) -> int | None:
    """ "V" -> 5, "5" -> 5, "A" -> 1 (some agreements letter their articles)."""
    if label.isdigit():
        return int(label)
    r = roman_to_int(label)
    if r is not None:
        return r
    if len(label) == 1 and label.isalpha():
        return ord(label.upper()) - 64
    return None


def decimal_tuple(label: str) -> tuple[int, ...]:
    return tuple(int(p) for p in label.split(".") if p.isdigit())


def normalise_decimal(label: str) -> str:
    """ "5.01" and "5.1" are different clauses in the same document, so keep the digits as
    printed but drop a trailing dot and leading zeros of the first part ("05.1" -> "5.1")."""
    parts = label.rstrip(".").split(".")
    if parts and parts[0].isdigit():
        parts[0] = str(int(parts[0]))
    return ".".join(parts)
