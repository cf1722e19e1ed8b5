"""Answering a question in a matter: retrieve, answer (Claude or offline), validate every citation,
and account for what it cost. ``query_answer_job`` is the job the task runner runs (see
``legalnav.core.jobs``); it can run twice.
"""

from __future__ import annotations

import logging
import time
from decimal import Decimal

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from legalnav.answers import citations, snapshots
from legalnav.answers.models import Answer, Citation, Evidence, Query
from legalnav.answers.offline import Provision, answer_offline
from legalnav.core import jobs
from legalnav.documents.models import Document, Node
from legalnav.documents.parsing.layout import tidy
from legalnav.documents.services import document_navindex
from legalnav.llm import prompts
from legalnav.llm.models import LLMCall
from legalnav.llm.prices import PriceCard, inject_is_cheaper
from legalnav.llm.providers import LLMError, OfflineProvider, get_provider
from legalnav.llm.tokens import count_tokens
from legalnav.matters.models import Matter
from legalnav.retrieval.engine import Hit, retrieve
from legalnav.retrieval.services import MatterRetriever, flush_index_cache, matter_retriever

logger = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 4000
ANSWER_MAX_TOKENS = 1500
SCAN_MAX_TOKENS = 600
CONTEXT_WINDOW_TOKENS = 190_000  # inject is refused beyond this (the model's window, with room)


class QueryRejected(ValueError):
    pass


def query_create(
    *, matter: Matter, user: object | None, question: str, mode: str = "auto", enqueue: bool = True
) -> Query:
    question = (question or "").strip()
    if not question:
        raise QueryRejected("Type a question first.")
    if len(question) > MAX_QUESTION_CHARS:
        raise QueryRejected(f"Questions are limited to {MAX_QUESTION_CHARS:,} characters.")
    if mode not in Query.Mode.values:
        raise QueryRejected(f"Unknown mode “{mode}”; choose one of {', '.join(Query.Mode.values)}.")
    query = Query.objects.create(
        matter=matter,
        asked_by=user if getattr(user, "is_authenticated", False) else None,
        question=question,
        mode=mode,
    )
    if enqueue:
        jobs.enqueue_on_commit("question", query.pk)
    return query


def query_retry(*, query: Query) -> bool:
    """Put a failed, cancelled or stalled question back in the queue (the Retry button); False
    when there is nothing to retry (it is answered, or a worker is on it).

    The status goes back to "queued" at once, so the page polls instead of showing the old
    failure while the worker picks it up."""
    requeued = jobs.job_retry(QUESTION, query.pk)
    query.refresh_from_db()
    return requeued


def query_cancel(*, query: Query, by: str = "") -> bool:
    """Stop a queued or running question; False when it had already ended."""
    cancelled = jobs.job_cancel(QUESTION, query.pk, by=by)
    query.refresh_from_db()
    return cancelled


_TOKEN_COUNTS: dict[str, int] = {}  # content hash -> token count of the document text


def _doc_tokens(doc: Document) -> int:
    key = doc.indexed_sha256 or doc.sha256
    if key not in _TOKEN_COUNTS:
        _TOKEN_COUNTS[key] = count_tokens(doc.text)
    return _TOKEN_COUNTS[key]


def _provisions(mr: MatterRetriever, hits: list[Hit]) -> list[Provision]:
    out = []
    for h in hits:
        doc = mr.documents[h.doc]
        corpus_doc = mr.retriever.corpus.docs[h.doc]
        node = corpus_doc.nodes[h.node] if h.node >= 0 else None
        out.append(
            Provision(
                doc_key=doc.key,
                doc_title=doc.title,
                doc_kind=doc.kind,
                effective_date=doc.effective_date,
                node_id=node.node_id if node else "",
                ref=node.ref if node else "",
                heading=node.heading if node else "",
                text=h.text or tidy(doc.text[h.start : h.end]),
                score=h.score,
                amends_key=doc.amends.key if doc.amends_id else None,
            )
        )
    return out


QUESTION = jobs.SPECS["question"]


def query_answer(*, query_id: int, owner: str | None = None) -> Query | None:
    """Answer a queued question now, in this process (commands, tests); returns the row.

    A failed or cancelled question is put back first, so calling this again is a retry."""
    jobs.job_reset(QUESTION, query_id)
    query_answer_job(query_id, owner or jobs.new_owner())
    return Query.objects.filter(pk=query_id).first()


def query_answer_job(
    query_id: int, owner: str, reraise: tuple[type[BaseException], ...] = ()
) -> str:
    """The job: claim the question for ``owner``, answer it, and end it answered or failed.

    Safe to run twice: a second delivery finds it answered (or held by a live worker) and
    leaves. Every write after the claim is conditional on still holding it."""
    lease = jobs.job_claim(QUESTION, query_id, owner=owner)
    if isinstance(lease, jobs.Refusal):
        return lease.reason
    with jobs.guard(lease, reraise=reraise):
        query = Query.objects.select_related("matter").get(pk=query_id)
        _answer_claimed(query, lease)
    row = Query.objects.filter(pk=query_id).values_list("status", flat=True).first()
    return row or "gone"


