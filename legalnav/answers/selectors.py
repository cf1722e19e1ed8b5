"""Reads for the ask, answer, history, compare and memo pages. Every function takes a matter the
caller has already checked access to (``matters.access.matter_for``), and looks questions up
*within* that matter, so a question id from another matter is a 404, never a leak.

Nothing here marks text safe: answers and provisions come back as plain strings split into
segments (a citation marker, a highlighted phrase), and templates escape every one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import F, QuerySet
from django.db.models.functions import Substr

from legalnav.answers import snapshots
from legalnav.answers.citations import (
    ELIDED,
    MARKER,
    NO_SUCH,
    NOT_FOUND,
    UNQUOTED,
    VERIFIED,
    extract,
)
from legalnav.answers.core import CONTEXT_WINDOW_TOKENS
from legalnav.answers.models import Answer, Citation, Evidence, Question
from legalnav.core.lookup import row_or_404
from legalnav.documents.models import Document, Node
from legalnav.documents.parsing.layout import tidy
from legalnav.llm.models import LLMCall, totals_of
from legalnav.llm.prices import PriceCard, inject_crossover
from legalnav.matters.models import Matter

HISTORY_PAGE_SIZE = 25
EXCERPT_CHARS = 260
SNIPPET_CHARS = 700  # evidence passages are cut to this many characters for the panels
CONTEXT_CHARS = 320  # text shown before and after a cited provision in the side panel
MAX_PROVISION_NODES = 80  # sub-clauses of one cited provision shown in full
OFFLINE_HEADER = "Extractive answer (offline"
# Short labels for the answer page, the memo, the API and MCP (the long ones: VERDICTS).
VERDICT_LABELS = {
    VERIFIED: "verified verbatim",
    UNQUOTED: "cited, no quotation",
    NOT_FOUND: "quotation not found",
    ELIDED: "ellipsis changes the meaning",
    NO_SUCH: "no such provision",
}


# --- questions ------------------------------------------------------------------------------


def query_get(*, matter: Matter, query_id: object) -> Question:
    """The question with its answer (if any) and who asked, only if it belongs to ``matter``."""
    query = row_or_404(
        Question.objects.filter(matter=matter).select_related("answer", "asked_by"),
        query_id,
        "No such question.",
        missing="No such question in this matter.",
    )
    query.matter = matter  # already loaded: the report asks its kind
    return query


def answer_of(query: Question) -> Answer | None:
    try:
        return query.answer
    except Answer.DoesNotExist:
        return None


def recent_queries(*, matter: Matter, limit: int = 6) -> list[Question]:
    return list(
        Question.objects.filter(matter=matter)
        .select_related("asked_by")
        .only("id", "question", "mode", "status", "created_at", "asked_by__username")
        .order_by("-created_at", "-id")[:limit]
    )


def query_history(*, matter: Matter) -> QuerySet[Question]:
    """A matter's questions, newest first, each with its answer and asker in the same query."""
    return (
        Question.objects.filter(matter=matter)
        .select_related("answer", "asked_by")
        .defer("answer__crossover")
        .order_by("-created_at", "-id")
    )


def history_page(*, matter: Matter, page: str | int | None) -> Page:
    return Paginator(query_history(matter=matter), HISTORY_PAGE_SIZE).get_page(page)


