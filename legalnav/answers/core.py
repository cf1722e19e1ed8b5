"""The answering core, shared by contract answers, research briefs and evaluation runs:

    retrieve (the caller) → prompt → call Claude or extract offline → validate → persist

``compose`` builds the prompt (inject: the whole corpus; navigate: the retrieved provisions),
calls the provider or the offline extractive answerer, and returns a ``Draft``. ``persist``
writes an answer with its checked citations, the evidence put before the answerer and the cost
from the ledger, in one transaction that commits only while the job's lease still holds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from legalnav.answers import citations, snapshots
from legalnav.answers.models import Answer, Citation, Evidence, Question
from legalnav.answers.offline import Provision, answer_offline
from legalnav.core import jobs
from legalnav.core.attributes import from_attributes
from legalnav.documents.models import Document, Node
from legalnav.documents.parsing.layout import tidy
from legalnav.llm import prompts
from legalnav.llm.models import LLMCall
from legalnav.llm.prices import PriceCard, inject_is_cheaper
from legalnav.llm.providers import OfflineProvider, Usage
from legalnav.llm.tokens import count_tokens
from legalnav.retrieval.engine import Hit
from legalnav.retrieval.index import DocIndex

logger = logging.getLogger(__name__)

ANSWER_MAX_TOKENS = 1500


# --- compose: prompt → call or extract ---------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Draft:
    """What the answerer wrote, and what it was shown."""

    text: str
    answerer: str  # "offline" or the model
    context_text: str  # the whole prompt, for token counts
    usage: Usage | None = None  # the provider's usage when Claude answered
    call_id: int | None = None  # its ledger row


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """A document as a prompt names it: its key (D1...), title, kind and text."""

    key: str
    title: str
    kind: str
    text: str
    effective_date: date | None = None
    amends_key: str | None = None

    @classmethod
    def of(cls, doc: Document) -> Source:
        return from_attributes(cls, doc, amends_key=doc.amends.key if doc.amends_id else None)

    def prompt_document(self) -> prompts.PromptDocument:
        return from_attributes(
            prompts.PromptDocument, self, doc_id=self.key, effective_date=_iso(self.effective_date)
        )


def provisions(
    hits: Sequence[Hit], parsed: Sequence[DocIndex], sources: Sequence[Source]
) -> list[Provision]:
    """The retrieved ranges as provisions for a prompt: each with its document and clause."""
    out = []
    for h in hits:
        src = sources[h.doc]
        node = parsed[h.doc].nodes[h.node] if h.node >= 0 else None
        out.append(
            Provision(
                doc_key=src.key,
                doc_title=src.title,
                doc_kind=src.kind,
                effective_date=src.effective_date,
                node_id=node.node_id if node else "",
                ref=node.ref if node else "",
                heading=node.heading if node else "",
                text=h.text or tidy(src.text[h.start : h.end]),
                score=h.score,
                amends_key=src.amends_key,
            )
        )
    return out


def prompt_provision(p: Provision) -> prompts.PromptProvision:
    return from_attributes(
        prompts.PromptProvision,
        p,
        doc_id=p.doc_key,
        clause_ref=p.ref,
        title=p.heading,
        effective_date=_iso(p.effective_date),
    )


def _iso(value: date | None) -> str:
    return value.isoformat() if value else ""


def compose(
    *,
    question: str,
    provisions: list[Provision],
    provider: Any,  # noqa: ANN401 - a legalnav.llm.providers provider, or None offline
    inject: Sequence[prompts.PromptDocument] | None = None,
    offline_provisions: Callable[[], list[Provision]] | None = None,
    matter_id: int | None = None,
    query_id: int | None = None,
    sources: bool = False,
) -> Draft:
    """Answer ``question`` from the whole corpus (``inject``) or from ``provisions``.

    ``sources``: the matter holds several documents and the question named none of them, so
    the offline answer ends by saying which documents its evidence came from.

    Offline there is no model to read a whole corpus, so an inject answer quotes the best
    passages of ``offline_provisions()`` (a hybrid retrieval) instead. The call, or the offline
    tokenizer's estimate of it, lands in the ledger against ``matter_id`` / ``query_id``."""
    if inject is not None:
        prompt = prompts.inject_answer_prompt(documents=list(inject), question=question)
    else:
        prompt = prompts.navigate_answer_prompt(
            provisions=[prompt_provision(p) for p in provisions],
            question=question,
            sources=sources and provider is not None,  # the offline answerer adds its own line
        )
    context_text = prompt.text()
    if provider is None:
        if inject is not None and offline_provisions is not None:
            provisions = offline_provisions()
        text = answer_offline(question, provisions, sources=sources)
        if query_id is not None:
            OfflineProvider().record(
                purpose="answer",
                prompt_text=context_text,
                output_text=text,
                matter_id=matter_id,
                query_id=query_id,
            )
        return Draft(text=text, answerer="offline", context_text=context_text)
    completion = provider.complete(
        system=prompt.system,
        messages=prompt.messages,
        max_tokens=ANSWER_MAX_TOKENS,
        purpose=LLMCall.Purpose.ANSWER,
        matter_id=matter_id,
        query_id=query_id,
    )
    return Draft(
        text=completion.text.strip(),
        answerer=completion.model,
        context_text=context_text,
        usage=completion.usage,
        call_id=completion.call_id,
    )


# --- persist: the answer with its citations, evidence and cost --------------------------------