def _answer_claimed(query: Query, lease: jobs.Lease) -> None:
    if query.matter.kind == Matter.Kind.RESEARCH:
        # A matter of judgments: routed precedent research (legalnav.answers.research).
        from legalnav.answers.research.pipeline import research_answer

        research_answer(query=query, lease=lease)
        return
    started = time.perf_counter()
    provider = get_provider()
    try:
        mr = matter_retriever(matter=query.matter)
    except jobs.TRANSIENT:
        raise
    except Exception as exc:  # an embedding model that cannot load
        logger.exception("retrieval setup failed for query %s", query.pk)
        lease.fail(f"Retrieval could not start ({exc.__class__.__name__}).", "retrieval")
        return
    if not mr.documents:
        lease.fail("This matter has no indexed documents yet.", "no_documents")
        return
    lease.check()
    corpus_tokens = sum(_doc_tokens(d) for d in mr.documents)
    mode = query.mode
    if mode == Query.Mode.INJECT and corpus_tokens > CONTEXT_WINDOW_TOKENS:
        lease.fail(
            f"Inject would put {corpus_tokens:,} tokens in context, more than the model's window "
            f"({CONTEXT_WINDOW_TOKENS:,}); ask in navembed or navindex mode.",
            "too_large",
        )
        return
    try:
        if mode == Query.Mode.AUTO and corpus_tokens > CONTEXT_WINDOW_TOKENS:
            mode = Query.Mode.NAVEMBED
        result = retrieve(
            mr.retriever, query.question, "navembed" if mode == "navembed" else mode, 10
        )
        flush_index_cache()
        lease.check()
        text, answerer, context_text = _answer(query, mr, result.hits, result.strategy, provider)
    except LLMError as exc:
        lease.fail(str(exc), "llm")
        return
    lease.check()
    validation = citations.validate(text, _lookup(mr), known=[query.question])
    _save(
        query,
        lease,
        mr,
        result.hits,
        result.payload_chars,
        result.strategy,
        text,
        answerer,
        context_text,
        validation,
        corpus_tokens,
        started,
    )


def _answer(
    query: Query, mr: MatterRetriever, hits: list[Hit], strategy: str, provider
) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    provisions = _provisions(mr, hits)
    if strategy.endswith("inject"):
        documents = [
            prompts.PromptDocument(
                doc_id=d.key,
                title=d.title,
                text=d.text,
                kind=d.kind,
                effective_date=d.effective_date.isoformat() if d.effective_date else "",
            )
            for d in mr.documents
        ]
        prompt = prompts.inject_answer_prompt(documents=documents, question=query.question)
    else:
        if provider is not None and strategy == "navindex":
            provisions = _scan_with_claude(query, mr, provider) or provisions
        prompt = prompts.navigate_answer_prompt(
            provisions=[
                prompts.PromptProvision(
                    doc_id=p.doc_key,
                    node_id=p.node_id,
                    text=p.text,
                    clause_ref=p.ref,
                    title=p.heading,
                    doc_title=p.doc_title,
                    doc_kind=p.doc_kind,
                    effective_date=p.effective_date.isoformat() if p.effective_date else "",
                )
                for p in provisions
            ],
            question=query.question,
        )
    context_text = prompt.text()
    if provider is None:
        if strategy.endswith("inject"):
            # Offline, "inject" still has to point at provisions: quote the best passages.
            hybrid = retrieve(mr.retriever, query.question, "navembed", 10)
            provisions = _provisions(mr, hybrid.hits)
        text = answer_offline(query.question, provisions)
        OfflineProvider().record(
            purpose="answer",
            prompt_text=context_text,
            output_text=text,
            matter_id=query.matter_id,
            query_id=query.pk,
        )
        return text, "offline", context_text
    completion = provider.complete(
        system=prompt.system,
        messages=prompt.messages,
        max_tokens=ANSWER_MAX_TOKENS,
        purpose="answer",
        matter_id=query.matter_id,
        query_id=query.pk,
    )
    return completion.text.strip(), completion.model, context_text


