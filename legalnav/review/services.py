"""Writing review grids: create one, estimate what filling it costs, fill it as a job, re-queue
or cancel it, record a reviewer's verdict on a cell, save a user's own column.

Filling is a job of kind "grid" (``legalnav.core.jobs``): ``grid_fill_job`` claims the row with a
lease and fills a document at a time: the slow part (retrieval and the filler, ``fill.py``) runs
outside any transaction; then a short transaction, under ``select_for_update`` of the grid row
while this worker still holds it, writes that document's cells. A cell that exists is never
written again, so a resumed run fills only what is missing and a reviewed cell survives every
run (``grid_retry(refill=True)`` clears the unreviewed cells first).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q
from django.db.models.functions import Greatest, Length
from django.utils import timezone

from legalnav.answers import snapshots
from legalnav.answers.citations import NOT_FOUND, VERIFIED, quote_in
from legalnav.answers.spend import spend_check
from legalnav.core import jobs
from legalnav.core.lookup import aggregate_by
from legalnav.documents.models import Document, Node
from legalnav.documents.parsing.layout import tidy
from legalnav.llm.prices import PriceCard, Usage, cost
from legalnav.llm.providers import LLMError, get_provider
from legalnav.llm.tokens import count_tokens
from legalnav.matters.models import Matter
from legalnav.retrieval.embeddings import get_embedder
from legalnav.retrieval.engine import Corpus, Retriever
from legalnav.retrieval.services import index_cache
from legalnav.review import claude
from legalnav.review.columns import ANSWER_TYPES, column_from_request
from legalnav.review.fill import NOT_FOUND as FILL_NOT_FOUND
from legalnav.review.fill import Cell as FilledCell
from legalnav.review.fill import fill_document
from legalnav.review.models import (
    LOW_CELLS,
    Cell,
    Grid,
    GridChunk,
    GridColumn,
    GridDocument,
    SavedColumn,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)
GRID = "grid"

MAX_COLUMNS = 60
# Said in a Claude grid's cell whose Claude answer could not be used (playbooks read it).
OFFLINE_SHOWN = "the offline filler's answer is shown"
MAX_DOCUMENTS = 10_000  # a whole data room; filled in chunks of GRID_CHUNK_DOCUMENTS
MAX_QUESTION_CHARS = 1000


class GridRejected(ValueError):
    """The grid (or column) asked for cannot be made; the message says why, ``field`` where."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """A column as a door sends it."""

    key: str
    question: str
    type: str


# --- the cost estimate ---------------------------------------------------------------------------

# With Claude, one call per document per batch of columns (issue 16). These are the planning
# figures behind the estimate; the ledger records what calls really cost once that path exists.
BATCH_COLUMNS = 8
PROMPT_TOKENS = 700  # instructions and the answer format: the cached prefix of every call
NAVIGATED_TOKENS_PER_COLUMN = 1200  # about four provisions a question, navigated from the index
QUESTION_OVERHEAD_TOKENS = 25
OUTPUT_TOKENS_PER_COLUMN = 140  # the typed value and its verbatim quotation


def _money(value: Decimal) -> str:
    return format(value, "f")  # the ledger's 8 places, as prices.cost rounds


# Up to this many documents the estimate counts each one's tokens; past it (a data room) it
# reckons them from the text's length, at the characters per token of CUAD's contracts (4.84
# over 21 of them with cl100k), so that estimating 10,000 documents takes a query, not minutes.
EXACT_TOKENS_UP_TO = 200
CHARS_PER_TOKEN = 4.8


def document_tokens(documents: Sequence[Document]) -> dict[int, int]:
    """Each document's tokens, by id: counted, or reckoned from its length for many."""
    ids = [d.pk for d in documents]
    if len(ids) <= EXACT_TOKENS_UP_TO:
        texts = Document.objects.filter(pk__in=ids).values_list("pk", "text")
        return {pk: count_tokens(text) for pk, text in texts}
    out: dict[int, int] = {}
    for start in range(0, len(ids), 2000):
        lengths = (
            Document.objects.filter(pk__in=ids[start : start + 2000])
            .annotate(chars=Length("text"))
            .values_list("pk", "chars")
        )
        out.update({pk: round((chars or 0) / CHARS_PER_TOKEN) for pk, chars in lengths})
    return out


