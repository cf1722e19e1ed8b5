"""Reads for research answers: the route, the trace and the evidence buckets of a query (for the
answer page, the research command, the API and MCP)."""

from __future__ import annotations

from typing import Any

from legalnav.answers.models import Query, ResearchEvidence, ResearchRun

BUCKETS = ("supporting", "adverse", "neutral")


def research_run(*, query: Query) -> ResearchRun | None:
    return ResearchRun.objects.filter(query=query).first()


def research_evidence(*, run: ResearchRun) -> dict[str, list[ResearchEvidence]]:
    """The evidence of a research answer in its three buckets, in rank order."""
    out: dict[str, list[ResearchEvidence]] = {b: [] for b in BUCKETS}
    for ev in (
        ResearchEvidence.objects.filter(run=run)
        .select_related("document", "document__case_card", "node")
        .order_by("bucket", "rank")
    ):
        out.setdefault(ev.bucket, []).append(ev)
    return out


def research_report(*, query: Query) -> dict[str, Any]:
    """Everything about a research answer as plain data."""
    run = research_run(query=query)
    answer = getattr(query, "answer", None)
    if run is None:
        return {"query_id": query.pk, "route": None}
    evidence = research_evidence(run=run)

    def row(ev: ResearchEvidence) -> dict[str, Any]:
        card = getattr(ev.document, "case_card", None)
        return {
            "document": ev.document.key,
            "node": ev.node.node_id if ev.node else "",
            "case": card.case_name if card else ev.document.title,
            "decided": card.decided.isoformat() if card and card.decided else None,
            "outcome": card.outcome if card else "",
            "start": ev.start,
            "end": ev.end,
            "parent": ev.parent_label,
            "parent_start": ev.parent_start,
            "parent_end": ev.parent_end,
            "found_by": ev.found_by,
            "stance_source": ev.stance_source,
            "reason": ev.reason,
            "quote": ev.quote,
        }

    return {
        "query_id": query.pk,
        "matter_id": query.matter_id,
        "question": query.question,
        "route": run.route,
        "route_reason": run.route_reason,
        "routed_by": run.routed_by,
        "answer_kind": run.answer_kind,
        "options": run.options,
        "proposition": run.proposition,
        "side": run.side,
        "answer": answer.text if answer else "",
        "answerer": answer.answerer if answer else "",
        "validation": answer.validation if answer else {},
        "removed": run.removed,
        "evidence": {b: [row(ev) for ev in evidence.get(b, [])] for b in BUCKETS},
        "trace": [
            {
                "order": s.order,
                "name": s.name,
                "status": s.status,
                "ms": s.ms,
                "inputs": s.inputs,
                "outputs": s.outputs,
                "note": s.note,
                "llm_calls": s.llm_calls,
                "input_tokens": s.input_tokens,
                "output_tokens": s.output_tokens,
                "dollars": str(s.dollars),
            }
            for s in run.steps.all()
        ],
        "total_ms": run.total_ms,
        "dollars": str(run.dollars),
    }
