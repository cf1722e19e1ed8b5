"""What the doors (``load_judgments``) may do to a research matter's case cards.

A judgment's case card is built when the judgment is indexed (``receivers.build_case_card``, from
the indexing job), and the judgment itself is added through ``documents.actions``, which audits
it. What a bulk load adds is derived from the indexed text, not written by anyone, so it writes no
audit row: link the cited cases once at the end (``deferred_linking``, ``case_cards_link``),
re-read the cards an older card reader built (``case_cards_refresh``) and, with Claude, enrich a
card (``case_card_enrich``). The doors name these from here, never from the write services (the
layer contract in pyproject.toml).
"""

from __future__ import annotations

from legalnav.research.services import (
    CARD_READER_VERSION,
    case_card_enrich,
    case_cards_link,
    case_cards_refresh,
    deferred_linking,
)

__all__ = [
    "CARD_READER_VERSION",
    "case_card_enrich",
    "case_cards_link",
    "case_cards_refresh",
    "deferred_linking",
]