def grid_estimate(
    *, documents: Sequence[Document], columns: Sequence[ColumnSpec]
) -> dict[str, Any]:
    """Tokens and dollars to fill the grid, by mode, before it starts.

    Offline costs nothing. With Claude there are two ways to put a document before the model:
    ``navigated`` (the provisions retrieval picks for each batch of columns, the instructions
    cached across calls) and ``inject`` (the whole document as a cached prefix: written by the
    first batch, read by the rest). Prices come from the card in force (``LLM_PRICE_*``)."""
    card = PriceCard.from_settings()
    batches_per_doc = max(1, -(-len(columns) // BATCH_COLUMNS))
    question_tokens = sum(count_tokens(c.question) + QUESTION_OVERHEAD_TOKENS for c in columns)
    totals = {
        "navigated": {"input": 0, "cache_write": 0, "cache_read": 0, "output": 0},
        "inject": {"input": 0, "cache_write": 0, "cache_read": 0, "output": 0},
    }
    tokens = document_tokens(documents)
    for document in documents:
        doc_tokens = tokens.get(document.pk, 0)
        output = OUTPUT_TOKENS_PER_COLUMN * len(columns)
        nav = totals["navigated"]
        nav["cache_write"] += PROMPT_TOKENS
        nav["cache_read"] += PROMPT_TOKENS * (batches_per_doc - 1)
        nav["input"] += question_tokens + min(
            doc_tokens * batches_per_doc, NAVIGATED_TOKENS_PER_COLUMN * len(columns)
        )
        nav["output"] += output
        inj = totals["inject"]
        inj["cache_write"] += PROMPT_TOKENS + doc_tokens
        inj["cache_read"] += (PROMPT_TOKENS + doc_tokens) * (batches_per_doc - 1)
        inj["input"] += question_tokens
        inj["output"] += output
    claude = {}
    for name, t in totals.items():
        usage = Usage(
            input_tokens=t["input"],
            cache_write_tokens=t["cache_write"],
            cache_read_tokens=t["cache_read"],
            output_tokens=t["output"],
        )
        claude[name] = {
            "tokens": {**t, "total": sum(t.values())},
            "dollars": _money(cost(usage, card)),
        }
    return {
        "documents": len(documents),
        "columns": len(columns),
        "cells": len(documents) * len(columns),
        "calls": len(documents) * batches_per_doc,
        "batch_columns": BATCH_COLUMNS,
        # How the documents' tokens were had: "counted", or "length" (reckoned from it).
        "token_basis": "counted" if len(documents) <= EXACT_TOKENS_UP_TO else "length",
        "offline": {"tokens": {"total": 0}, "dollars": "0"},
        "claude": claude,
        "prices": card.as_dict(),
    }


# --- creating a grid -----------------------------------------------------------------------------


def columns_check(columns: Sequence[ColumnSpec]) -> list[ColumnSpec]:
    """The columns, tidied and checked: a key, a question (the key when blank), a known type,
    unique keys, at most ``MAX_COLUMNS``."""
    if not columns:
        raise GridRejected("Choose at least one column.", "columns")
    if len(columns) > MAX_COLUMNS:
        raise GridRejected(f"A grid has at most {MAX_COLUMNS} columns.", "columns")
    out: list[ColumnSpec] = []
    seen: set[str] = set()
    for c in columns:
        key = " ".join(c.key.split())[:120]
        question = " ".join(c.question.split()) or key
        if not key:
            raise GridRejected("Every column needs a name.", "columns")
        if len(question) > MAX_QUESTION_CHARS:
            raise GridRejected(
                f"The question of {key!r} is longer than {MAX_QUESTION_CHARS} characters.",
                "columns",
            )
        if c.type not in ANSWER_TYPES:
            raise GridRejected(
                f"Column {key!r}: the type must be one of {', '.join(ANSWER_TYPES)}.", "columns"
            )
        if key.lower() in seen:
            raise GridRejected(f"Column {key!r} appears twice.", "columns")
        seen.add(key.lower())
        out.append(ColumnSpec(key, question, c.type))
    return out


def grid_documents_check(*, matter: Matter, document_ids: Sequence[int] | None) -> list[Document]:
    """The indexed documents of the matter the grid's rows will be (all of them for None), in
    the order asked (else the matter's order). An id of another matter is refused like one that
    does not exist."""
    # Without their text: a data room's grid is thousands of documents.
    indexed = Document.objects.filter(matter=matter, status=Document.Status.INDEXED).defer("text")
    if document_ids is None:
        documents = list(indexed.order_by("effective_date", "id"))
    else:
        wanted = list(dict.fromkeys(int(i) for i in document_ids))
        by_id = {d.pk: d for d in indexed.filter(pk__in=wanted)}
        missing = [i for i in wanted if i not in by_id]
        if missing:
            raise GridRejected(
                "Not an indexed document of this matter: "
                + ", ".join(f"D{i}" for i in missing[:10])
                + ".",
                "documents",
            )
        documents = [by_id[i] for i in wanted]
    if not documents:
        raise GridRejected("The grid needs at least one indexed document.", "documents")
    if len(documents) > MAX_DOCUMENTS:
        raise GridRejected(f"A grid has at most {MAX_DOCUMENTS} documents.", "documents")
    return documents


def grid_create(
    *,
    matter: Matter,
    user: User | None,
    title: str,
    columns: Sequence[ColumnSpec],
    documents: Sequence[Document],
    mode: str = Grid.Mode.OFFLINE,
) -> Grid:
    """Write the grid, its rows and columns, queued (``actions.grid_create`` checks access and
    limits, audits and queues it). ``columns`` as ``columns_check`` returns them."""
    if mode not in Grid.Mode.values:
        raise GridRejected(f"Unknown mode {mode!r}; use offline or claude.", "mode")
    if mode == Grid.Mode.CLAUDE and not settings.ANTHROPIC_API_KEY:
        raise GridRejected(
            "Filling with Claude needs ANTHROPIC_API_KEY, which this server does not have. "
            "Choose offline (no language model, no cost).",
            "mode",
        )
    title = " ".join(title.split())[:200] or f"Review grid ({len(columns)} columns)"
    with transaction.atomic():
        grid = Grid.objects.create(
            matter=matter,
            title=title,
            mode=mode,
            created_by=user if getattr(user, "is_authenticated", False) else None,
            cells_total=len(documents) * len(columns),
            estimate=grid_estimate(documents=documents, columns=columns),
        )
        GridDocument.objects.bulk_create(
            GridDocument(grid=grid, document=d, position=i) for i, d in enumerate(documents)
        )
        GridColumn.objects.bulk_create(
            GridColumn(grid=grid, position=i, key=c.key, question=c.question, type=c.type)
            for i, c in enumerate(columns)
        )
    return grid


# --- filling: the job ----------------------------------------------------------------------------


def document_retriever(document: Document, *, dense: bool = True) -> Retriever:
    """A retriever over one document's index (the shared content-hash cache), as the filler
    expects: corpus document 0 is this document, and its text is the offsets' reference."""
    cache = index_cache()
    doc = cache.get(document.text)
    embedder = get_embedder() if dense else None
    return Retriever(Corpus([doc], embedder=embedder, cache=cache, texts=[document.text]))


def _jsonable(value: object) -> Any:
    if value is None:
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)

    def default(o: object) -> object:
        if isinstance(o, date):
            return o.isoformat()
        if isinstance(o, Decimal):
            return str(o)
        return str(o)

    return json.loads(json.dumps(value, default=default))


class _Provisions:
    """One document's nodes, to find the provision a span lies in and check a quotation
    against it exactly as answers' citations are checked (``answers.citations.quote_in`` on
    ``snapshots.provision_text``)."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.nodes = list(
            Node.objects.filter(document=document)
            .exclude(kind=Node.Kind.TOC)
            .only(
                "id",
                "document_id",
                "node_id",
                "ref",
                "heading",
                "kind",
                "start",
                "end",
                "subtree_end",
                "level",
                "order",
            )
            .order_by("order")
        )
        self._texts: dict[int, str] = {}
        self._snapshots: dict[int, dict[str, Any]] = {}

    def node_for(self, start: int, end: int) -> Node | None:
        """The deepest provision that holds the whole span; else the one it starts in."""
        best: Node | None = None
        for node in self.nodes:
            if node.start <= start and max(node.subtree_end, node.end) >= end:
                if (
                    best is None
                    or node.level > best.level
                    or (node.level == best.level and node.start >= best.start)
                ):
                    best = node
        if best is not None:
            return best
        for node in self.nodes:
            if node.start <= start < max(node.subtree_end, node.end):
                best = node
        return best

    def text_of(self, node: Node) -> str:
        if node.pk not in self._texts:
            self._texts[node.pk] = snapshots.provision_text(self.document, node)
        return self._texts[node.pk]

    def snapshot_of(self, node_pk: int) -> dict[str, Any]:
        """The provision as it is now, kept with the cell (once per provision and document)."""
        if node_pk not in self._snapshots:
            node = next((n for n in self.nodes if n.pk == node_pk), None)
            self._snapshots[node_pk] = (
                snapshots.build(self.document, node, self.text_of(node)) if node else {}
            )
        return self._snapshots[node_pk]


# A quotation cut back to its verbatim head keeps at least this share of its words.
VERBATIM_HEAD_SHARE = 0.5


def _verbatim_head(text: str, start: int, end: int, provision: str) -> tuple[int, str] | None:
    """(end, quotation) of the longest head of ``text[start:end]``, in whole words, that is
    verbatim in ``provision``, when it keeps VERBATIM_HEAD_SHARE of the words; else None."""
    words = list(re.finditer(r"\S+", text[start:end]))
    if len(words) < 2:
        return None

    def head(n: int) -> tuple[int, str]:
        stop = start + words[n - 1].end()
        return stop, " ".join(tidy(text[start:stop]).split())

    lo, hi = 0, len(words) - 1  # the whole span is known not to be verbatim
    while lo < hi:  # the longest verbatim head: a head of a verbatim head is verbatim
        mid = (lo + hi + 1) // 2
        if quote_in(head(mid)[1], provision):
            lo = mid
        else:
            hi = mid - 1
    if lo < max(2, VERBATIM_HEAD_SHARE * len(words)):
        return None
    return head(lo)


def _quotes(
    document: Document, provisions: _Provisions, filled: FilledCell
) -> list[dict[str, Any]]:
    quotes = []
    for start, end in filled.spans:
        text = tidy(document.text[start:end]).strip()
        text = " ".join(text.split())
        node = provisions.node_for(start, end)
        if node is None:
            quotes.append(
                {
                    "start": start,
                    "end": end,
                    "text": text,
                    "node_pk": None,
                    "node_id": "",
                    "citation": f"[{document.key}]",
                    "verdict": "no_such_provision",
                }
            )
            continue
        provision = provisions.text_of(node)
        ok = bool(quote_in(text, provision))
        if not ok:
            # A span that runs into a page break ends in its furniture ("… in respect 72 HOU"):
            # the quotation keeps what is verbatim in the provision, up to there.
            cut = _verbatim_head(document.text, start, end, provision)
            if cut is not None:
                (end, text), ok = cut, True
        quotes.append(
            {
                "start": start,
                "end": end,
                "text": text,
                "node_pk": node.pk,
                "node_id": node.node_id,
                "ref": node.ref,
                "heading": node.heading,
                "citation": f"[{document.key}:{node.node_id}]",
                "verdict": VERIFIED if ok else NOT_FOUND,
            }
        )
    return quotes


def _searched(document: Document, provisions: _Provisions, filled: FilledCell) -> str:
    """What the filler searched; for a cell left unquoted for want of confidence, also where
    the closest sentence is and how near it came, so a reviewer can judge it."""
    if filled.found or filled.needed is None or not filled.candidates:
        return filled.searched
    closest = filled.candidates[0]
    node = provisions.node_for(closest.start, closest.end)
    # A sentence outside every provision (a title line) is placed in the document, as a
    # quotation there is cited.
    where = (
        f", in [{document.key}:{node.node_id}]," if node is not None else f", in [{document.key}],"
    )
    return (
        f"{filled.searched}. The closest sentence{where} reads {filled.confidence:.2f} as such a "
        f"provision, under the {filled.needed:.2f} a quotation needs"
    )


def cell_row(
    *,
    grid: Grid,
    column: GridColumn,
    document: Document,
    filled: FilledCell,
    provisions: _Provisions,
) -> Cell:
    """The row for one filled cell (not saved)."""
    quotes = _quotes(document, provisions, filled) if filled.found else []
    first = quotes[0] if quotes else {}
    # A cell with no quotation keeps a value only where the filler still read one (a yes/no
    # column's "No" when no provision comes near enough to quote), with its reason.
    read = filled.found or filled.value not in ("", FILL_NOT_FOUND)
    return Cell(
        grid=grid,
        column=column,
        document=document,
        status=Cell.Status.FOUND if filled.found else Cell.Status.NOT_FOUND,
        value=filled.value if read else "",
        typed=_jsonable(filled.typed) if read else None,
        confidence=float(filled.confidence),
        value_confidence=(
            float(filled.value_confidence) if read and filled.value_confidence is not None else None
        ),
        found=filled.found,
        searched=_searched(document, provisions, filled),
        reason=filled.reason if read else "",
        spans=[[a, b] for a, b in filled.spans],
        quotation=first.get("text", ""),
        node_id=first.get("node_pk"),
        node_ref=first.get("node_id", ""),
        citation=first.get("citation", ""),
        verdict=first.get("verdict", ""),
        quotes=quotes,
        snapshot=provisions.snapshot_of(first["node_pk"]) if first.get("node_pk") else {},
    )


def grid_fill_job(grid_id: int, owner: str, reraise: tuple[type[BaseException], ...] = ()) -> str:
    """The job: claim the grid for ``owner``, fill its missing cells a document at a time, and
    end it done or failed. Safe to run twice: every write is conditional on the lease. A grid of
    more than ``GRID_CHUNK_DOCUMENTS`` documents is handed to chunks instead (``_fan_out``)."""

    def work(lease: jobs.Lease) -> None:
        grid = Grid.objects.select_related("matter").get(pk=grid_id)
        lease.update(started_at=timezone.now(), started_cells=grid.cells_done)
        if grid.rows.count() > settings.GRID_CHUNK_DOCUMENTS:
            _fan_out(grid, lease)
        else:
            _fill_claimed(grid, lease)

    outcome = jobs.run_claimed(
        jobs.spec_for(GRID), grid_id, owner=owner, work=work, reraise=reraise
    )
    if isinstance(outcome, jobs.Refusal):
        return outcome.reason
    row = Grid.objects.filter(pk=grid_id).values_list("status", flat=True).first()
    return row or "gone"


# A grid's lease holder while its chunks fill it: no one worker holds the grid then; it is alive
# while a chunk of it is open (``grid_chunks_alive``), and the last chunk to end settles it.
FANOUT = "chunks"
CHUNK = "grid_chunk"
_OPEN_CHUNK = (GridChunk.Status.QUEUED, GridChunk.Status.RUNNING)


def _fan_out(grid: Grid, lease: jobs.Lease) -> None:
    """Hand the claimed grid to its chunks: plan them (runs of ``GRID_CHUNK_DOCUMENTS`` rows,
    each a job any worker takes) unless it has some already (the sweeper re-queued a grid whose
    chunks had all ended: it is settled from them)."""
    with transaction.atomic():
        if not lease.update(lease_owner=FANOUT, lease_expires_at=None):
            raise jobs.JobLost(f"grid {grid.pk} is no longer held by {lease.owner}")
        lease.lost = True  # the lease is the chunks' now: this worker's heartbeat stops
        if not grid.chunks.exists():
            _plan_chunks(grid)
    grid_settle(grid.pk)


def _plan_chunks(grid: Grid) -> None:
    size = settings.GRID_CHUNK_DOCUMENTS
    positions = list(grid.rows.order_by("position").values_list("position", flat=True))
    columns = grid.columns.count()
    chunks = GridChunk.objects.bulk_create(
        GridChunk(
            grid=grid,
            first=positions[i],
            last=positions[min(i + size, len(positions)) - 1] + 1,
            columns=columns,
        )
        for i in range(0, len(positions), size)
    )
    for chunk in chunks:
        jobs.enqueue_on_commit(CHUNK, chunk.pk)


def grid_chunks_alive(grid: Grid) -> bool:
    """Whether a fanned-out grid is still being filled: some chunk of it is open (a chunk whose
    worker died is the sweeper's to send again, as a job of its own)."""
    return grid.lease_owner == FANOUT and grid.chunks.filter(status__in=_OPEN_CHUNK).exists()


def grid_settle(grid_id: int) -> str:
    """End a fanned-out grid once no chunk of it is open: done, or failed with the first failed
    chunk's reason (Resume fills what is missing); re-planned when columns were added while it
    ran. Returns the grid's status ("" when it is not fanned out or a chunk is still open)."""
    with transaction.atomic():
        grid = (
            Grid.objects.select_for_update()
            .filter(pk=grid_id, status=Grid.Status.RUNNING, lease_owner=FANOUT)
            .first()
        )
        if grid is None:
            return ""
        chunks = list(grid.chunks.all())
        if any(c.status in _OPEN_CHUNK for c in chunks):
            return ""
        done = [c for c in chunks if c.status == GridChunk.Status.DONE]
        if (
            chunks
            and len(done) == len(chunks)
            and min((c.columns for c in chunks), default=0) < (grid.columns.count())
        ):
            # Columns were added while it ran (a playbook applied to this grid): fill them too.
            grid.chunks.all().delete()
            _plan_chunks(grid)
            return ""
        skipped = ", ".join(c.note for c in chunks if c.note)
        fields: dict[str, Any] = {
            "lease_owner": "",
            "lease_expires_at": None,
            # Its counts afresh from the cells (under the grid's lock, as ``grid_recount``):
            # whatever the chunks' increments missed does not outlive the run.
            **_cell_counts(grid),
            "note": (
                f"Not filled, since not indexed when the grid ran: {skipped}. Resume once they "
                "are indexed."
                if skipped
                else ""
            ),
            "updated_at": timezone.now(),
        }
        ended = next((c for c in chunks if c.status != GridChunk.Status.DONE), None)
        if ended is None:
            fields |= {"status": Grid.Status.DONE, "finished_at": timezone.now()}
        else:
            fields |= {
                "status": Grid.Status.FAILED,
                "error_code": ended.error_code or "chunk",
                "error_message": ended.error_message
                or f"Part of the grid ({ended}) did not finish; Resume fills what is missing.",
            }
        Grid.objects.filter(pk=grid.pk).update(**fields)
        return str(fields["status"])


def grid_chunk_job(chunk_id: int, owner: str, reraise: tuple[type[BaseException], ...] = ()) -> str:
    """The job of one chunk: claim it, fill its rows' missing cells as the grid's own job does,
    end it, and settle the grid if it was the last chunk open."""

    def work(lease: jobs.Lease) -> None:
        chunk = GridChunk.objects.get(pk=chunk_id)
        grid = Grid.objects.select_related("matter").get(pk=chunk.grid_id)
        if grid.status != Grid.Status.RUNNING or grid.lease_owner != FANOUT:
            lease.update(
                status=GridChunk.Status.CANCELLED,
                lease_owner="",
                lease_expires_at=None,
                error_message="The grid was stopped before this part of it was filled.",
            )
            return
        columns = list(grid.columns.order_by("position"))
        lease.update(columns=len(columns))
        rows = list(
            grid.rows.filter(position__gte=chunk.first, position__lt=chunk.last)
            .order_by("position")
            .values_list("document_id", flat=True)
        )
        skipped = _fill_rows(grid, lease, rows, columns)
        if skipped is not None:
            lease.finish(note=", ".join(skipped)[:4000], finished_at=timezone.now())

    grid_id = GridChunk.objects.filter(pk=chunk_id).values_list("grid_id", flat=True).first()
    outcome = jobs.run_claimed(
        jobs.spec_for(CHUNK), chunk_id, owner=owner, work=work, reraise=reraise
    )
    if isinstance(outcome, jobs.Refusal):
        return outcome.reason
    if grid_id is not None:
        grid_settle(grid_id)
    row = GridChunk.objects.filter(pk=chunk_id).values_list("status", flat=True).first()
    return row or "gone"


def _fill_claimed(grid: Grid, lease: jobs.Lease) -> None:
    columns = list(grid.columns.order_by("position"))
    rows = list(grid.rows.order_by("position").values_list("document_id", flat=True))
    skipped = _fill_rows(grid, lease, rows, columns)
    if skipped is None:
        return  # failed, with its reason
    if GridColumn.objects.filter(grid=grid).exclude(pk__in=[c.pk for c in columns]).exists():
        # Columns were added while it ran (a playbook applied to this grid): fill them too,
        # only the cells still missing, before the grid says it is done.
        _fill_claimed(grid, lease)
        return
    note = ""
    if skipped:
        note = (
            "Not filled, since not indexed when the grid ran: "
            + ", ".join(skipped)
            + ". Resume once they are indexed."
        )
    with transaction.atomic():
        # Done, with its counts afresh from the cells (as ``grid_recount``, under its lock).
        _lock_grids([grid.pk])
        lease.finish(note=note, finished_at=timezone.now(), **_cell_counts(grid))


def _spent(grid: Grid, usage: claude.Usage) -> None:
    """Add one document's Claude calls to the grid's totals (chunks add theirs side by side)."""
    if usage.calls:
        Grid.objects.filter(pk=grid.pk).update(
            llm_calls=F("llm_calls") + usage.calls, dollars=F("dollars") + usage.dollars
        )


def _fill_rows(
    grid: Grid, lease: jobs.Lease, rows: list[int], columns: list[GridColumn]
) -> list[str] | None:
    """Fill the missing cells of ``rows`` (document ids) under ``lease`` (the grid's, or one of
    its chunks'), a document at a time. Returns the documents it could not fill (not indexed),
    or None when it failed the lease with the reason (no API key, a spending cap, Claude)."""
    wanted = {c.pk: column_from_request(c.key, c.question, c.type) for c in columns}
    skipped: list[str] = []
    provider = None
    if grid.mode == Grid.Mode.CLAUDE:
        provider = get_provider()
        if provider is None:
            lease.fail(
                "Filling with Claude needs ANTHROPIC_API_KEY, which this server no longer has; "
                "make an offline grid, or resume once the key is set.",
                "llm",
            )
            return None
    have_all: dict[int, set[int]] = {}
    for document_id, column_id in Cell.objects.filter(grid=grid, document_id__in=rows).values_list(
        "document_id", "column_id"
    ):
        have_all.setdefault(document_id, set()).add(column_id)
    for document_id in rows:
        lease.check()
        todo = [c for c in columns if c.pk not in have_all.get(document_id, set())]
        if not todo:
            continue
        document = Document.objects.filter(pk=document_id).first()
        if document is None:
            continue  # deleted meanwhile: its row went with it
        if document.status != Document.Status.INDEXED or not document.text:
            skipped.append(f"{document.key} ({document.get_status_display().lower()})")
            continue
        if provider is not None:
            # The matter's (and the creator's) spending caps hold while the grid runs, and on
            # every resume: past one, the grid stops with the reason and keeps its cells.
            capped = spend_check(matter=grid.matter, user=grid.created_by)
            if capped is not None:
                lease.fail(
                    f"{capped.message} The grid stopped before {document.key}; its cells are "
                    "kept, and Resume goes on once the cap allows.",
                    "spend_capped",
                )
                return None
        # The slow part, outside any transaction: retrieval over the document and the filler.
        retriever = document_retriever(document)
        filled = fill_document(
            text=document.text, retriever=retriever, columns=[wanted[c.pk] for c in todo]
        )
        provisions = _Provisions(document)
        fallbacks: dict[str, str] = {}
        if provider is not None:
            usage = claude.Usage(user_id=grid.created_by_id)
            try:
                by_claude = claude.fill_document_claude(
                    document=document,
                    retriever=retriever,
                    columns=[wanted[c.pk] for c in todo],
                    offline=filled,
                    lookup=claude.NodeLookup(
                        provisions.node_for, provisions.text_of, provisions.nodes
                    ),
                    provider=provider,
                    usage=usage,
                )
            except LLMError as exc:
                _spent(grid, usage)
                lease.fail(
                    f"Claude could not be reached while filling {document.key} ({exc}); the "
                    "cells written so far are kept. Resume to go on.",
                    "llm",
                )
                return None
            _spent(grid, usage)
            filled, fallbacks = by_claude.cells, by_claude.fallbacks
        new = [
            cell_row(grid=grid, column=c, document=document, filled=f, provisions=provisions)
            for c, f in zip(todo, filled, strict=True)
        ]
        for c, row in zip(todo, new, strict=True):
            if c.key in fallbacks:
                row.searched = (f"{fallbacks[c.key]}; {OFFLINE_SHOWN}. {row.searched}")[:4000]
        lease.check()
        _write_cells(grid, lease, document_id, new)
    return skipped


def _write_cells(grid: Grid, lease: jobs.Lease, document_id: int, new: list[Cell]) -> None:
    """One document's cells, in a short transaction while this worker still holds the grid (or
    its chunk); a cell that exists meanwhile (reviewed, or written by a worker that took over)
    is kept. The grid's counts go up by the cells written (``_count``), not by a recount."""
    with transaction.atomic():
        if not lease.mine().select_for_update().exists():
            lease.lost = True
            raise jobs.JobLost(f"{lease.spec.kind} {lease.pk} is no longer held by {lease.owner}")
        have = set(
            Cell.objects.filter(grid=grid, document_id=document_id).values_list(
                "column_id", flat=True
            )
        )
        written = Cell.objects.bulk_create([c for c in new if c.column_id not in have])
        _count(grid.pk, _counted(written), updated_at=timezone.now())


def grid_fill(*, grid_id: int, owner: str | None = None) -> Grid | None:
    """Fill the grid now, in this process (commands, tests); a failed or cancelled grid is put
    back first, so calling this again resumes it."""
    jobs.job_reset(jobs.spec_for(GRID), grid_id)
    grid_fill_job(grid_id, owner or jobs.new_owner())
    return Grid.objects.filter(pk=grid_id).first()


def grid_retry(*, grid: Grid, refill: bool = False) -> bool:
    """Send the grid to be filled again: a failed, cancelled or stalled one resumes (only the
    missing cells are filled); ``refill`` also clears the cells nobody has reviewed, so that they
    are filled afresh (a done grid can be refilled so). Reviewed cells are always kept. False
    when there is nothing to do (a worker is on it)."""
    spec = jobs.spec_for(GRID)
    with transaction.atomic():
        locked = Grid.objects.select_for_update().filter(pk=grid.pk).first()
        if locked is None:
            return False
        if locked.status in (Grid.Status.QUEUED, Grid.Status.RUNNING) and not jobs.is_stale(
            spec, locked
        ):
            return False  # being filled (by its chunks, say): nothing to resume
        # A fresh plan: the chunks of the last run have ended (cancelling a grid ends them).
        GridChunk.objects.filter(grid=grid).exclude(status__in=_OPEN_CHUNK).delete()
        if locked.status == Grid.Status.DONE:
            # A finished grid resumes only when it lacks cells (a playbook added columns).
            if not refill and Cell.objects.filter(grid=grid).count() >= locked.cells_total:
                return False
            moved = Grid.objects.filter(pk=grid.pk, status=Grid.Status.DONE).update(
                status=Grid.Status.QUEUED,
                attempts=0,
                error_message="",
                error_code="",
                note="",
                finished_at=None,
                updated_at=timezone.now(),
            )
            if not moved:
                return False
            jobs.enqueue_on_commit(GRID, grid.pk)
        elif not jobs.job_retry(spec, grid.pk, note="", finished_at=None):
            return False
        if refill:
            Cell.objects.filter(grid=grid, reviewed_status=Cell.Review.NONE).delete()
        # Counted afresh under the grid's lock (a refill deletes cells of every kind; a resume
        # is a good moment to drop any drift).
        Grid.objects.filter(pk=grid.pk).update(**_cell_counts(grid))
    return True


def grid_cancel(*, grid: Grid, by: str = "") -> bool:
    """Stop a queued or running grid, and its chunks; the cells written are kept. False when it
    had ended."""
    with transaction.atomic():
        if not jobs.job_cancel(jobs.spec_for(GRID), grid.pk, by=by):
            return False
        for chunk in GridChunk.objects.filter(grid=grid, status__in=_OPEN_CHUNK):
            jobs.job_cancel(jobs.spec_for(CHUNK), chunk.pk, by=by)
    return True


# --- the grid's counts ---------------------------------------------------------------------------
#
# The counts above a grid's table (``models.GRID_COUNTS``) are kept on its row as cells are
# written, reviewed and removed, each change an F() increment in the transaction that writes
# the cells, so that chunk workers writing side by side never lose one another's; and recounted
# from the cells when the grid finishes filling, so that drift cannot outlive a run. Every
# writer of them locks the grid's row before its cells' (or takes no cell lock): two writers
# never wait on each other in opposite order.


def _cell_counts(grid: Grid) -> dict[str, int]:
    """The grid's counts from its cells (one aggregate), as ``Grid`` fields."""
    # (Aliases are the Grid's field names, none of them a Cell field's: Django refuses those.)
    return Cell.objects.filter(grid=grid).aggregate(**_count_aggregates())


def _count_aggregates() -> dict[str, Count]:
    return {
        "cells_done": Count("id"),
        "n_found": Count("id", filter=Q(found=True)),
        "n_not_found": Count("id", filter=Q(found=False)),
        "n_low": Count("id", filter=LOW_CELLS),
        "n_reviewed": Count("id", filter=~Q(reviewed_status=Cell.Review.NONE)),
    }


def _counted(cells: Sequence[Cell]) -> dict[str, int]:
    """What ``cells`` (as written) add to their grid's counts."""
    return {
        "cells_done": len(cells),
        "n_found": sum(1 for c in cells if c.found),
        "n_not_found": sum(1 for c in cells if not c.found),
        "n_low": sum(1 for c in cells if c.low_confidence),
        "n_reviewed": sum(1 for c in cells if c.reviewed),
    }


def _count(grid_id: int, deltas: dict[str, int], **also: Any) -> None:
    """Add ``deltas`` to the grid's counts in the database (never below 0), with ``also``."""
    fields: dict[str, Any] = {
        name: F(name) + n if n > 0 else Greatest(F(name) + n, 0) for name, n in deltas.items() if n
    }
    if fields or also:
        Grid.objects.filter(pk=grid_id).update(**fields, **also)


def _lock_grids(grid_ids: Sequence[int]) -> None:
    """Lock the grids' rows (in key order), first of what a writer of their counts locks."""
    list(Grid.objects.select_for_update().filter(pk__in=grid_ids).order_by("pk").values_list("pk"))


def grid_recount(*, grid: Grid) -> dict[str, int]:
    """Count the grid's cells afresh and store the counts on it (``models.GRID_COUNTS``): what
    a finished fill does, and what puts right a grid whose counts drifted. Under the grid's
    lock, so a review written meanwhile is neither lost nor counted twice. Returns the fields."""
    with transaction.atomic():
        _lock_grids([grid.pk])
        counts = _cell_counts(grid)
        Grid.objects.filter(pk=grid.pk).update(**counts)
    return counts


def document_cells_uncount(*, document_id: int) -> None:
    """Take a document that is being deleted out of every grid it is a row of: its cells out of
    the grid's counts, its row's cells out of ``cells_total``. Called (``receivers``) inside the
    transaction that deletes the document, with its rows and cells, just before it does."""
    rows = set(
        GridDocument.objects.filter(document_id=document_id).values_list("grid_id", flat=True)
    )
    grid_ids = sorted(
        rows | set(Cell.objects.filter(document_id=document_id).values_list("grid_id", flat=True))
    )
    if not grid_ids:
        return
    with transaction.atomic():
        _lock_grids(grid_ids)
        aggregates = _count_aggregates()
        gone: dict[int, dict[str, int]] = {}
        for row in (
            Cell.objects.filter(document_id=document_id, grid_id__in=grid_ids)
            .order_by()
            .values("grid_id")
            .annotate(**aggregates)
            .values_list("grid_id", *aggregates)
        ):
            gone[row[0]] = dict(zip(aggregates, row[1:], strict=True))
        columns = aggregate_by(GridColumn.objects.filter(grid_id__in=rows), "grid_id", Count("id"))
        for grid_id in grid_ids:
            also: dict[str, Any] = {}
            if columns.get(grid_id):
                also["cells_total"] = Greatest(F("cells_total") - columns[grid_id], 0)
            _count(grid_id, {name: -n for name, n in gone.get(grid_id, {}).items()}, **also)


# --- reviewing cells, saving columns -------------------------------------------------------------


def cell_review_write(*, cell: Cell, user: User, status: str, value: str = "") -> Cell:
    """Record a reviewer's verdict: ``confirmed`` (the value stands), ``corrected`` (with their
    own value) or ``none`` (undo). Kept by every later run of the grid."""
    if status not in Cell.Review.values:
        raise GridRejected("The review must be confirmed, corrected or none.", "status")
    value = value.strip()
    if status == Cell.Review.CORRECTED and not value:
        raise GridRejected("A correction needs the corrected value.", "value")
    if len(value) > 4000:
        raise GridRejected("A corrected value is at most 4000 characters.", "value")
    reviewed = status != Cell.Review.NONE
    with transaction.atomic():
        # The grid's row first, then the cell's (see "the grid's counts"): the review it had is
        # read under the lock, so two reviews of one cell at once count it once.
        _lock_grids([cell.grid_id])
        was = (
            Cell.objects.select_for_update()
            .filter(pk=cell.pk)
            .values_list("reviewed_status", flat=True)
            .first()
        )
        cell.reviewed_status = status
        cell.corrected_value = value if status == Cell.Review.CORRECTED else ""
        cell.reviewed_by = user if reviewed and getattr(user, "is_authenticated", False) else None  # type: ignore[assignment]
        cell.reviewed_at = timezone.now() if reviewed else None
        cell.save(
            update_fields=["reviewed_status", "corrected_value", "reviewed_by", "reviewed_at"]
        )
        # (A cell gone meanwhile, ``was`` None, has failed the save above.)
        _count(cell.grid_id, {"n_reviewed": int(reviewed) - int(was != Cell.Review.NONE)})
    return cell


def column_confirm_write(*, grid: Grid, column: GridColumn, user: User) -> list[int]:
    """Confirm every found, unreviewed cell of a column; the ids confirmed. The cells are
    locked as they are read, so a review written meanwhile is neither overwritten nor counted;
    the grid's count of reviewed cells goes up by the cells the update changed, in the same
    transaction (the caller's, with its audit row, when it has one)."""
    with transaction.atomic():
        _lock_grids([grid.pk])  # before the cells (see "the grid's counts")
        ids = list(
            Cell.objects.select_for_update()
            .filter(grid=grid, column=column, found=True, reviewed_status=Cell.Review.NONE)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        if ids:
            confirmed = Cell.objects.filter(pk__in=ids).update(
                reviewed_status=Cell.Review.CONFIRMED,
                corrected_value="",
                reviewed_by=user if getattr(user, "is_authenticated", False) else None,
                reviewed_at=timezone.now(),
            )
            _count(grid.pk, {"n_reviewed": confirmed})
    return ids


def saved_column_create(
    *, matter: Matter, user: User, key: str, question: str, type_: str
) -> SavedColumn:
    """Save (or update) the user's own column in the matter for later grids."""
    (spec,) = columns_check([ColumnSpec(key, question, type_)])
    column, _ = SavedColumn.objects.update_or_create(
        matter=matter,
        created_by=user,
        key=spec.key,
        defaults={"question": spec.question, "type": spec.type},
    )
    return column