def answer_excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """The answer in one line for the history table: citation markers and the offline
    answerer's header line left out (the answerer has its own column)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if lines and lines[0].startswith(OFFLINE_HEADER) and len(lines) > 1:
        lines = lines[1:]
    flat = MARKER.sub("", " ".join(lines))
    flat = re.sub(r"\s+", " ", flat).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def queries_for_compare(*, matter: Matter, ids: list[str]) -> tuple[Question, Question]:
    """Two questions of the matter, in the order given; 404 if either is not in it."""
    if len(ids) != 2 or ids[0] == ids[1]:
        raise ValueError("Choose exactly two different questions to compare.")
    return query_get(matter=matter, query_id=ids[0]), query_get(matter=matter, query_id=ids[1])


# --- the answer, split for display ----------------------------------------------------------


@dataclass(slots=True)
class Segment:
    """A run of answer text, or a citation marker (``citation`` set) that opens the panel."""

    text: str
    citation: Citation | None = None
    ok: bool = True
    problem: str = ""


def _citation_key(m: re.Match[str]) -> tuple[str, str]:
    if m.group(1):
        return m.group(1), m.group(2)[:200]
    return m.group(3), f"clause:{m.group(4)}"[:200]


def answer_paragraphs(*, text: str, citations: list[Citation]) -> list[list[Segment]]:
    """The answer as paragraphs of segments, each marker tied to the citation rows validation
    made for it (one row per quoted phrase, in marker order), so a failed quote flags its own
    marker and not every marker of the same provision."""
    by_key: dict[tuple[str, str], list[Citation]] = {}
    by_offset: dict[int, list[Citation]] = {}
    for c in citations:
        by_key.setdefault((c.doc_key, c.node_ref), []).append(c)
        if c.marker_start is not None:
            by_offset.setdefault(c.marker_start, []).append(c)
    # Older answers carry no marker offsets: validation walked the markers in this same order,
    # one row per quote or one without.
    per_marker = iter(extract(text) if not by_offset else ())
    queue = list(citations)
    paragraphs: list[list[Segment]] = []
    line_start = 0
    for line in text.split("\n"):
        segments: list[Segment] = []
        pos = 0
        for m in MARKER.finditer(line):
            if m.start() > pos:
                segments.append(Segment(line[pos : m.start()]))
            key = _citation_key(m)
            _, _, quotes = next(per_marker, ("", "", []))
            if by_offset:
                rows = by_offset.get(line_start + m.start(), [])
            else:
                rows = queue[: max(1, len(quotes))]
                if rows and all((r.doc_key, r.node_ref) == key for r in rows):
                    del queue[: len(rows)]
                else:  # rows out of step: fall back to the provision's rows
                    rows = by_key.get(key, [])
            bad = [r for r in rows if not r.valid]
            segments.append(
                Segment(
                    m.group(0),
                    citation=rows[0] if rows else None,
                    ok=bool(rows) and not bad,
                    problem=(bad[0].problem if bad else "" if rows else "not validated"),
                )
            )
            pos = m.end()
        if pos < len(line):
            segments.append(Segment(line[pos:]))
        paragraphs.append(segments)
        line_start += len(line) + 1
    return [p for p in paragraphs if any(s.text.strip() for s in p)]


def answer_citations(*, answer: Answer) -> list[Citation]:
    return list(
        Citation.objects.filter(answer=answer)
        .select_related("document", "node")
        .only(
            "id",
            "answer_id",
            "doc_key",
            "node_ref",
            "quote",
            "valid",
            "problem",
            "verdict",
            "marker_start",
            "snapshot",
            "cited_text",
            "cited_sha256",
            "order",
            "document__id",
            "document__title",
            "document__kind",
            "document__effective_date",
            "node__id",
            "node__node_id",
            "node__ref",
            "node__heading",
            "node__start",
            "node__subtree_end",
            "node__document_id",
            "node__order",
            "node__level",
            "node__kind",
        )
        .order_by("order")
    )


@dataclass(slots=True)
class CitedProvision:
    """One provision the answer cites (all its quotes together), for the list under the answer."""

    citation: Citation  # the first row: the panel opens from it
    quotes: list[tuple[str, bool]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def verdict(self) -> str:
        """The provision's weakest verdict: a failed check wins over "unquoted", which wins
        over "verified"."""
        for v in (NO_SUCH, NOT_FOUND, ELIDED, UNQUOTED, VERIFIED):
            if v in self.verdicts:
                return v
        return UNQUOTED if self.ok else NOT_FOUND

    @property
    def verdict_label(self) -> str:
        return VERDICT_LABELS.get(self.verdict, "")


def cited_provisions(citations: list[Citation]) -> list[CitedProvision]:
    out: dict[tuple[str, str], CitedProvision] = {}
    for c in citations:
        item = out.setdefault((c.doc_key, c.node_ref), CitedProvision(citation=c))
        if c.quote:
            item.quotes.append((c.quote, c.valid))
        if not c.valid and c.problem and c.problem not in item.problems:
            item.problems.append(c.problem)
        if c.verdict and c.verdict not in item.verdicts:
            item.verdicts.append(c.verdict)
    return list(out.values())


# --- evidence: supporting, adverse, neutral -------------------------------------------------

# Words by which a provision qualifies or cuts against another: an evidence passage the answer
# does not cite that carries one of them is put in the adverse panel, so that an exception is
# never buried among neutral context.
QUALIFIERS = re.compile(
    r"\b(notwithstanding|except(?:\s+(?:as|that|for))?|provided,?\s+(?:however|further|that)|"
    r"unless|in no event|shall not apply|save that|other than)\b",
    re.IGNORECASE,
)


@dataclass(slots=True)
class EvidenceRow:
    rank: int
    score: float
    document: Document
    node: Node | None
    snippet: str
    stance: str = "neutral"  # supporting | adverse | neutral
    reason: str = ""


@dataclass(slots=True)
class EvidenceBuckets:
    supporting: list[EvidenceRow] = field(default_factory=list)
    adverse: list[EvidenceRow] = field(default_factory=list)
    neutral: list[EvidenceRow] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.supporting) + len(self.adverse) + len(self.neutral)


def evidence_buckets(*, answer: Answer, citations: list[Citation]) -> EvidenceBuckets:
    """What retrieval put before the answerer, sorted by a stated rule, not by a model:
    *supporting* when the answer cites the provision (or one containing it); *adverse* when it
    does not, and the passage either qualifies (notwithstanding, except, provided that, unless…)
    or comes from an amendment or side letter of a cited document, which prevails over it;
    *neutral* otherwise."""
    cited_spans: dict[int, list[tuple[int, int]]] = {}
    cited_docs: set[int] = set()
    for c in citations:
        if c.valid and c.document_id:
            cited_docs.add(c.document_id)
        if c.valid and c.node is not None:
            cited_spans.setdefault(c.node.document_id, []).append(
                (c.node.start, c.node.subtree_end)
            )
    rows = (
        Evidence.objects.filter(answer=answer)
        .select_related("document", "node")
        .only(
            "id",
            "answer_id",
            "rank",
            "score",
            "start",
            "end",
            "text",
            "doc_title",
            "document__id",
            "document__title",
            "document__kind",
            "document__effective_date",
            "document__amends",
            "node__id",
            "node__node_id",
            "node__ref",
            "node__heading",
        )
        .annotate(passage=Substr("document__text", F("start") + 1, SNIPPET_CHARS))
        .order_by("rank")
    )
    buckets = EvidenceBuckets()
    for ev in rows:
        if ev.text:  # what the answerer saw, kept with the answer
            snippet = ev.text
        else:  # an answer from before passages were kept
            raw = (ev.passage or "")[: max(0, ev.end - ev.start)]  # type: ignore[attr-defined]
            snippet = tidy(raw) + (" …" if ev.end - ev.start > SNIPPET_CHARS else "")
        if ev.document is None:
            # The document was deleted since: the passage stays, under its old name.
            gone = Document(title=f"{ev.doc_title} (deleted since)", kind=Document.Kind.OTHER)
            gone.snapshot_key = ev.doc_key  # type: ignore[attr-defined]
            row = EvidenceRow(ev.rank, ev.score, gone, None, snippet)
            buckets.neutral.append(row)
            continue
        row = EvidenceRow(ev.rank, ev.score, ev.document, ev.node, snippet)
        spans = cited_spans.get(ev.document_id, [])
        if any(ev.start < end and start < ev.end for start, end in spans):
            row.stance, row.reason = "supporting", "cited in the answer"
            buckets.supporting.append(row)
            continue
        qualifier = QUALIFIERS.search(snippet)
        if ev.document.amends_id and ev.document.amends_id in cited_docs:
            row.stance = "adverse"
            row.reason = f"a {ev.document.get_kind_display().lower()} of a cited document"
        elif qualifier and cited_spans:
            row.stance, row.reason = "adverse", f"qualifies: “{qualifier.group(0)}”"
        if row.stance == "adverse":
            buckets.adverse.append(row)
        else:
            buckets.neutral.append(row)
    return buckets


# --- cost -----------------------------------------------------------------------------------


@dataclass(slots=True)
class CostPanel:
    calls: list[LLMCall]
    input_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    output_tokens: int
    dollars: Decimal
    estimated: bool  # offline tokenizer counts, not a provider's usage
    token_footprint: int
    context_tokens: int
    payload_chars: int
    inject_tokens: int
    inject_dollars: Decimal
    crossover_tokens: int  # the corpus size below which a warm inject is cheaper
    inject_cheaper: bool | None  # None: the answer was itself an inject
    verdict: str


def cost_panel(*, query: Question, answer: Answer) -> CostPanel:
    """The query's ledger rows summed (what it cost) beside what inject would cost on the same
    question, with the study's crossover verdict."""
    calls = list(
        LLMCall.objects.filter(query_id=query.pk)
        .only(
            "id",
            "created_at",
            "provider",
            "model",
            "purpose",
            "status",
            "input_tokens",
            "cache_write_tokens",
            "cache_read_tokens",
            "output_tokens",
            "estimated",
            "latency_ms",
            "dollars",
        )
        .order_by("created_at", "id")
    )
    totals = totals_of(calls)
    crossover: dict[str, Any] = answer.crossover or {}
    corpus = int(crossover.get("corpus_tokens", answer.inject_tokens) or 0)
    payload = int(crossover.get("payload_tokens", answer.context_tokens) or 0)
    threshold = int(inject_crossover(payload, PriceCard.from_settings()))
    cheaper: bool | None = bool(crossover.get("inject_cheaper", corpus < threshold))
    window = int(crossover.get("window_tokens", CONTEXT_WINDOW_TOKENS))
    if not corpus:
        cheaper = None
        verdict = (
            "No inject comparison was recorded with this answer (it predates the comparison, "
            "or nothing was read); re-ask it to see one."
        )
    elif corpus > window:
        cheaper = False
        verdict = (
            f"Inject cannot answer here at all: the matter's {corpus:,} tokens exceed the "
            f"model's context window ({window:,} tokens), so navigating is the only mode that "
            "fits; the inject figure above is what one pass over the whole matter would cost if "
            "it could."
        )
    elif query.mode_used.rsplit(":", 1)[-1] == "inject":
        # The answering context *was* the matter: there is no navigate payload to weigh it by.
        cheaper = None
        verdict = (
            f"This answer injected the whole matter ({corpus:,} tokens), so there is no navigate "
            "payload to weigh it against: inject stays the cheaper mode only while the matter is "
            "smaller than about ten times what navigating sends. Re-ask in navembed or navindex "
            "to see that payload and the verdict for this question."
        )
    elif cheaper:
        verdict = (
            f"Inject is the cheaper mode here: the matter's {corpus:,} tokens are below the "
            f"crossover of {threshold:,} (the answering payload of {payload:,} tokens × the "
            "input/cache-read price ratio), so a warm cached inject costs less per question."
        )
    else:
        verdict = (
            f"Navigating is the cheaper mode here: the matter's {corpus:,} tokens exceed the "
            f"crossover of {threshold:,} (the answering payload of {payload:,} tokens × the "
            "input/cache-read price ratio), so a cached inject would cost more per question."
        )
    return CostPanel(
        calls=calls,
        input_tokens=totals["input_tokens"],
        cache_write_tokens=totals["cache_write_tokens"],
        cache_read_tokens=totals["cache_read_tokens"],
        output_tokens=totals["output_tokens"],
        dollars=totals["dollars"],
        estimated=any(c.estimated for c in calls),
        token_footprint=answer.token_footprint,
        context_tokens=answer.context_tokens,
        payload_chars=answer.payload_chars,
        inject_tokens=answer.inject_tokens,
        inject_dollars=answer.inject_dollars,
        crossover_tokens=threshold,
        inject_cheaper=cheaper,
        verdict=verdict,
    )


