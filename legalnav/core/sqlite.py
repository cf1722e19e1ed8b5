"""SQLite's LIKE, made to ignore case in every script, as PostgreSQL's ILIKE does.

On SQLite, Django runs ``contains``, ``icontains``, ``iexact``, ``startswith`` and their kin as
``LIKE``, which SQLite compares without regard to case for ASCII letters only: a search for
"société" missed "SOCIÉTÉ GÉNÉRALE", and a playbook named "Résumé" could be saved beside
"RÉSUMÉ". Each new SQLite connection of the embedded default gets its ``like()`` replaced by one
that compares the two strings casefolded (Python's ``str.casefold``: "Straße" matches "STRASSE"),
with ``%``, ``_`` and the ESCAPE character read as SQLite reads them. Django's columns carry no
NOCASE collation, so SQLite's own LIKE never used an index for these lookups: nothing is lost.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=256)
def _pattern(pattern: str, escape: str | None) -> re.Pattern[str]:
    out: list[str] = []
    chars = iter(pattern.casefold())
    for ch in chars:
        if escape is not None and ch == escape:
            following = next(chars, "")
            out.append(re.escape(following))
        elif ch == "%":
            out.append(".*")
        elif ch == "_":
            out.append(".")
        else:
            out.append(re.escape(ch))
    return re.compile("".join(out), re.DOTALL)


def like(pattern: str | None, value: Any, escape: str | None = None) -> bool | None:
    """SQLite's ``value LIKE pattern [ESCAPE escape]``: ``like(pattern, value[, escape])``."""
    if pattern is None or value is None:
        return None
    if escape is not None and len(escape) != 1:
        # SQLite's own error for the same mistake
        raise ValueError("ESCAPE expression must be a single character")
    return _pattern(pattern, escape).fullmatch(str(value).casefold()) is not None


def install_like(sender: Any, connection: Any, **kwargs: Any) -> None:
    """``connection_created`` receiver: replace ``like()`` on each new SQLite connection."""
    if connection.vendor != "sqlite":
        return
    raw = connection.connection
    raw.create_function("like", 2, like, deterministic=True)
    raw.create_function("like", 3, like, deterministic=True)
