"""Optional Claude enrichment at indexing time: a one-sentence summary and keywords for each
clause, topic tags for the document.

Off by default (``LLM_ENRICH_ON_INDEX``), and only with Claude configured: the deterministic
enrichment of the parser (extractive summaries, tf-idf keywords, keyword topics) is always there
first, and this replaces it where Claude gives something usable. Every call writes its own
ledger row (purpose "enrichment", charged to the matter) through the provider, failures
included.

Enrichment never fails indexing. A failed or unreadable call leaves the deterministic values in
place, is logged, and is recorded on the ledger row, on the outcome and under
``Document.tags["enrichment"]``.

The calls run outside any transaction (STYLE.md rule 3); the results are written afterwards in
one short transaction that re-checks, under a row lock, that the document still holds the text
that was sent.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils import timezone

from legalnav.documents.models import Document, Node
from legalnav.llm.models import LLMCall
from legalnav.llm.prompts.enrichment import (
    ENRICH_MAX_TOPICS,
    ClauseEnrichment,
    PromptClause,
    clause_block,
    enrich_prompt,
    parse_enrichment,
)
from legalnav.llm.providers import Completion, LLMError, LLMProvider, get_provider
from legalnav.llm.tokens import count_tokens, encoder

logger = logging.getLogger(__name__)

# Input tokens of clause text per call (offline estimate). Large enough that a typical agreement
# takes a handful of calls, small enough that a reply for every clause fits MAX_OUTPUT_TOKENS.
BATCH_TOKENS = 12_000
# Clauses per call: bounds the reply, which grows with the number of clauses, not their length.
BATCH_NODES = 40
# A clause longer than this is cut (a summary of one sentence needs its opening, not 30 pages).
CLAUSE_TOKENS = 2_000
# Reply budget: a fixed part for the topics and the JSON frame, then a share per clause
# (a 35-word sentence, six keywords and the id come to well under this).
OUTPUT_BASE_TOKENS = 256
OUTPUT_TOKENS_PER_CLAUSE = 120
MAX_OUTPUT_TOKENS = 8_192
# A clause whose text, without its number and heading, is shorter than this is a heading-only
# stub ("2. Supply"): its extractive summary (the heading) is as good as any.
MIN_BODY_CHARS = 20


@dataclass
class EnrichOutcome:
    """What one enrichment run did. ``status`` is one of:

    - ``off``: LLM_ENRICH_ON_INDEX is not set; ``no_provider``: no ANTHROPIC_API_KEY;
    - ``nothing``: no clause worth sending; ``gone``/``stale``: the document was deleted or
      re-indexed while Claude worked, so nothing was written;
    - ``enriched``: every batch answered and was readable; ``partial``: some clauses kept their
      deterministic values (an unreadable reply, or a failure after earlier batches succeeded);
    - ``failed``: nothing usable came back (``error`` says why).
    """

    status: str
    batches: int = 0  # calls made (each has its ledger row)
    nodes_sent: int = 0
    nodes_enriched: int = 0
    topics: list[str] = field(default_factory=list)
    unknown_ids: list[str] = field(default_factory=list)  # ids Claude returned but was not sent
    unreadable_batches: int = 0  # replies with no usable JSON object
    error: str = ""
    call_ids: list[int] = field(default_factory=list)  # ledger rows of the successful calls


@dataclass(frozen=True, slots=True)
class EnrichClause:
    """A stored node as it will be sent: its row id, its prompt form, its estimated tokens."""

    pk: int
    prompt: PromptClause
    tokens: int


def document_llm_enrich(
    *,
    document: Document,
    batch_tokens: int | None = None,
    batch_nodes: int | None = None,
) -> EnrichOutcome:
    """Summaries, keywords and topic tags from Claude for an indexed document's stored nodes.

    Returns at once (``off``/``no_provider``) unless LLM_ENRICH_ON_INDEX is set and Claude is
    configured. Never raises: the indexing run that calls it goes on with the deterministic
    values whatever happens here. ``batch_tokens``/``batch_nodes`` override BATCH_TOKENS and
    BATCH_NODES.
    """
    if not settings.LLM_ENRICH_ON_INDEX:
        return EnrichOutcome("off")
    try:
        return _enrich(document, batch_tokens=batch_tokens, batch_nodes=batch_nodes)
    except Exception as exc:
        # An optional step: a bug here must not leave the document stuck in "indexing". The
        # provider has written the ledger row of any call that was in flight.
        logger.exception(
            "enrichment of document %s failed; the extractive summaries stay", document.pk
        )
        return EnrichOutcome("failed", error=f"{type(exc).__name__}: {exc}")


@dataclass
class _Replies:
    """What the replies gave so far: enrichments by node row id, and the topic votes."""

    found: dict[int, ClauseEnrichment] = field(default_factory=dict)
    topic_votes: Counter[str] = field(default_factory=Counter)
    topic_names: dict[str, str] = field(default_factory=dict)  # lower case -> as first given


def _enrich(
    document: Document, *, batch_tokens: int | None, batch_nodes: int | None
) -> EnrichOutcome:
    try:
        provider = get_provider()
    except ImproperlyConfigured as exc:  # a bad LLM_* setting: say so, but index anyway
        logger.error("enrichment of document %s skipped: %s", document.pk, exc)
        return EnrichOutcome("failed", error=str(exc))
    if provider is None:
        return EnrichOutcome("no_provider")

    digest = document.indexed_sha256
    clauses = _clauses(document)
    if not clauses:
        return EnrichOutcome("nothing")
    batches = enrich_batches(
        clauses,
        budget=batch_tokens if batch_tokens is not None else BATCH_TOKENS,
        most=batch_nodes if batch_nodes is not None else BATCH_NODES,
    )
    outcome = EnrichOutcome("enriched", nodes_sent=len(clauses))
    replies = _Replies()
    for number, batch in enumerate(batches, start=1):
        completion = _enrich_call(
            provider, document, batch, number=number, of=len(batches), outcome=outcome
        )
        if completion is None:
            break
        _take_reply(
            completion, batch, document=document, number=number, outcome=outcome, replies=replies
        )
    _settle(document, outcome, replies, sent=len(clauses))
    return _write(document, digest, replies.found, outcome, model=provider.model)


def _enrich_call(
    provider: LLMProvider,
    document: Document,
    batch: list[EnrichClause],
    *,
    number: int,
    of: int,
    outcome: EnrichOutcome,
) -> Completion | None:
    """Send batch ``number`` (of ``of``) and count the call on ``outcome``; None when it failed
    for good, which ends the run."""
    _note(document, f"Summarising clauses with Claude ({number} of {of})")
    prompt = enrich_prompt(
        doc_id=document.key,
        title=document.title,
        kind=document.kind,
        clauses=[c.prompt for c in batch],
    )
    try:
        completion = provider.complete(
            system=prompt.system,
            messages=prompt.messages,
            max_tokens=min(
                MAX_OUTPUT_TOKENS, OUTPUT_BASE_TOKENS + OUTPUT_TOKENS_PER_CLAUSE * len(batch)
            ),
            purpose=LLMCall.Purpose.ENRICHMENT,
            matter_id=document.matter_id,
        )
    except LLMError as exc:
        # The provider has already retried and written the error row. The service is down
        # or refuses us: the later batches would fare no better, so stop here.
        outcome.batches += 1
        outcome.error = str(exc)
        logger.warning(
            "enrichment of document %s stopped at batch %d of %d; the extractive summaries "
            "stay: %s",
            document.pk,
            number,
            of,
            exc,
        )
        return None
    outcome.batches += 1
    if completion.call_id is not None:
        outcome.call_ids.append(completion.call_id)
    return completion


def _take_reply(
    completion: Completion,
    batch: list[EnrichClause],
    *,
    document: Document,
    number: int,
    outcome: EnrichOutcome,
    replies: _Replies,
) -> None:
    """Read one batch's reply into ``replies``, noting on ``outcome`` an unreadable reply and
    node ids that were not sent."""
    by_id = {c.prompt.node_id: c.pk for c in batch}
    reply = parse_enrichment(completion.text, by_id)
    if not reply.readable:
        outcome.unreadable_batches += 1
        logger.warning(
            "enrichment of document %s: batch %d reply was not usable JSON (stop reason %s)",
            document.pk,
            number,
            completion.stop_reason,
        )
    for node_id in reply.unknown_ids:
        if node_id not in outcome.unknown_ids:
            outcome.unknown_ids.append(node_id)
    for node_id, enrichment in reply.clauses.items():
        replies.found[by_id[node_id]] = enrichment
    for topic in reply.topics:
        replies.topic_votes[topic.lower()] += 1
        replies.topic_names.setdefault(topic.lower(), topic)


def _settle(document: Document, outcome: EnrichOutcome, replies: _Replies, *, sent: int) -> None:
    """The run's topics, count and status once every batch is in."""
    if outcome.unknown_ids:
        logger.warning(
            "enrichment of document %s: ignored unknown node ids %s",
            document.pk,
            ", ".join(outcome.unknown_ids[:20]),
        )
    # Most-voted topics first; among equals, the order in which they first came back.
    outcome.topics = [
        replies.topic_names[t] for t, _ in replies.topic_votes.most_common(ENRICH_MAX_TOPICS)
    ]
    outcome.nodes_enriched = len(replies.found)
    if not replies.found and not outcome.topics:
        outcome.status = "failed"
        outcome.error = outcome.error or "no usable enrichment in the replies"
    elif outcome.error or outcome.unreadable_batches or len(replies.found) < sent:
        outcome.status = "partial"


