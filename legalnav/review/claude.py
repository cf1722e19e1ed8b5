"""Filling a document's cells with Claude: one call per batch of columns over the provisions
retrieval navigates to for them, the instructions cached across calls.

Every value Claude gives must carry a quotation and the provision it comes from. A quotation that
is not verbatim in that provision (or names a provision it was not shown) is not used: the cell
keeps the offline filler's answer and says why. A reply that cannot be read does the same for
its whole batch. What the calls cost is in the ledger (purpose "grid") and summed on the grid.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from legalnav.answers.citations import quote_in
from legalnav.documents.models import Document, Node
from legalnav.documents.parsing.values import extractor_for
from legalnav.llm import prompts
from legalnav.llm.models import LLMCall
from legalnav.retrieval.engine import Retriever, retrieve
from legalnav.review.columns import Column
from legalnav.review.fill import Cell as FilledCell

BATCH_COLUMNS = 8
HITS_PER_COLUMN = 4
PROVISION_CHARS = 4000  # one provision, as shown (the check reads the whole provision)
BATCH_CHARS_PER_COLUMN = 4800  # about 1,200 tokens a column: the estimate's navigated figure
OUTPUT_TOKENS_PER_COLUMN = 140
QUOTE_CHARS = 2000  # a quotation is a clause's words, not a document


@dataclass(slots=True)
class Usage:
    calls: int = 0
    dollars: Decimal = Decimal(0)
    user_id: int | None = None  # whose spend the calls are (the grid's maker), for the caps


@dataclass(slots=True)
class Filled:
    """A document's cells (in the columns' order) and, per column key, why Claude's answer was
    not used (absent when it was)."""

    cells: list[FilledCell]
    fallbacks: dict[str, str] = field(default_factory=dict)


class NodeLookup:
    """What the filler needs of a document's provisions: the one a span lies in, and its text."""

    def __init__(
        self,
        node_for: Callable[[int, int], Node | None],
        text_of: Callable[[Node], str],
        nodes: Sequence[Node],
    ) -> None:
        self.node_for = node_for
        self.text_of = text_of
        self.by_id = {n.node_id: n for n in nodes}


def _navigate(
    retriever: Retriever, column: Column, offline: FilledCell, lookup: NodeLookup
) -> list[Node]:
    """The provisions for one column: the offline filler's quotations first, then retrieval's."""
    found: list[Node] = []
    spans = list(offline.spans)
    spans += [
        (h.start, h.end)
        for h in retrieve(retriever, column.search_text, "navembed", HITS_PER_COLUMN).hits
    ]
    for start, end in spans:
        node = lookup.node_for(start, end)
        if node is not None and node not in found:
            found.append(node)
    return found


def _locate(text: str, node: Node, quote: str) -> tuple[int, int] | None:
    """Where the quotation lies in the document's text, within its provision (word by word,
    whatever the spacing and punctuation between words)."""
    words = re.findall(r"\w+", quote)
    if not words:
        return None
    pattern = re.compile(r"\W+".join(re.escape(w) for w in words), re.I)
    hit = pattern.search(text, node.start, max(node.subtree_end, node.end))
    return (hit.start(), hit.end()) if hit else None


_STOP = frozenset("the and for with this that any all such its their shall will from into".split())


def _grounded(value: str, quote: str) -> bool:
    """Whether the value shares a word with its quotation: a number, or a word of three letters
    or more that is not a stop word ("Minnesota" in "the laws of the State of Minnesota")."""
    said = {w for w in re.findall(r"\w+", quote.lower())}
    words = [
        w
        for w in re.findall(r"\w+", value.lower())
        if w.isdigit() or (len(w) >= 3 and w not in _STOP)
    ]
    return not words or any(w in said for w in words)


def _confidence(value: object) -> float:
    try:
        return min(1.0, max(0.0, float(value)))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.5