def _scan_with_claude(query: Query, mr: MatterRetriever, provider) -> list[Provision]:  # type: ignore[no-untyped-def]
    """Navindex S1 with Claude: one call over the cached token-optimised indexes."""
    from legalnav.documents import navindex

    indices, valid = [], set()
    for doc in mr.documents:
        built = document_navindex(document=doc)
        indices.append(
            prompts.PromptIndex(
                doc_id=doc.key,
                title=doc.title,
                index_json=navindex.dumps_optimised(navindex.build_index(built)),
            )
        )
        for node_id in navindex.build_full(built)["provisions"]:
            valid.add((doc.key, node_id))
    prompt = prompts.navindex_scan_prompt(indices=indices, question=query.question)
    completion = provider.complete(
        system=prompt.system,
        messages=prompt.messages,
        max_tokens=SCAN_MAX_TOKENS,
        purpose="navindex_scan",
        matter_id=query.matter_id,
        query_id=query.pk,
    )
    chosen = prompts.parse_selections(completion.text, valid)
    by_key = {d.key: d for d in mr.documents}
    out = []
    for doc_key, node_id in chosen:
        doc = by_key[doc_key]
        node = Node.objects.filter(document=doc, node_id=node_id).first()
        if node is None:
            continue
        end = node.subtree_end if node.subtree_end - node.start <= 6000 else node.end
        out.append(
            Provision(
                doc.key,
                doc.title,
                doc.kind,
                doc.effective_date,
                node.node_id,
                node.ref,
                node.heading,
                tidy(doc.text[node.start : end]),
                1.0,
                doc.amends.key if doc.amends_id else None,
            )
        )
    return out


def _lookup(mr: MatterRetriever):  # type: ignore[no-untyped-def]
    by_key = {d.key: d for d in mr.documents}

    def lookup(doc_key: str, node_ref: str) -> str | None:
        doc = by_key.get(doc_key)
        if doc is None:
            return None
        node = snapshots.resolve_node(doc, node_ref)
        return snapshots.provision_text(doc, node) if node is not None else None

    return lookup


def _save(
    query,
    lease,
    mr,
    hits,
    payload_chars,
    strategy,
    text,
    answerer,
    context_text,
    validation,  # type: ignore[no-untyped-def]
    corpus_tokens,
    started,
) -> None:
    calls = LLMCall.objects.filter(query_id=query.pk)
    totals = calls.aggregate(
        dollars=Sum("dollars"),
        inp=Sum("input_tokens"),
        cw=Sum("cache_write_tokens"),
        cr=Sum("cache_read_tokens"),
    )
    footprint = sum(int(totals[k] or 0) for k in ("inp", "cw", "cr"))
    card = PriceCard.from_settings()
    payload_tokens = count_tokens(context_text) if context_text else 0
    question_tokens = count_tokens(query.question)
    # What inject would cost on the same question at warm steady state (corpus read from cache).
    inject_dollars = (
        Decimal(corpus_tokens) * card.cache_read + Decimal(question_tokens) * card.input
    ) / Decimal(1_000_000)
    by_key = {d.key: d for d in mr.documents}
    with transaction.atomic():
        Answer.objects.filter(query=query).delete()  # a retry replaces the earlier answer
        answer = Answer.objects.create(
            query=query,
            text=text,
            answerer=answerer,
            validation=validation.as_dict(),
            payload_chars=payload_chars,
            context_tokens=payload_tokens,
            token_footprint=footprint,
            dollars=totals["dollars"] or Decimal(0),
            inject_tokens=corpus_tokens,
            inject_dollars=inject_dollars,
            crossover={
                "corpus_tokens": corpus_tokens,
                "payload_tokens": payload_tokens,
                "inject_cheaper": inject_is_cheaper(corpus_tokens, payload_tokens, card),
                "rule": "inject pays off only while corpus tokens < payload tokens × input price / cache-read price",
            },
        )
        Citation.objects.bulk_create(
            snapshots.citation_rows(answer=answer, checks=validation.checks, documents=by_key)
        )
        wanted = {
            (mr.documents[h.doc].pk, mr.retriever.corpus.docs[h.doc].nodes[h.node].node_id)
            for h in hits
            if h.node >= 0
        }
        # One query for all evidence nodes, not one per hit.
        node_rows = {
            (n.document_id, n.node_id): n
            for n in Node.objects.filter(
                document_id__in={d for d, _ in wanted}, node_id__in={i for _, i in wanted}
            ).only("id", "document_id", "node_id")
        }
        evidence = []
        for rank, h in enumerate(hits):
            doc = mr.documents[h.doc]
            node_id = mr.retriever.corpus.docs[h.doc].nodes[h.node].node_id if h.node >= 0 else None
            node = node_rows.get((doc.pk, node_id)) if node_id else None
            evidence.append(
                Evidence(
                    answer=answer,
                    document=doc,
                    node=node,
                    start=h.start,
                    end=h.end,
                    score=h.score,
                    rank=rank,
                    doc_key=doc.key,
                    doc_title=doc.title[:300],
                    node_ref=(node_id or "")[:200],
                    text=snapshots.evidence_text(doc, h.start, h.end),
                )
            )
        Evidence.objects.bulk_create(evidence)
        # Only while this worker still holds the question: a cancelled or taken-over job
        # rolls the whole answer back instead of overwriting what the user sees.
        if not lease.finish(mode_used=strategy, answered_at=timezone.now(), error_message=""):
            raise jobs.JobLost(f"question {query.pk} was cancelled or taken over")
    logger.info(
        "query %s answered by %s in %.0f ms",
        query.pk,
        answerer,
        (time.perf_counter() - started) * 1000,
    )