def enrich_batches(
    clauses: Sequence[EnrichClause], *, budget: int, most: int
) -> list[list[EnrichClause]]:
    """Clauses in document order, cut into consecutive batches of at most ``most`` clauses and
    ``budget`` estimated tokens; a single clause over the budget travels alone."""
    batches: list[list[EnrichClause]] = []
    current: list[EnrichClause] = []
    used = 0
    for clause in clauses:
        if current and (used + clause.tokens > budget or len(current) >= most):
            batches.append(current)
            current, used = [], 0
        current.append(clause)
        used += clause.tokens
    if current:
        batches.append(current)
    return batches


def _clauses(document: Document) -> list[EnrichClause]:
    rows = (
        Node.objects.filter(document=document, is_toc_entry=False)
        .exclude(kind=Node.Kind.TOC)
        .order_by("order")
        .values_list("pk", "node_id", "ref", "heading", "text")
    )
    clauses: list[EnrichClause] = []
    for pk, node_id, ref, heading, text in rows:
        if len(_body(text, ref, heading)) < MIN_BODY_CHARS:
            continue
        prompt = PromptClause(
            node_id=node_id, text=_clip(text, CLAUSE_TOKENS), clause_ref=ref, heading=heading
        )
        clauses.append(
            EnrichClause(pk=pk, prompt=prompt, tokens=count_tokens(clause_block(prompt)))
        )
    return clauses


