"""Precedent research over a matter of judgments: route, then answer by the route.

    route ─► simple:  listing (enumerate case cards) | retrieve → answer → validate
          ─► clarify: ask back with concrete options
          ─► deep:    plan → expand → supporting search → adverse search → select → analyse
                      → synthesise → validate

Every step writes a ``ResearchStep`` row (inputs, outputs, milliseconds, the LLM calls it made
and what they cost), so the whole trace can be shown and debugged. Offline every step is
deterministic; with Claude, routing, planning, stance and synthesis are calls, and a call that
fails or answers out of shape falls back to the offline step (the step says so). Slow work
(retrieval, LLM calls) runs outside transactions; the answer is written in one short one.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from legalnav.answers import citations, core
from legalnav.answers.models import (
    Answer,
    Citation,
    Question,
    ResearchEvidence,
    ResearchRun,
    ResearchStep,
)
from legalnav.core import jobs
from legalnav.llm import prompts
from legalnav.llm.providers import LLMError, get_provider
from legalnav.research import prompts as research_prompts
from legalnav.research.context import (
    ROUTE_MAX_TOKENS,
    MatterView,
    Result,
    Trace,
    load_matter,
    node_lookup,
    query_completion,
)
from legalnav.research.deep import answer_deep
from legalnav.research.router import (
    CLARIFY,
    DEEP,
    ROUTES,
    SIMPLE,
    Route,
    clarify_options,
    route_offline,
)
from legalnav.research.services import case_cards_refresh, case_cards_stale
from legalnav.research.simple import answer_simple
from legalnav.research.stance import NEUTRAL

logger = logging.getLogger(__name__)

# --- the entry point ------------------------------------------------------------------------


def research_answer(*, query: Question, lease: jobs.Lease) -> Question:
    """Answer a claimed query of a research matter; marks it answered or failed, only while
    ``lease`` still holds it."""
    started = time.perf_counter()
    provider = get_provider()
    ResearchRun.objects.filter(question=query).delete()  # a retry replaces the earlier trace
    run = ResearchRun.objects.create(question=query, route=SIMPLE)
    trace = Trace(run)
    try:
        with trace.step("load", matter=query.matter_id) as rec:
            # Cards an older card reader built (before an upgrade) are read again first, so
            # research never takes its stances from a reader the product has since replaced.
            reread = case_cards_refresh(matter=query.matter)
            m = load_matter(query.matter)
            rec.outputs = {
                "case_cards_reread": reread,
                # cards the present reader failed on, read as an older reader left them
                "case_cards_stale": case_cards_stale(matter=query.matter),
                "judgments": len(m.documents),
                "case_cards": len(m.cards),
                "passages": m.search.corpus.size,
            }
        if not m.documents:
            return _fail(query, lease, "This matter has no indexed judgments yet.")
        lease.check()
        route = _route(trace, query, m, provider)
        run.route, run.route_reason, run.routed_by = route.route, route.reason, route.routed_by
        run.options = route.options
        run.save(update_fields=["route", "route_reason", "routed_by", "options"])
        if route.route == CLARIFY:
            result = _clarify(route)
        elif route.route == DEEP:
            result = answer_deep(trace, query, m, route, provider)
        else:
            result = answer_simple(trace, query, m, provider)
    except LLMError as exc:
        return _fail(query, lease, str(exc))
    except jobs.PASS_THROUGH:
        raise
    except Exception as exc:  # a bug must not leave the query "running"; it stays retryable
        logger.exception("research for query %s failed", query.pk)
        return _fail(
            query,
            lease,
            f"The research could not be completed ({exc.__class__.__name__}); try again.",
        )
    lease.check()
    _save(query, lease, run, m, result, started)
    query.refresh_from_db()
    return query


def _fail(query: Question, lease: jobs.Lease, message: str) -> Question:
    lease.fail(message, "research")
    query.refresh_from_db()
    return query


# --- route ----------------------------------------------------------------------------------


def _matter_examples(m: MatterView) -> dict[str, list[str]]:
    counts: dict[str, int] = {}
    for v in m.views:
        for s in v.statutes:
            name = str(s.get("name", ""))
            if name:
                counts[name] = counts.get(name, 0) + 1
    statutes = [n for n, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]]
    cases = [v.case_name for v in m.views[:5]]
    return {"statutes": statutes, "cases": cases}


def _route(trace: Trace, query: Question, m: MatterView, provider: Any) -> Route:  # noqa: ANN401
    with trace.step("route", question=query.question, by="claude" if provider else "rules") as rec:
        examples = _matter_examples(m)
        offline = route_offline(query.question)
        if offline.route == CLARIFY and offline.asks_for != "side":
            offline.options = clarify_options(query.question, examples=examples)
        route = offline
        if provider is not None:
            prompt = research_prompts.research_route_prompt(
                question=query.question, statutes=examples["statutes"], cases=examples["cases"]
            )
            try:
                completion = query_completion(
                    provider, prompt, query=query, max_tokens=ROUTE_MAX_TOKENS, purpose="route"
                )
                route = _read_route(completion.text, completion.model) or offline
                if route is offline:
                    rec.status, rec.note = (
                        ResearchStep.Status.FALLBACK,
                        "unreadable route reply; rules used",
                    )
            except LLMError as exc:
                rec.status, rec.note = ResearchStep.Status.FALLBACK, f"{exc}; rules used"
        rec.outputs = route.as_dict() | {"rules_said": offline.route}
    return route


def _read_route(text: str, model: str) -> Route | None:
    data = prompts.parse_json_object(text)
    if not data or data.get("route") not in ROUTES:
        return None
    options = [str(o)[:300] for o in data.get("options") or [] if isinstance(o, str)][:4]
    if data["route"] == CLARIFY and not options:
        return None
    side = str(data.get("side") or "")
    return Route(
        route=data["route"],
        reason=str(data.get("reason") or "")[:500],
        options=options,
        routed_by=model,
        proposition=str(data.get("proposition") or "")[:1000],
        side=side if side in research_prompts.RESEARCH_SIDES else "",
    )


def _clarify(route: Route) -> Result:
    if route.asks_for == "side":
        lines = [
            "Which side do you act for? The same judgment supports one side and cuts against "
            "the other, so the research waits for it. Ask again as one of these:"
        ]
    else:
        lines = [
            f"This question is too ambiguous to research as asked ({route.reason}). "
            "Which of these do you mean?"
        ]
    lines += [f"{i}. {o}" for i, o in enumerate(route.options, 1)]
    return Result(
        "\n".join(lines), route.routed_by if route.routed_by != "rules" else "offline", "clarify"
    )


# --- save ----------------------------------------------------------------------------------


_MARKER = re.compile(r"\[(D\d+)(?::([^\]]+))?\]")


def _marker_part(citation: str, group: int) -> str:
    """The document key (1) or node id (2) of a removed citation marker ("" when absent)."""
    found = _MARKER.match(citation or "")
    return (found.group(group) or "") if found else ""


def _save(
    query: Question,
    lease: jobs.Lease,
    run: ResearchRun,
    m: MatterView,
    result: Result,
    started: float,
) -> None:
    validation = citations.validate(result.text, node_lookup(m), known=[query.question])
    pieces = [
        core.Piece(m.documents[p.doc], p.node_id(m) or "", p.start, p.end, p.score)
        for p in result.pieces
    ]
    removed = [
        # What the validator removed stays on record, flagged.
        Citation(
            document=None,
            node=None,
            doc_key=_marker_part(r["citation"], 1),
            node_ref=_marker_part(r["citation"], 2)[:200],
            quote=r["quotes"],
            valid=False,
            problem=f"removed: {r['problem']}"[:200],
            verdict="no_such_provision" if "no such" in r["problem"] else "quote_not_found",
        )
        for r in result.removed
    ]
    elapsed = int((time.perf_counter() - started) * 1000)

    def research_rows(answer: Answer, nodes: core.NodeRows) -> None:
        rank_in: dict[str, int] = {}
        rows = []
        for p, kept in zip(result.pieces, pieces, strict=True):
            bucket = p.bucket if result.kind == "brief" else NEUTRAL
            rank_in[bucket] = rank_in.get(bucket, 0) + 1
            rows.append(
                ResearchEvidence(
                    run=run,
                    bucket=bucket,
                    rank=rank_in[bucket],
                    document=kept.document,
                    node=nodes.get((kept.document.pk, kept.node_id)),
                    start=p.start,
                    end=p.end,
                    parent_start=p.parent[0] if p.parent[2] else p.start,
                    parent_end=p.parent[1] if p.parent[2] else p.end,
                    parent_label=p.parent[2],
                    score=p.score,
                    found_by=p.found_by[:20],
                    stance_source=(p.stance.source if p.stance else "")[:20],
                    reason=p.stance.reason if p.stance else p.found_by,
                    quote=p.stance.quote if p.stance else "",
                )
            )
        ResearchEvidence.objects.bulk_create(rows)
        ResearchRun.objects.filter(pk=run.pk).update(
            answer_kind=result.kind,
            proposition=result.proposition[:5000],
            side=result.side[:40],
            removed=result.removed,
            total_ms=elapsed,
            dollars=answer.dollars,
        )

    core.persist(
        query=query,
        lease=lease,
        outcome=core.Outcome(
            draft=core.Draft(
                text=result.text, answerer=result.answerer, context_text=result.context_text
            ),
            checks=list(validation.checks),
            validation=result.validation or validation.as_dict(),
            documents={d.key: d for d in m.documents},
            pieces=pieces,
            payload_chars=sum(p.end - p.start for p in result.pieces),
            mode_used=f"research:{run.route}:{result.kind}",
            extra_citations=removed,
            # What inject would have read: every judgment of the matter, whole.
            inject=core.InjectFigures(
                corpus_tokens=sum(core.document_tokens(d) for d in m.documents),
                question=query.question,
            ),
        ),
        more=research_rows,
    )
    logger.info(
        "research query %s (%s/%s) answered in %d ms", query.pk, run.route, result.kind, elapsed
    )