# --- one cited provision, verbatim in its context ------------------------------------------

_QUOTE_CLASS = "[“”‘’\"'«»]"
_ELLIPSIS = re.compile(r"\.\.\.|…")


def phrase_pattern(phrase: str) -> re.Pattern[str] | None:
    """A pattern that finds ``phrase`` in provision text despite differences in spacing, case
    and quotation-mark style (the same leniency as citation validation)."""
    tokens = re.findall(r"\w+|[^\w\s]", phrase)
    if len(tokens) < 2:
        return None
    parts = [_QUOTE_CLASS if re.fullmatch(_QUOTE_CLASS, t) else re.escape(t) for t in tokens]
    return re.compile(r"\s*".join(parts), re.IGNORECASE)


def phrase_patterns(phrases: list[str]) -> list[re.Pattern[str]]:
    out = []
    for phrase in phrases:
        for piece in _ELLIPSIS.split(phrase.strip(" .")):
            pattern = phrase_pattern(piece.strip())
            if pattern is not None:
                out.append(pattern)
    return out


def highlight(text: str, patterns: list[re.Pattern[str]]) -> list[tuple[str, bool]]:
    """``text`` split into (piece, highlighted) runs where any pattern matches."""
    spans = sorted(m.span() for p in patterns for m in p.finditer(text) if m.end() > m.start())
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, pos = [], 0
    for start, end in merged:
        if start > pos:
            out.append((text[pos:start], False))
        out.append((text[start:end], True))
        pos = end
    if pos < len(text):
        out.append((text[pos:], False))
    return out or [("", False)]