@dataclass(frozen=True, slots=True)
class Piece:
    """One passage put before the answerer, as it is kept with the answer."""

    document: Document
    node_id: str  # "" for a range outside any clause
    start: int
    end: int
    score: float


CONTEXT_WINDOW_TOKENS = 190_000  # inject is refused beyond this (the model's window, with room)
_TOKEN_COUNTS: dict[str, int] = {}  # content hash -> token count of the document text


def document_tokens(doc: Document) -> int:
    """The tokens a document's text puts in context (counted once per content, per process)."""
    key = doc.indexed_sha256 or doc.sha256
    if key not in _TOKEN_COUNTS:
        _TOKEN_COUNTS[key] = count_tokens(doc.text)
    return _TOKEN_COUNTS[key]


@dataclass(frozen=True, slots=True, kw_only=True)
class InjectFigures:
    """What inject would have read and cost on the same question (the cost panel's comparison)."""

    corpus_tokens: int
    question: str

    def as_fields(self, payload_tokens: int) -> dict[str, Any]:
        card = PriceCard.from_settings()
        dollars = (
            Decimal(self.corpus_tokens) * card.cache_read
            + Decimal(count_tokens(self.question)) * card.input
        ) / Decimal(1_000_000)
        return {
            "inject_tokens": self.corpus_tokens,
            "inject_dollars": dollars,
            "crossover": {
                "corpus_tokens": self.corpus_tokens,
                "payload_tokens": payload_tokens,
                "inject_cheaper": self.corpus_tokens <= CONTEXT_WINDOW_TOKENS
                and inject_is_cheaper(self.corpus_tokens, payload_tokens, card),
                "window_tokens": CONTEXT_WINDOW_TOKENS,
                "fits_window": self.corpus_tokens <= CONTEXT_WINDOW_TOKENS,
                "rule": "inject pays off only while corpus tokens < payload tokens × input "
                "price / cache-read price",
            },
        }


NodeRows = dict[tuple[int, str], Node]


@dataclass(slots=True, kw_only=True)
class Outcome:
    """Everything ``persist`` writes for one answer."""

    draft: Draft
    checks: list[citations.CitationCheck]
    validation: dict[str, Any]
    documents: dict[str, Document]  # by key: what the citations may point at
    pieces: list[Piece]
    payload_chars: int
    mode_used: str
    inject: InjectFigures | None = None
    extra_citations: list[Citation] = field(default_factory=list)  # e.g. removed by validation
    scope: dict[str, Any] = field(default_factory=dict)  # the documents a question named


def node_rows(wanted: Iterable[tuple[int, str]]) -> NodeRows:
    """The stored nodes for (document pk, node id) pairs, in one query."""
    wanted = {(d, n) for d, n in wanted if n}
    if not wanted:
        return {}
    return {
        (n.document_id, n.node_id): n
        for n in Node.objects.filter(
            document_id__in={d for d, _ in wanted}, node_id__in={i for _, i in wanted}
        ).only("id", "document_id", "node_id")
    }


def persist(
    *,
    query: Question,
    lease: jobs.Lease,
    outcome: Outcome,
    more: Callable[[Answer, NodeRows], None] | None = None,
) -> Answer:
    """Replace the question's answer with ``outcome`` and end the job answered, in one
    transaction; ``more`` writes what a kind of answer adds (a research trace's evidence).

    Only while ``lease`` still holds the question: a cancelled or taken-over job rolls the whole
    answer back instead of overwriting what the user sees."""
    totals = LLMCall.objects.filter(query_id=query.pk).totals()
    context_text = outcome.draft.context_text
    payload_tokens = count_tokens(context_text) if context_text else 0
    nodes = node_rows(
        [(p.document.pk, p.node_id) for p in outcome.pieces]
        + [
            (outcome.documents[c.doc_key].pk, c.node_id)
            for c in outcome.checks
            if c.doc_key in outcome.documents
        ]
    )
    inject = outcome.inject.as_fields(payload_tokens) if outcome.inject else {}
    with transaction.atomic():
        Answer.objects.filter(question=query).delete()  # a retry replaces the earlier answer
        answer = Answer.objects.create(
            question=query,
            text=outcome.draft.text,
            answerer=outcome.draft.answerer,
            validation=outcome.validation,
            payload_chars=outcome.payload_chars,
            context_tokens=payload_tokens,
            token_footprint=totals["token_footprint"],
            dollars=totals["dollars"],
            scope=outcome.scope,
            **inject,
        )
        rows = snapshots.citation_rows(
            answer=answer, checks=outcome.checks, documents=outcome.documents
        )
        for extra in outcome.extra_citations:
            extra.answer, extra.order = answer, len(rows)
            rows.append(extra)
        Citation.objects.bulk_create(rows)
        Evidence.objects.bulk_create(
            [
                Evidence(
                    answer=answer,
                    document=p.document,
                    node=nodes.get((p.document.pk, p.node_id)),
                    start=p.start,
                    end=p.end,
                    score=p.score,
                    rank=rank,
                    doc_key=p.document.key,
                    doc_title=p.document.title[:300],
                    node_ref=p.node_id[:200],
                    text=snapshots.evidence_text(p.document, p.start, p.end),
                )
                for rank, p in enumerate(outcome.pieces)
            ]
        )
        if more is not None:
            more(answer, nodes)
        if not lease.finish(
            mode_used=outcome.mode_used[:40], answered_at=timezone.now(), error_message=""
        ):
            raise jobs.JobLost(f"question {query.pk} was cancelled or taken over")
    return answer