def _body(text: str, ref: str, heading: str) -> str:
    body = text.strip()
    for prefix in (ref, heading):
        if prefix and body.startswith(prefix):
            body = body[len(prefix) :].lstrip(" .:-–—\n")
    return body


def _clip(text: str, limit: int) -> str:
    tokens = encoder().encode(text, disallowed_special=())
    if len(tokens) <= limit:
        return text
    return encoder().decode(tokens[:limit]).rstrip() + " […]"


def _note(document: Document, note: str) -> None:
    """Show progress, and keep the indexing claim fresh while Claude works (a claim left
    untouched for STALE_CLAIM is taken over by another worker)."""
    Document.objects.filter(pk=document.pk, status=Document.Status.INDEXING).update(
        progress_note=note[:200], updated_at=timezone.now()
    )


def _write(
    document: Document,
    digest: str,
    found: dict[int, ClauseEnrichment],
    outcome: EnrichOutcome,
    *,
    model: str,
) -> EnrichOutcome:
    record = {
        "provider": LLMCall.Provider.CLAUDE.value,
        "model": model,
        "status": outcome.status,
        "nodes": outcome.nodes_enriched,
        "of": outcome.nodes_sent,
        "calls": outcome.batches,
    }
    if outcome.error:
        record["error"] = outcome.error[:500]
    with transaction.atomic():
        locked = Document.objects.select_for_update().filter(pk=document.pk).first()
        if locked is None:
            outcome.status = "gone"
            return outcome
        if locked.indexed_sha256 != digest:
            # Re-indexed from another file meanwhile: these summaries describe the old text.
            outcome.status = "stale"
            return outcome
        # Only nodes that still exist: a takeover of a stale claim may have replaced them.
        nodes = list(
            Node.objects.filter(document=locked, pk__in=found).only("pk", "summary", "keywords")
        )
        for node in nodes:
            enrichment = found[node.pk]
            if enrichment.summary:
                node.summary = enrichment.summary
            if enrichment.keywords:
                node.keywords = list(enrichment.keywords)
        Node.objects.bulk_update(nodes, ["summary", "keywords"], batch_size=500)
        tags = dict(locked.tags or {})
        if outcome.topics:
            tags["topics"] = list(outcome.topics)
        tags["enrichment"] = record
        Document.objects.filter(pk=locked.pk).update(tags=tags)
    document.tags = tags
    return outcome