@dataclass(slots=True)
class ProvisionLine:
    node: Node | snapshots.SnapNode
    depth: int
    runs: list[tuple[str, bool]]


@dataclass(slots=True)
class ProvisionContext:
    citation: Citation
    document: Document | snapshots.SnapDocument | None
    node: Node | snapshots.SnapNode | None
    ancestors: list[Node | snapshots.SnapNode] = field(default_factory=list)
    before: str = ""
    lines: list[ProvisionLine] = field(default_factory=list)
    after: str = ""
    truncated: bool = False
    quotes: list[tuple[str, bool]] = field(default_factory=list)
    found: bool = False  # a quoted phrase was located and highlighted
    problems: list[str] = field(default_factory=list)
    verdict: str = ""
    verdict_label: str = ""
    # Against the matter as it is now: same | changed | gone | unknown (no snapshot kept).
    state: str = "unknown"
    state_notes: list[str] = field(default_factory=list)
    current: Node | None = None  # the provision as it is now, to link to
    current_document_id: int | None = None


def _from_snapshot(
    ctx: ProvisionContext, snap: dict[str, Any], patterns: list[re.Pattern[str]]
) -> None:
    """Fill the panel from what was cited at answer time (never from the live document)."""
    doc, node = snap.get("document", {}), snap.get("node", {})
    ctx.document = snapshots.SnapDocument(
        key=doc.get("key", ""),
        title=doc.get("title", ""),
        kind=doc.get("kind", ""),
        effective_date=date.fromisoformat(doc["effective_date"])
        if doc.get("effective_date")
        else None,
        pk=ctx.citation.document_id,
    )
    ctx.node = snapshots.SnapNode(
        node_id=node.get("node_id", ""),
        ref=node.get("ref", ""),
        heading=node.get("heading", ""),
        kind=node.get("kind", ""),
        level=node.get("level", 0),
    )
    ctx.ancestors = [
        snapshots.SnapNode(a["node_id"], a.get("ref", ""), a.get("heading", ""), a.get("kind", ""))
        for a in snap.get("ancestors", [])
    ]
    ctx.lines = snapshot_lines(snap, patterns)
    ctx.truncated = bool(snap.get("truncated"))
    ctx.before, ctx.after = snap.get("before", ""), snap.get("after", "")


