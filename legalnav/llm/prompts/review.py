"""The review grid's prompt: one document, a batch of columns (each a question with an answer
type), the provisions retrieval navigated to for them; the reply fills one cell per column, each
found value carrying a verbatim quotation and the provision it comes from."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from legalnav.llm.prompts.blocks import (
    CACHE_CONTROL,
    UNTRUSTED,
    Prompt,
    PromptProvision,
    neutralise,
    provision_block,
)

GRID_QUOTE_WORDS = 60

# What each answer type asks for, in the words the model is given.
GRID_TYPES = {
    "clause": "the clause itself, summarised in a few words",
    "yes_no": '"Yes" or "No"',
    "date": "the date, as written or as YYYY-MM-DD",
    "duration": 'the period, e.g. "3 years, renews yearly unless 90 days\' notice"',
    "amount": "the amount with its currency",
    "party": "the party or parties, by name",
    "text": "a short answer in a few words",
}

GRID_FILL_SYSTEM = f"""\
You fill one row of a due-diligence review table: one document, several columns. Each column \
is a question with an answer type. Answer every column from the provisions given, and from \
nothing else.

# For each column
- "found": true only when a provision answers the question; false when none does (a false \
"found" is far worse than an honest "not found").
- "value": the answer in the column's type, short: {"; ".join(f"{k}: {v}" for k, v in GRID_TYPES.items())}.
- "quote": the words of the provision that carry the answer, copied exactly, at most \
{GRID_QUOTE_WORDS} words, no ellipsis. A value without a verbatim quotation is discarded.
- "node": the node_id of the provision the quotation comes from.
- "confidence": from 0 to 1, how sure you are that the quotation answers the column.

{UNTRUSTED}

# Reply
One JSON object and nothing else:
{{"cells": [{{"key": "<column key>", "found": true, "value": "…", "quote": "…", "node": "…", \
"confidence": 0.9}}, …]}} with one item per column, in the order given."""


@dataclass(frozen=True, slots=True)
class GridColumnAsked:
    key: str
    question: str
    type: str


def grid_fill_prompt(
    *,
    doc_id: str,
    title: str,
    provisions: Sequence[PromptProvision],
    columns: Sequence[GridColumnAsked],
) -> Prompt:
    """The instructions (cached: the same for every call of a grid), then the document's
    navigated provisions and the batch of columns."""
    block = (
        "<provisions>\n" + "\n\n".join(provision_block(p) for p in provisions) + "\n</provisions>"
    )
    asked = [
        {"key": c.key, "question": c.question, "type": c.type, "answer": GRID_TYPES.get(c.type, "")}
        for c in columns
    ]
    text = (
        f"{block}\n\nThe document is {neutralise(doc_id)} ({neutralise(title)}). "
        f"Fill these columns:\n{json.dumps(asked, ensure_ascii=False, indent=1)}"
    )
    return Prompt(
        system=[{"type": "text", "text": GRID_FILL_SYSTEM, "cache_control": dict(CACHE_CONTROL)}],
        messages=[{"role": "user", "content": text}],
    )
