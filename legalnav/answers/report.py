"""The answer report: one typed account of a question and its answer — the text, every citation
with its verdict, the evidence in its three buckets, the cost beside inject's, and for research
answers the route and the trace.

Every door renders this one object: the answer page and the memo, the JSON API (these models are
its response schemas), MCP, and ``manage.py ask --json`` / ``research --json``. So the doors
cannot disagree about what legalnav said.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from legalnav.answers import selectors
from legalnav.answers.models import Answer, Citation, Question, ResearchEvidence, ResearchRun
from legalnav.answers.routing import SIDE_CHOICE_OPENING
from legalnav.core import jobs
from legalnav.core.attributes import from_attributes
from legalnav.documents.models import Document
from legalnav.matters.models import Matter

BUCKETS = ("supporting", "adverse", "neutral")


class DocumentRef(BaseModel):
    id: int | None = Field(description="null: deleted since (an old answer's evidence).")
    key: str = Field(description='The id used in navindex files and citations, e.g. "D12".')
    title: str

    @classmethod
    def of(cls, doc: Document) -> DocumentRef:
        """The reference to a document row; one deleted since the answer that names it (an old
        answer's evidence: no primary key now) keeps the key it had."""
        if doc.pk is None:
            return cls(id=None, key=getattr(doc, "snapshot_key", ""), title=doc.title)
        return cls(id=doc.pk, key=doc.key, title=doc.title)


class CitationOut(BaseModel):
    id: int = Field(description="The citation's id (the answer page's drill-down link).")
    doc_key: str
    node_ref: str
    document_id: int | None
    node_id: str | None
    quote: str
    valid: bool
    problem: str
    verdict: Literal["verified", "unquoted", "quote_not_found", "no_such_provision", ""] = Field(
        default="",
        description="verified: the quotation is word for word in the provision; unquoted: the "
        "provision exists, no quotation was given (weaker); quote_not_found; no_such_provision.",
    )
    cited_text: str = Field(
        default="",
        description="The provision as it was when the answer was checked (never changes).",
    )
    cited_sha256: str = ""


class EvidenceItem(BaseModel):
    rank: int
    score: float
    document: DocumentRef
    node_id: str | None
    ref: str
    heading: str
    snippet: str
    reason: str = Field(description="Why the passage is in its bucket.")
    # A research answer's passage of a judgment (empty otherwise):
    case: str = ""
    decided: str | None = None
    outcome: str = ""
    parent: str = Field(default="", description="The paragraph or section around the passage.")
    found_by: str = ""
    stance_source: str = Field(default="", description="rules, or the model that took the stance.")
    quote: str = ""


class EvidenceOut(BaseModel):
    sorted_by: Literal["rules", "stance"] = Field(
        default="rules",
        description="rules: a contract answer's passages sorted by a stated rule; stance: a "
        "research answer's judgments sorted by their stance on the proposition.",
    )
    supporting: list[EvidenceItem] = Field(
        description="Passages the answer cites (research: judgments for the proposition)."
    )
    adverse: list[EvidenceItem] = Field(
        description="Uncited passages that qualify a cited one or amend a cited document "
        "(research: judgments against the proposition)."
    )
    neutral: list[EvidenceItem]


class LedgerCall(BaseModel):
    purpose: str
    purpose_label: str
    model: str
    status: str
    input_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    output_tokens: int
    latency_ms: int
    dollars: str


class CostOut(BaseModel):
    calls: int
    input_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    output_tokens: int
    dollars: str = Field(description="Decimal dollars, from the ledger rows of this question.")
    estimated: bool = Field(description="Offline tokenizer counts, not a provider's usage.")
    token_footprint: int
    context_tokens: int
    payload_chars: int
    inject_tokens: int
    inject_dollars: str
    crossover_tokens: int
    inject_cheaper: bool | None = Field(
        description="Whether a warm cached inject would have cost less; null when the answer "
        "was itself an inject."
    )
    verdict: str
    ledger: list[LedgerCall] = Field(default_factory=list, description="The ledger rows summed.")


class ResearchStepOut(BaseModel):
    order: int
    name: str
    status: str
    ms: int
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    note: str
    llm_calls: list[int] = Field(description="The ledger rows of the calls this step made.")
    input_tokens: int
    output_tokens: int
    dollars: str


class ResearchOut(BaseModel):
    route: str = Field(description="simple, clarify or deep.")
    route_reason: str
    routed_by: str
    answer_kind: str
    options: list[str] = Field(description="The choices a clarify route offers.")
    asks_side: bool = Field(
        default=False,
        description="A clarify route that asks which side the lawyer acts for (each option is "
        "the question again for one side).",
    )
    proposition: str
    side: str
    removed: list[dict[str, str]] = Field(description="Citations validation removed.")
    trace: list[ResearchStepOut]
    total_ms: int
    dollars: str


class ScopeOut(BaseModel):
    documents: list[DocumentRef] = Field(
        description="The only documents searched: those the question named, with the "
        "agreements and amendments of their families."
    )
    named: list[str] = Field(description="The keys of the documents the question named.")
    by: str = Field(
        description='How it named them: "key" (e.g. D12) or "name" (title, parties, kind, date).'
    )


class AnswerOut(BaseModel):
    text: str
    answerer: str = Field(description='"offline" or the model that answered.')
    validation: dict[str, Any]
    citations: list[CitationOut]
    evidence: EvidenceOut
    cost: CostOut
    research: ResearchOut | None = Field(
        default=None, description="A research answer's route and trace; null otherwise."
    )
    scope: ScopeOut | None = Field(
        default=None,
        description="Where retrieval looked when the question named documents; null when it "
        "searched the whole matter.",
    )


class QuestionOut(BaseModel):
    id: int
    matter_id: int
    question: str
    mode: str
    mode_used: str
    status: Literal["queued", "running", "answered", "failed", "cancelled"]
    error: str | None
    error_code: str = Field(
        default="", description="Why it failed, for programs: queue_unavailable, timeout, llm ..."
    )
    stale: bool = Field(
        default=False, description="Queued or running, but no worker is on it: retry it."
    )
    created_at: datetime
    answered_at: datetime | None
    answer: AnswerOut | None = Field(description="Present once the status is answered.")


# --- building it ------------------------------------------------------------------------------


def dollars(value: Decimal | int | float) -> str:
    return format(Decimal(value).quantize(Decimal("0.00000001")), "f")


def query_report(query: Question, *, with_answer: bool = True) -> QuestionOut:
    """The question, and once answered its whole answer."""
    answer = None
    if with_answer and query.status == Question.Status.ANSWERED:
        found = selectors.answer_of(query)
        if found is not None:
            answer = answer_report(query=query, answer=found)
    return QuestionOut(
        id=query.pk,
        matter_id=query.matter_id,
        question=query.question,
        mode=query.mode,
        mode_used=query.mode_used,
        status=query.status,  # type: ignore[arg-type]
        error=query.error_message or None,
        error_code=query.error_code,
        stale=jobs.is_stale(jobs.spec_for("question"), query),
        created_at=query.created_at,
        answered_at=query.answered_at,
        answer=answer,
    )


def answer_report(
    *, query: Question, answer: Answer, citations: list[Citation] | None = None
) -> AnswerOut:
    if citations is None:
        citations = selectors.answer_citations(answer=answer)
    run = None
    if query.matter.kind == Matter.Kind.RESEARCH:  # only a research matter has a trace
        run = ResearchRun.objects.filter(question=query).first()
    research = _research(run) if run is not None else None
    if research is not None:
        evidence = _stance_buckets(run)  # type: ignore[arg-type]
    else:
        evidence = _rule_buckets(selectors.evidence_buckets(answer=answer, citations=citations))
    return AnswerOut(
        text=answer.text,
        answerer=answer.answerer,
        validation=answer.validation or {},
        citations=[_citation(c) for c in citations],
        evidence=evidence,
        cost=_cost(selectors.cost_panel(query=query, answer=answer)),
        research=research,
        scope=_scope(answer.scope, query.matter_id),
    )


def _scope(stored: dict[str, Any] | None, matter_id: int) -> ScopeOut | None:
    if not stored or not stored.get("documents"):
        return None
    ids = [d.get("id") for d in stored["documents"]]
    alive = set(
        Document.objects.filter(matter_id=matter_id, pk__in=[i for i in ids if i]).values_list(
            "pk", flat=True
        )
    )
    return ScopeOut(
        documents=[
            DocumentRef(
                id=d.get("id") if d.get("id") in alive else None, key=d["key"], title=d["title"]
            )
            for d in stored["documents"]
        ],
        named=list(stored.get("named", [])),
        by=str(stored.get("by", "")),
    )


def _citation(c: Citation) -> CitationOut:
    return from_attributes(CitationOut, c, id=c.pk, node_id=c.node.node_id if c.node else None)


def _evidence_item(row: selectors.EvidenceRow | ResearchEvidence, **details: Any) -> EvidenceItem:
    """An evidence row as the report gives it: its rank and score, its document and the node it
    sits in (if any), with what the kind of evidence adds (``details``)."""
    node = row.node
    return EvidenceItem(
        rank=row.rank,
        score=row.score,
        document=DocumentRef.of(row.document),
        node_id=node.node_id if node else None,
        ref=node.ref if node else "",
        heading=node.heading if node else "",
        **details,
    )


def _rule_buckets(buckets: selectors.EvidenceBuckets) -> EvidenceOut:
    def item(row: selectors.EvidenceRow) -> EvidenceItem:
        return _evidence_item(row, snippet=row.snippet, reason=row.reason)

    return EvidenceOut(
        sorted_by="rules",
        supporting=[item(r) for r in buckets.supporting],
        adverse=[item(r) for r in buckets.adverse],
        neutral=[item(r) for r in buckets.neutral],
    )


def _stance_buckets(run: ResearchRun) -> EvidenceOut:
    rows: dict[str, list[EvidenceItem]] = {b: [] for b in BUCKETS}
    for ev in (
        ResearchEvidence.objects.filter(run=run)
        .select_related("document", "document__case_card", "node")
        .order_by("bucket", "rank")
    ):
        rows.setdefault(ev.bucket, []).append(_stance_item(ev))
    return EvidenceOut(
        sorted_by="stance",
        supporting=rows["supporting"],
        adverse=rows["adverse"],
        neutral=rows["neutral"],
    )


def _stance_item(ev: ResearchEvidence) -> EvidenceItem:
    doc = ev.document
    card = getattr(doc, "case_card", None)
    text = doc.text[ev.start : ev.end]
    return _evidence_item(
        ev,
        snippet=" ".join(text.split())[: selectors.SNIPPET_CHARS],
        reason=ev.reason,
        case=card.case_name if card else doc.title,
        decided=card.decided.isoformat() if card and card.decided else None,
        outcome=card.outcome if card else "",
        parent=ev.parent_label,
        found_by=ev.found_by,
        stance_source=ev.stance_source,
        quote=ev.quote,
    )


def _cost(panel: selectors.CostPanel) -> CostOut:
    return from_attributes(
        CostOut,
        panel,
        calls=len(panel.calls),
        dollars=dollars(panel.dollars),
        inject_dollars=dollars(panel.inject_dollars),
        ledger=[
            from_attributes(
                LedgerCall, c, purpose_label=c.get_purpose_display(), dollars=dollars(c.dollars)
            )
            for c in panel.calls
        ],
    )


def _research(run: ResearchRun) -> ResearchOut | None:
    if not run.route:
        return None
    return from_attributes(
        ResearchOut,
        run,
        options=list(run.options or []),
        asks_side=run.route == "clarify"
        and bool(run.options)
        and all(str(o).startswith(SIDE_CHOICE_OPENING) for o in run.options),
        removed=list(run.removed or []),
        trace=[
            from_attributes(
                ResearchStepOut,
                s,
                inputs=s.inputs or {},
                outputs=s.outputs or {},
                dollars=dollars(s.dollars),
            )
            for s in run.steps.all()
        ],
        dollars=dollars(run.dollars),
    )


# --- the answer page's view of the report -----------------------------------------------------


@dataclass(slots=True)
class AnswerPage:
    """What the answer fragment shows: the report, with the answer's text cut into segments
    around its citation markers and the cited provisions with their quotations. ``answer`` and
    the panels are empty until the question is answered."""

    query: Question
    report: QuestionOut
    answer: AnswerOut | None = None
    paragraphs: list[list[selectors.Segment]] = field(default_factory=list)
    provisions: list[selectors.CitedProvision] = field(default_factory=list)

    @property
    def evidence(self) -> EvidenceOut | None:
        """The evidence buckets, or None when there is no evidence to show."""
        ev = self.answer.evidence if self.answer else None
        return ev if ev and (ev.supporting or ev.adverse or ev.neutral) else None

    @property
    def evidence_columns(self) -> list[tuple[str, list[EvidenceItem]]]:
        ev = self.answer.evidence if self.answer else None
        return [(b, getattr(ev, b)) for b in BUCKETS] if ev else []

    @property
    def cost(self) -> CostOut | None:
        return self.answer.cost if self.answer else None

    @property
    def scope(self) -> ScopeOut | None:
        return self.answer.scope if self.answer else None

    @property
    def research(self) -> ResearchOut | None:
        return self.answer.research if self.answer else None

    @property
    def stale(self) -> bool:
        """Open, but nobody is working on it (the page says so and offers Retry)."""
        return self.report.stale

    @property
    def done(self) -> bool:
        """Polling stops once the question has ended (answered, failed, cancelled) or has
        stalled: a page never polls forever."""
        return (
            self.query.status not in (Question.Status.QUEUED, Question.Status.RUNNING) or self.stale
        )

    @property
    def problems(self) -> list[str]:
        out = [
            f"{p.citation.doc_key}:{p.citation.node_ref}: {problem}"
            for p in self.provisions
            for problem in p.problems
        ]
        validation = self.answer.validation if self.answer is not None else {}
        out += [f"A quotation with no citation: “{q}”" for q in validation.get("unbound", [])]
        out += [f"No citation for: {s}" for s in validation.get("uncited", [])]
        return out

    @property
    def levels(self) -> list[tuple[str, str, int]]:
        """(verdict, label, how many citations) for the verdicts this answer has."""
        counts: dict[str, int] = {}
        for p in self.provisions:
            counts[p.verdict] = counts.get(p.verdict, 0) + 1
        labels = selectors.VERDICT_LABELS
        return [(v, labels[v], counts[v]) for v in labels if counts.get(v)]

    @property
    def cited_keys(self) -> set[str]:
        return {f"{p.citation.doc_key}:{p.citation.node_ref}" for p in self.provisions}


def answer_page(*, query: Question) -> AnswerPage:
    """The answer page's view of the question: its report, and the pieces the page links."""
    found = selectors.answer_of(query) if query.status == Question.Status.ANSWERED else None
    if found is None:
        return AnswerPage(query=query, report=query_report(query, with_answer=False))
    citations = selectors.answer_citations(answer=found)
    answer = answer_report(query=query, answer=found, citations=citations)
    report = query_report(query, with_answer=False).model_copy(update={"answer": answer})
    return AnswerPage(
        query=query,
        report=report,
        answer=answer,
        paragraphs=selectors.answer_paragraphs(text=found.text, citations=citations),
        provisions=selectors.cited_provisions(citations),
    )


@dataclass(slots=True)
class Comparison:
    left: AnswerPage
    right: AnswerPage
    both: list[str]
    only_left: list[str]
    only_right: list[str]


def answers_compare(*, matter: Matter, ids: list[str]) -> Comparison:
    a, b = selectors.queries_for_compare(matter=matter, ids=ids)
    left, right = answer_page(query=a), answer_page(query=b)
    lk, rk = left.cited_keys, right.cited_keys
    return Comparison(
        left=left,
        right=right,
        both=sorted(lk & rk),
        only_left=sorted(lk - rk),
        only_right=sorted(rk - lk),
    )