def _cell(
    item: Any,  # noqa: ANN401 - the reply's item, checked here
    column: Column,
    document: Document,
    shown: dict[str, Node],
    lookup: NodeLookup,
) -> tuple[FilledCell | None, str]:
    """Claude's cell for a column, or None and the reason it cannot be used."""
    if not isinstance(item, dict):
        return None, "Claude's reply had no answer for this column"
    searched = f"{column.question} (Claude read {len(shown)} navigated provisions)"
    if not item.get("found"):
        return FilledCell(
            column.key,
            "",
            [],
            _confidence(item.get("confidence", 0.0)),
            column.type,
            None,
            searched,
        ), ""
    quote = str(item.get("quote") or "").strip()
    node = shown.get(str(item.get("node") or "").strip())
    if not quote:
        return None, "Claude gave a value without a quotation"
    if len(quote) > QUOTE_CHARS:
        return None, f"Claude's quotation is longer than {QUOTE_CHARS} characters"
    if node is None:
        return None, f"Claude cited a provision it was not shown ({str(item.get('node'))[:40]!r})"
    if not quote_in(quote, lookup.text_of(node)):
        return None, f"Claude's quotation is not verbatim in [{document.key}:{node.node_id}]"
    span = _locate(document.text, node, quote)
    if span is None:
        return None, f"Claude's quotation could not be placed in [{document.key}:{node.node_id}]"
    value = " ".join(str(item.get("value") or "").split())[:500]
    if value and column.type != "yes_no" and not _grounded(value, quote):
        # A verbatim quotation proves nothing about a value it does not contain.
        return None, f"Claude's value {value[:60]!r} is not in its quotation"
    extractor = extractor_for(column.key, column.type)
    typed = None
    if extractor is not None:
        read = extractor(document.text[span[0] : span[1]])
        typed = read.value if read is not None else None
    if column.type == "yes_no":
        typed = value.lower().startswith("y")
    return FilledCell(
        column.key,
        value or quote[:200],
        [span],
        _confidence(item.get("confidence", 0.8)),
        column.type,
        typed,
        searched,
    ), ""


def fill_document_claude(
    *,
    document: Document,
    retriever: Retriever,
    columns: Sequence[Column],
    offline: Sequence[FilledCell],
    lookup: NodeLookup,
    provider: Any,  # noqa: ANN401 - a ClaudeProvider (get_provider())
    usage: Usage,
) -> Filled:
    """Claude's cells for one document, a batch of columns a call; the offline cells stand in
    wherever Claude's answer cannot be verified. Raises ``LLMError`` when the API fails."""
    cells = list(offline)
    fallbacks: dict[str, str] = {}
    for at in range(0, len(columns), BATCH_COLUMNS):
        batch = list(range(at, min(at + BATCH_COLUMNS, len(columns))))
        shown: dict[str, Node] = {}
        budget = BATCH_CHARS_PER_COLUMN * len(batch)
        per_column = [_navigate(retriever, columns[i], offline[i], lookup) for i in batch]
        # Round-robin over the columns' provisions, so every column gets its best ones first.
        for rank in range(max((len(p) for p in per_column), default=0)):
            for nodes in per_column:
                if rank < len(nodes) and nodes[rank].node_id not in shown and budget > 0:
                    shown[nodes[rank].node_id] = nodes[rank]
                    budget -= min(PROVISION_CHARS, len(lookup.text_of(nodes[rank])))
        prompt = prompts.grid_fill_prompt(
            doc_id=document.key,
            title=document.title,
            provisions=[
                prompts.PromptProvision(
                    doc_id=document.key,
                    node_id=n.node_id,
                    text=lookup.text_of(n)[:PROVISION_CHARS],
                    clause_ref=n.ref,
                    title=n.heading,
                    doc_title=document.title,
                )
                for n in shown.values()
            ],
            columns=[
                prompts.GridColumnAsked(columns[i].key, columns[i].question, columns[i].type)
                for i in batch
            ],
        )
        completion = provider.complete(
            system=prompt.system,
            messages=prompt.messages,
            max_tokens=OUTPUT_TOKENS_PER_COLUMN * len(batch) + 200,
            purpose=LLMCall.Purpose.GRID,
            matter_id=document.matter_id,
            user_id=usage.user_id,
        )
        usage.calls += 1
        usage.dollars += completion.dollars
        data = prompts.parse_json_object(completion.text)
        items = data.get("cells") if isinstance(data, dict) else None
        by_key = (
            {str(i.get("key")): i for i in items if isinstance(i, dict)}
            if isinstance(items, list)
            else {}
        )
        for i in batch:
            column = columns[i]
            if not by_key:
                fallbacks[column.key] = "Claude's reply could not be read"
                continue
            cell, why = _cell(by_key.get(column.key), column, document, shown, lookup)
            if cell is None:
                fallbacks[column.key] = why
            else:
                cells[i] = cell
    return Filled(cells, fallbacks)
