"""Answering a question in a matter: retrieve, answer (Claude or offline), validate every citation,
and account for what it cost. ``query_answer_job`` is the job the task runner runs (see
``legalnav.core.jobs``); it can run twice.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from legalnav.answers import citations, core, routing, snapshots
from legalnav.answers.jobs import QUESTION as QUESTION_JOB
from legalnav.answers.models import Question
from legalnav.answers.offline import Provision
from legalnav.core import jobs
from legalnav.documents.models import Node
from legalnav.documents.parsing.layout import tidy
from legalnav.documents.services import document_navindex
from legalnav.llm import prompts
from legalnav.llm.providers import LLMError, get_provider
from legalnav.matters.models import Matter
from legalnav.retrieval.engine import Hit, retrieve
from legalnav.retrieval.services import MatterRetriever, matter_retriever

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

# A question, or a statement of facts pasted whole for precedent research (AILA's longest is
# 5,748 characters; a long brief's facts run to several pages).
MAX_QUESTION_CHARS = 20_000
SCAN_MAX_TOKENS = 600
CONTEXT_WINDOW_TOKENS = core.CONTEXT_WINDOW_TOKENS


class QuestionRejected(ValueError):
    pass


def query_create(
    *, matter: Matter, user: User | None, question: str, mode: str = "auto", enqueue: bool = True
) -> Question:
    question = (question or "").strip()
    if not question:
        raise QuestionRejected("Type a question first.")
    if len(question) > MAX_QUESTION_CHARS:
        raise QuestionRejected(f"Questions are limited to {MAX_QUESTION_CHARS:,} characters.")
    if mode not in Question.Mode.values:
        raise QuestionRejected(
            f"Unknown mode “{mode}”; choose one of {', '.join(Question.Mode.values)}."
        )
    query = Question.objects.create(
        matter=matter,
        asked_by=user if getattr(user, "is_authenticated", False) else None,
        question=question,
        mode=mode,
    )
    if enqueue:
        jobs.enqueue_on_commit("question", query.pk)
    return query


def query_retry(*, query: Question) -> bool:
    """Put a failed, cancelled or stalled question back in the queue (the Retry button); False
    when there is nothing to retry (it is answered, or a worker is on it).

    The status goes back to "queued" at once, so the page polls instead of showing the old
    failure while the worker picks it up."""
    requeued = jobs.job_retry(QUESTION, query.pk)
    query.refresh_from_db()
    return requeued


def query_cancel(*, query: Question, by: str = "") -> bool:
    """Cancel a queued or running question; False when it had already ended."""
    cancelled = jobs.job_cancel(QUESTION, query.pk, by=by)
    query.refresh_from_db()
    return cancelled


_doc_tokens = core.document_tokens


def _provisions(mr: MatterRetriever, hits: list[Hit]) -> list[Provision]:
    return core.provisions(
        hits, mr.retriever.corpus.docs, [core.Source.of(d) for d in mr.documents]
    )


QUESTION = QUESTION_JOB


def query_answer(*, query_id: int, owner: str | None = None) -> Question | None:
    """Answer a queued question now, in this process (commands, tests); returns the row.

    A failed or cancelled question is put back first, so calling this again is a retry."""
    jobs.job_reset(QUESTION, query_id)
    query_answer_job(query_id, owner or jobs.new_owner())
    return Question.objects.filter(pk=query_id).first()


def query_answer_job(
    query_id: int, owner: str, reraise: tuple[type[BaseException], ...] = ()
) -> str:
    """The job: claim the question for ``owner``, answer it, and end it answered or failed.

    Safe to run twice: a second delivery finds it answered (or held by a live worker) and
    leaves. Every write after the claim is conditional on still holding it."""

    def work(lease: jobs.Lease) -> None:
        query = Question.objects.select_related("matter").get(pk=query_id)
        _answer_claimed(query, lease)

    outcome = jobs.run_claimed(QUESTION, query_id, owner=owner, work=work, reraise=reraise)
    if isinstance(outcome, jobs.Refusal):
        return outcome.reason
    row = Question.objects.filter(pk=query_id).values_list("status", flat=True).first()
    return row or "gone"


def _answer_claimed(query: Question, lease: jobs.Lease) -> None:
    answerer = routing.answerer_for(query.matter.kind)
    if answerer is not None:
        # A matter of judgments: routed precedent research (legalnav.research registers it).
        answerer(query=query, lease=lease)
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
    if mode == Question.Mode.INJECT and corpus_tokens > CONTEXT_WINDOW_TOKENS:
        lease.fail(
            f"Inject would put {corpus_tokens:,} tokens in context, more than the model's window "
            f"({CONTEXT_WINDOW_TOKENS:,}); ask in navembed or navindex mode.",
            "too_large",
        )
        return
    try:
        if mode == Question.Mode.AUTO and corpus_tokens > CONTEXT_WINDOW_TOKENS:
            mode = Question.Mode.NAVEMBED
        result = retrieve(
            mr.retriever, query.question, "navembed" if mode == "navembed" else mode, 10
        )
        lease.check()
        # A question that names none of several documents says where its evidence came from.
        sources = len(mr.documents) > 1 and not result.notes.get("targeted")
        draft = _draft(query, mr, result.hits, result.strategy, provider, sources=sources)
    except LLMError as exc:
        lease.fail(str(exc), "llm")
        return
    lease.check()
    validation = citations.validate(draft.text, _lookup(mr), known=[query.question])
    core.persist(
        query=query,
        lease=lease,
        outcome=core.Outcome(
            draft=draft,
            checks=list(validation.checks),
            validation=validation.as_dict(),
            documents={d.key: d for d in mr.documents},
            pieces=[_piece(mr, h) for h in result.hits],
            payload_chars=result.payload_chars,
            mode_used=result.strategy,
            inject=core.InjectFigures(corpus_tokens=corpus_tokens, question=query.question),
            scope=_scope(mr, result.notes),
        ),
    )
    logger.info(
        "query %s answered by %s in %.0f ms",
        query.pk,
        draft.answerer,
        (time.perf_counter() - started) * 1000,
    )


def _scope(mr: MatterRetriever, notes: dict[str, object]) -> dict[str, object]:
    """The documents retrieval was confined to because the question named them (with their
    families), for the answer page to say so; empty when it searched the whole matter."""
    positions = notes.get("targeted")
    if not isinstance(positions, list) or not positions:
        return {}
    named = notes.get("targeted_named")
    named = named if isinstance(named, list) else positions
    return {
        "documents": [
            {"id": mr.documents[i].pk, "key": mr.documents[i].key, "title": mr.documents[i].title}
            for i in positions
        ],
        "named": [mr.documents[i].key for i in named],
        "by": str(notes.get("targeted_by", "")),
    }


def _piece(mr: MatterRetriever, h: Hit) -> core.Piece:
    node_id = mr.retriever.corpus.docs[h.doc].nodes[h.node].node_id if h.node >= 0 else ""
    return core.Piece(mr.documents[h.doc], node_id, h.start, h.end, h.score)


def _draft(
    query: Question,
    mr: MatterRetriever,
    hits: list[Hit],
    strategy: str,
    provider: Any,  # noqa: ANN401
    *,
    sources: bool = False,
) -> core.Draft:
    inject = None
    provisions = _provisions(mr, hits)
    if strategy.endswith("inject"):
        inject = [core.Source.of(d).prompt_document() for d in mr.documents]
    elif provider is not None and strategy == "navindex":
        provisions = _scan_with_claude(query, mr, provider) or provisions
    return core.compose(
        question=query.question,
        provisions=provisions,
        provider=provider,
        inject=inject,
        # Offline, "inject" still has to point at provisions: quote the best passages.
        offline_provisions=lambda: _provisions(
            mr, retrieve(mr.retriever, query.question, "navembed", 10).hits
        ),
        matter_id=query.matter_id,
        query_id=query.pk,
        sources=sources,
    )


def _scan_with_claude(query: Question, mr: MatterRetriever, provider) -> list[Provision]:  # type: ignore[no-untyped-def]
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