def citation_get(*, query: Question, citation_id: object) -> Citation:
    return row_or_404(
        Citation.objects.filter(answer__question=query)
        .select_related("document", "node")
        .defer("document__text"),
        citation_id,
        "No such citation.",
        missing="No such citation in this answer.",
    )


def _resolve_node(citation: Citation) -> Node | None:
    if citation.node is not None:
        return citation.node
    if citation.document is None or not citation.node_ref.startswith("clause:"):
        return None
    # A printed clause reference ("[D3] Clause 2.01(a)"), resolved as validation resolved it.
    return snapshots.resolve_node(citation.document, citation.node_ref)


def snapshot_lines(snap: dict[str, Any], patterns: list[re.Pattern[str]]) -> list[ProvisionLine]:
    """The provision's lines as a snapshot kept them (a citation's, a cell's), with
    ``patterns`` highlighted."""
    return [
        ProvisionLine(
            snapshots.SnapNode(
                ln["node_id"], ln.get("ref", ""), ln.get("heading", ""), ln.get("kind", "")
            ),
            ln.get("depth", 0),
            highlight(ln.get("text", ""), patterns),
        )
        for ln in snap.get("lines", [])
    ]


def provision_lines(
    *, node: Node, patterns: list[re.Pattern[str]]
) -> tuple[list[ProvisionLine], bool]:
    """The provision and its sub-clauses, verbatim, one line per node, with phrases marked."""
    subtree = list(
        Node.objects.filter(
            document_id=node.document_id, order__gte=node.order, start__lt=node.subtree_end
        )
        .only("id", "node_id", "order", "level", "kind", "ref", "heading", "text", "start")
        .order_by("order")[: MAX_PROVISION_NODES + 1]
    )
    truncated = len(subtree) > MAX_PROVISION_NODES
    lines = [
        ProvisionLine(n, max(0, n.level - node.level), highlight(n.text, patterns))
        for n in subtree[:MAX_PROVISION_NODES]
    ]
    return lines, truncated


def provision_context(*, query: Question, citation: Citation) -> ProvisionContext:
    """The cited provision verbatim as it was when the answer was checked (its heading trail,
    the text just before and after it), every phrase the answer quoted from it highlighted, the
    verdict, and how the provision stands now (unchanged, changed since, or gone)."""
    same = [
        c
        for c in Citation.objects.filter(
            answer_id=citation.answer_id, doc_key=citation.doc_key, node_ref=citation.node_ref
        ).only("id", "quote", "valid", "problem", "verdict")
    ]
    ctx = ProvisionContext(citation=citation, document=citation.document, node=None)
    ctx.quotes = [(c.quote, c.valid) for c in same if c.quote]
    ctx.problems = sorted({c.problem for c in same if not c.valid and c.problem})
    item = cited_provisions(same)[0] if same else None
    if item is not None:
        ctx.verdict, ctx.verdict_label = item.verdict, item.verdict_label
    patterns = phrase_patterns([q for q, _ in ctx.quotes])
    snap = citation.snapshot or {}
    if snap:
        _from_snapshot(ctx, snap, patterns)
        ctx.found = any(marked for line in ctx.lines for _, marked in line.runs)
        standing = snapshots.status(
            snapshot=snap, document=citation.document, node_ref=citation.node_ref
        )
        ctx.state, ctx.state_notes, ctx.current = standing.state, standing.notes, standing.current
        ctx.current_document_id = citation.document_id if standing.current else None
        return ctx
    # An answer from before snapshots were kept: the provision as it is now.
    node = _resolve_node(citation)
    if node is None:
        return ctx
    ctx.node, ctx.current, ctx.current_document_id = node, node, node.document_id
    ctx.lines, ctx.truncated = provision_lines(node=node, patterns=patterns)
    ctx.found = any(marked for line in ctx.lines for _, marked in line.runs)
    ctx.ancestors = list(
        Node.objects.filter(
            document_id=node.document_id,
            start__lte=node.start,
            subtree_end__gte=node.subtree_end,
            level__lt=node.level,
        )
        .only("id", "node_id", "ref", "heading", "level", "kind")
        .order_by("level", "order")
    )
    ancestor_ids = {a.pk for a in ctx.ancestors}  # type: ignore[union-attr]
    before = (
        Node.objects.filter(document_id=node.document_id, order__lt=node.order)
        .exclude(pk__in=ancestor_ids)
        .only("id", "text")
        .order_by("-order")
        .first()
    )
    after = (
        Node.objects.filter(document_id=node.document_id, start__gte=node.subtree_end)
        .only("id", "text")
        .order_by("order")
        .first()
    )
    if before is not None:
        ctx.before = snapshots.tail(before.text, CONTEXT_CHARS)
    if after is not None:
        ctx.after = snapshots.head(after.text, CONTEXT_CHARS)
    return ctx


# --- the memo -------------------------------------------------------------------------------


@dataclass(slots=True)
class MemoProvision:
    number: int
    label: str  # "[D3:s13.2]"
    document: Document | snapshots.SnapDocument | None
    node: Node | snapshots.SnapNode | None
    lines: list[ProvisionLine]
    truncated: bool
    quotes: list[tuple[str, bool]]
    problems: list[str]
    verdict: str = ""
    verdict_label: str = ""
    state: str = "unknown"
    state_notes: list[str] = field(default_factory=list)


def memo_provisions(*, citations: list[Citation]) -> list[MemoProvision]:
    """Every provision the answer cites, verbatim with its sub-clauses as it was cited, in
    citation order; a citation that failed validation is listed with its problem rather than
    left out, and one whose provision has changed or gone since says so."""
    out = []
    for n, item in enumerate(cited_provisions(citations), 1):
        c = item.citation
        patterns = phrase_patterns([q for q, _ in item.quotes])
        ctx = ProvisionContext(citation=c, document=c.document, node=None)
        if c.snapshot:
            _from_snapshot(ctx, c.snapshot, patterns)
            standing = snapshots.status(
                snapshot=c.snapshot, document=c.document, node_ref=c.node_ref
            )
            ctx.state, ctx.state_notes = standing.state, standing.notes
        else:
            node = _resolve_node(c)
            if node is not None:
                ctx.node = node
                ctx.lines, ctx.truncated = provision_lines(node=node, patterns=patterns)
        out.append(
            MemoProvision(
                number=n,
                label=f"[{c.doc_key}:{c.node_ref}]",
                document=ctx.document,
                node=ctx.node,
                lines=ctx.lines,
                truncated=ctx.truncated,
                quotes=item.quotes,
                problems=item.problems,
                verdict=item.verdict,
                verdict_label=item.verdict_label,
                state=ctx.state,
                state_notes=ctx.state_notes,
            )
        )
    return out
