"""The deep route: plan → expand → supporting search → adverse search → select → analyse →
synthesise → validate, each step a trace row. The adverse search runs on every deep query, and
selection gives the adverse bucket its own quota so adverse authority is never crowded out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from legalnav.answers.models import Question, ResearchStep
from legalnav.llm import prompts
from legalnav.llm.providers import LLMError
from legalnav.research import offline_brief
from legalnav.research import prompts as research_prompts
from legalnav.research.context import (
    ADVERSE_POOL,
    BRIEF_MAX_TOKENS,
    CANDIDATE_DEPTH,
    MAX_NEUTRAL,
    MAX_PER_BUCKET,
    MAX_PER_DOC,
    PLAN_MAX_TOKENS,
    STANCE_MAX_TOKENS,
    MatterView,
    Piece,
    Result,
    StepRecord,
    Trace,
    clean_quote,
    header_piece,
    offline_record,
    outcome_piece,
    passage_piece,
    piece_at,
    query_completion,
    search_mode,
    validate_result,
)
from legalnav.research.holding import Issue, issue_of, match_holdings
from legalnav.research.reading import read_question
from legalnav.research.router import Route
from legalnav.research.search import JudgmentHit
from legalnav.research.stance import (
    ADVERSE,
    NEUTRAL,
    SUPPORTING,
    Side,
    Stance,
    holding_stance,
    judgment_stance,
    treatment_stance,
)
from legalnav.retrieval.engine import rrf

# A small legal thesaurus: words a question uses, and the words judgments use for the same
# thing. Used by the offline expansion step.
THESAURUS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(pattern, re.I), words)
    for pattern, words in {
        r"\bdying declaration": "dying declaration statement of deceased before death section 32 Evidence Act",
        r"\bcheque": "dishonour of cheque section 138 Negotiable Instruments Act legally enforceable debt",
        r"\bbail\b": "bail anticipatory bail section 438 439 Code of Criminal Procedure",
        r"\bevict": "eviction tenant landlord bona fide requirement Rent Control Act",
        r"\bdowry": "dowry death section 304B cruelty section 498A Indian Penal Code",
        r"\bcircumstantial": "circumstantial evidence chain of circumstances complete last seen together",
        r"\b(?:departmental|disciplinary) (?:inquiry|enquiry|proceedings)": "disciplinary proceedings enquiry officer report natural justice reasonable opportunity",
        r"\bdetention\b": "preventive detention detenu representation delay Article 22",
        r"\bacquittal": "appeal against acquittal reversal of acquittal two views possible",
        r"\bconfession": "confession confessional statement section 25 24 Evidence Act police officer",
        r"\bmurder\b|\b302\b": "murder section 302 Indian Penal Code culpable homicide",
        r"\bfirearm|\barms\b": "Arms Act licence firearm possession",
        r"\bissue estoppel": "issue estoppel res judicata previous acquittal",
        r"\bdismiss(?:ed|al) (?:from service|employee|officer)|\bdismissed\b.*\b(?:employee|officer|workman)": "dismissal from service misconduct",
        r"\brefund\b": "refund of tax illegally collected writ Article 226",
    }.items()
]
_ADVERSE_WORDS = {
    "accused": "conviction upheld appeal dismissed guilt proved beyond reasonable doubt",
    "state": "acquittal upheld benefit of doubt appeal dismissed prosecution failed",
    "employee": "dismissal upheld misconduct proved no prejudice",
    "employer": "dismissal set aside reinstatement back wages violation of natural justice",
    "tenant": "eviction ordered bona fide requirement proved",
    "landlord": "eviction refused tenant protected",
    "assessee": "tax payable demand upheld",
    "revenue": "refund ordered demand quashed",
}


@dataclass(slots=True)
class Plan:
    proposition: str
    side: Side
    issues: list[str]
    queries: list[str]
    adverse_queries: list[str]
    by: str = "rules"
    # What a judgment must decide to be authority here (matched against its holdings).
    issue: Issue = Issue("", "")


def _acting_for(side: Side) -> str:
    """Who the brief is for, in words ("an accused appellant"); "" when the question did not say."""
    return side.describe() if side.known else ""


def _plan_offline(question: str, route: Route) -> Plan:
    reading = read_question(question)
    side = reading.side
    if not side.known and route.side:
        side = Side(route.side, "router", label=route.side)
    proposition = " ".join((route.proposition or reading.proposition or question).split())
    issues = sorted(
        {
            m.group(0)
            for m in re.finditer(
                r"\b(?:section|s\.|article)\s*\d+[A-Z]?\b[^,.;]{0,40}?(?:Act|Code|IPC)?",
                question,
                re.I,
            )
        }
    )
    adverse = _ADVERSE_WORDS.get(side.role, "appeal dismissed contention rejected")
    issue = issue_of(question, proposition, reading.proposition_from)
    if not issue.text:
        # A long statement of facts that asks only for a brief: what the reader took for a
        # proposition is the story or the request, so it is neither shown nor searched for.
        return Plan(
            proposition=NOT_STATED,
            side=side,
            issues=issues[:4],
            queries=[question],
            adverse_queries=[f"{question} {adverse}"],
            issue=issue,
        )
    return Plan(
        proposition=proposition,
        side=side,
        issues=issues[:4],
        queries=[question] + ([proposition] if proposition != question else []),
        adverse_queries=[f"{proposition} {adverse}"],
        issue=issue,
    )


NOT_STATED = (
    "not stated (the question sets out facts and asks for a brief, so each judgment's stance "
    "comes from its outcome for your side, not from a holding on a stated issue)"
)


def answer_deep(
    trace: Trace, query: Question, m: MatterView, route: Route, provider: Any
) -> Result:  # noqa: ANN401
    question = query.question
    plan = _plan_step(trace, query, route, provider)  # 1. plan
    queries = _expand_step(trace, question, plan)  # 2. expand
    mode = search_mode(m)
    # 3. supporting search: the plan's queries state the issue; the expansion only widens
    main = _support_search_step(trace, m, queries=queries, mode=mode, issue=len(plan.queries))
    # 4. adverse search: always run on a deep query
    by_query, screened, weakening = _adverse_search_step(trace, m, plan=plan, main=main, mode=mode)
    # 5. select
    with trace.step("select", per_bucket=MAX_PER_BUCKET, per_document=MAX_PER_DOC) as rec:
        pieces = _select(m, plan, main, by_query, screened, weakening)
        rec.outputs = _bucket_summary(m, pieces)
    # 6. analyse
    with trace.step("analyse", by="claude" if provider else "rules", passages=len(pieces)) as rec:
        moves = (
            _analyse_claude(rec, query, m, plan, pieces, provider) if provider is not None else []
        )
        rec.outputs.update(
            {
                "moves": moves,
                "evidence_ids": [
                    {"evidence": f"E{i}", "document": p.key(m), "node": p.node_id(m)}
                    for i, p in enumerate(pieces, 1)
                ],
                **_bucket_summary(m, pieces),
            }
        )
    # 7. synthesise
    with trace.step("synthesise", by="claude" if provider else "offline") as rec:
        text, answerer, context = _synthesise(query, m, plan, pieces, provider)
        rec.outputs = {"answer_chars": len(text)}
    # 8. validate
    result = Result(
        text, answerer, "brief", pieces, context, plan.proposition, _acting_for(plan.side)
    )
    with trace.step("validate", citations=len(re.findall(r"\[D\d+:", text))) as rec:
        validate_result(m, result, question=query.question)
        rec.outputs = {"removed": result.removed, "validation": result.validation}
    return result


def _plan_step(trace: Trace, query: Question, route: Route, provider: Any) -> Plan:  # noqa: ANN401
    """The plan: the rules' one, replaced by Claude's where a provider answers readably."""
    with trace.step("plan", question=query.question, by="claude" if provider else "rules") as rec:
        plan = _plan_offline(query.question, route)
        if provider is not None:
            plan = _plan_claude(rec, query, plan, provider)
        rec.outputs = {
            "proposition": plan.proposition,
            "side": plan.side.role,
            "side_from": plan.side.evidence,
            "issues": plan.issues,
            "queries": plan.queries,
            "adverse_queries": plan.adverse_queries,
        }
    return plan


def _expand_step(trace: Trace, question: str, plan: Plan) -> list[str]:
    """The plan's queries, and one more with the thesaurus's words for what the question says."""
    with trace.step("expand", queries=plan.queries) as rec:
        added = [words for rx, words in THESAURUS if rx.search(question)]
        queries = list(plan.queries)
        if added:
            stated = plan.proposition if plan.issue.text else question
            queries.append(f"{stated} {' '.join(added)}")
        rec.outputs = {"thesaurus": added, "queries": queries}
    return queries


def _support_search_step(
    trace: Trace, m: MatterView, *, queries: list[str], mode: str, issue: int
) -> list[JudgmentHit]:
    """The main search: the judgments the queries find, fused, deep enough for the adverse
    screen."""
    with trace.step("support_search", queries=queries, mode=mode, depth=CANDIDATE_DEPTH) as rec:
        main = _fused_judgments(m, queries, mode, ADVERSE_POOL, issue_queries=issue)
        floor = on_the_issue(main)
        rec.outputs = {
            "judgments": [
                {
                    "document": m.documents[h.doc].key,
                    "case": m.name(h.doc),
                    "score": round(h.score, 5),
                    "best": {k: round(v, 4) for k, v in h.best.items()},
                    "relevant": h.doc in floor,
                }
                for h in main[:CANDIDATE_DEPTH]
            ]
        }
    return main


def _adverse_search_step(
    trace: Trace, m: MatterView, *, plan: Plan, main: list[JudgmentHit], mode: str
) -> tuple[list[JudgmentHit], list[JudgmentHit], list[tuple[int, int, str]]]:
    """Adverse authority three ways: the adverse queries' own search, the main pool screened
    for adverse outcomes, and judgments that treat the main pool's authority adversely."""
    with trace.step("adverse_search", queries=plan.adverse_queries, side=plan.side.role) as rec:
        by_query = _fused_judgments(m, plan.adverse_queries, mode, CANDIDATE_DEPTH)
        screened = [
            h
            for h in main[:ADVERSE_POOL]
            if judgment_stance(plan.side, m.facts(h.doc)).bucket == ADVERSE
        ]
        weakening = _weakening_citers(m, [h.doc for h in main[:CANDIDATE_DEPTH]])
        rec.outputs = {
            "by_adverse_query": [m.documents[h.doc].key for h in by_query[:15]],
            "adverse_outcome_in_main_pool": [m.documents[h.doc].key for h in screened],
            "treat_our_authority_adversely": [
                {"citing": m.documents[c].key, "cited": m.documents[t].key, "cue": cue}
                for c, t, cue in weakening
            ],
        }
    return by_query, screened, weakening


def _fused_judgments(
    m: MatterView, queries: list[str], mode: str, k: int, *, issue_queries: int = 1
) -> list[JudgmentHit]:
    """Judgments for several queries at once: each query's judgment ranking fused by RRF. The
    first ``issue_queries`` state the issue (the question, the proposition: the plan's), so a
    judgment is on the issue when it passes the relevance floor for any one of them; the
    queries after them (the proposition widened with legal terms) widen the search only."""
    per_query = [m.search.judgments(q, mode=mode, k=k, per_doc=3) for q in queries if q.strip()]
    if not per_query:
        return []
    fused = rrf([[h.doc for h in hits] for hits in per_query])
    best: dict[int, JudgmentHit] = {}
    on_issue: set[int] = set()
    for hits in per_query[:issue_queries]:
        on_issue |= relevant(hits)
    for hits in per_query:
        for h in hits:
            best.setdefault(h.doc, h)
    out = []
    for d, score in sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]:
        hit = best[d]
        out.append(JudgmentHit(d, score, hit.passages, hit.ranks, hit.best, d in on_issue))
    return out


def on_the_issue(hits: list[JudgmentHit]) -> set[int]:
    """The judgments among ``hits`` on the issue: by the fused queries' verdicts when there are
    any, else by the relevance floor over ``hits`` themselves."""
    if hits and all(h.on_issue is not None for h in hits):
        return {h.doc for h in hits if h.on_issue}
    return relevant(hits)


# A judgment is evidence only if it is close to the best match: with embeddings, its best
# passage within this cosine margin of the top judgment's (or a lexical score nearly as high as
# the top one's: an exact statute or phrase match); without, at least half the top BM25 score.
# BM25 alone separates poorly in a small matter, where the issue's own words are in every
# judgment and their weight is low. In a large matter the candidate depth does most of the work.
RELEVANCE_DENSE_MARGIN = 0.1
RELEVANCE_BM25_STRONG = 0.8
RELEVANCE_BM25_SHARE = 0.5


def relevant(hits: list[JudgmentHit]) -> set[int]:
    """The judgments among ``hits`` that pass the relevance floor."""
    top: dict[str, float] = {}
    for h in hits:
        for name, score in h.best.items():
            top[name] = max(top.get(name, float("-inf")), score)
    keep = set()
    for h in hits:
        bm25 = h.best.get("bm25")
        dense = h.best.get("dense")
        top_bm25 = top.get("bm25", 0.0)
        if not h.best:
            keep.add(h.doc)
        elif dense is not None:
            near = dense >= top["dense"] - RELEVANCE_DENSE_MARGIN
            strong = bm25 is not None and top_bm25 > 0 and bm25 >= RELEVANCE_BM25_STRONG * top_bm25
            if near or strong:
                keep.add(h.doc)
        elif bm25 is not None and top_bm25 > 0 and bm25 >= RELEVANCE_BM25_SHARE * top_bm25:
            keep.add(h.doc)
    return keep


def _weakening_citers(m: MatterView, docs: list[int]) -> list[tuple[int, int, str]]:
    """(citing judgment, cited judgment, cue) where a judgment of the matter treats one of
    ``docs`` adversely (distinguished, overruled, not followed, doubted)."""
    wanted = {m.documents[d].pk: d for d in docs}
    out = []
    for citing, card in m.cards.items():
        for entry in card.cases_cited or []:
            target = entry.get("document_id")
            if target in wanted and entry.get("treatment") == ADVERSE:
                out.append((citing, wanted[target], str(entry.get("cue") or "")))
    return out


def _select(
    m: MatterView,
    plan: Plan,
    main: list[JudgmentHit],
    by_query: list[JudgmentHit],
    screened: list[JudgmentHit],
    weakening: list[tuple[int, int, str]],
) -> list[Piece]:
    """Bucket the candidate judgments by their offline stance, with a quota per bucket and a
    limit of passages per judgment; the adverse bucket has its own quota."""
    hits, found_by, order = _candidates(main, by_query, screened)
    stance_of = _stances(m, plan, hits=hits, found_by=found_by, order=order, weakening=weakening)
    buckets = _fill_buckets(order, stance_of, main=main, by_query=by_query)
    pieces: list[Piece] = []
    for bucket, docs in buckets.items():
        for d in docs:
            pieces.extend(
                _judgment_pieces(
                    m, d, bucket=bucket, stance=stance_of[d], hit=hits.get(d), found_by=found_by
                )
            )
    return pieces


def _candidates(
    main: list[JudgmentHit], by_query: list[JudgmentHit], screened: list[JudgmentHit]
) -> tuple[dict[int, JudgmentHit], dict[int, set[str]], list[int]]:
    """The candidate judgments, in the order first found; each one's hit, and which searches
    found it ("adverse", "support")."""
    found_by: dict[int, set[str]] = {}
    hits: dict[int, JudgmentHit] = {}
    order: list[int] = []
    # Every candidate must be on the issue: relevant to the main search. The adverse query
    # does not widen the pool (its lexical cues, "appeal dismissed", match any judgment); it
    # orders the adverse bucket, and the main pool is screened for adverse outcomes.
    keep = on_the_issue(main[:ADVERSE_POOL])
    adverse_rank = {h.doc: i for i, h in enumerate(by_query)}
    for source, hs in (
        ("adverse", sorted(by_query[:15], key=lambda h: adverse_rank[h.doc])),
        ("support", main[:CANDIDATE_DEPTH]),
        ("adverse", screened),
    ):
        for h in hs:
            if h.doc not in keep:
                continue
            found_by.setdefault(h.doc, set()).add(source)
            if h.doc not in hits:
                hits[h.doc] = h
                order.append(h.doc)
    return hits, found_by, order


def _stances(
    m: MatterView,
    plan: Plan,
    *,
    hits: dict[int, JudgmentHit],
    found_by: dict[int, set[str]],
    order: list[int],
    weakening: list[tuple[int, int, str]],
) -> dict[int, Stance]:
    """Each candidate's offline stance; a supporting judgment that another treats adversely
    becomes adverse, and the judgment that weakened it joins ``order`` as adverse too."""
    stance_of: dict[int, Stance] = {}
    weakened = {t: (c, cue) for c, t, cue in weakening}
    matches = match_holdings(
        plan.issue.text,
        [(m.documents[d].text, m.cards[d].holdings if d in m.cards else []) for d in order],
        m.search.corpus.embedder,
        m.search.corpus.document_share,
        len(m.documents),
    )
    for d, match in zip(order, matches, strict=True):
        stance = holding_stance(plan.side, m.facts(d), match, plan.issue)
        if d in weakened and stance.bucket == SUPPORTING:
            c, cue = weakened[d]
            stance = Stance(
                ADVERSE,
                "treatment",
                f"{stance.reason}; but {m.name(c)} {cue} it",
                stance.quote,
                stance.at,
            )
        stance_of[d] = stance
    for c, _t, _cue in weakening:  # the judgment that weakened our authority is itself relevant
        if c not in hits:
            stance_of[c] = Stance(ADVERSE, "treatment", f"treats {m.name(_t)} adversely ({_cue})")
            found_by.setdefault(c, set()).add("adverse")
            order.append(c)
    return stance_of


def _fill_buckets(
    order: list[int],
    stance_of: dict[int, Stance],
    *,
    main: list[JudgmentHit],
    by_query: list[JudgmentHit],
) -> dict[str, list[int]]:
    """The judgments of each bucket, up to its quota: supporting and neutral ones in the main
    search's order, adverse ones in the adverse search's."""
    buckets: dict[str, list[int]] = {SUPPORTING: [], ADVERSE: [], NEUTRAL: []}
    limits = {SUPPORTING: MAX_PER_BUCKET, ADVERSE: MAX_PER_BUCKET, NEUTRAL: MAX_NEUTRAL}
    adverse_rank = {h.doc: i for i, h in enumerate(by_query)}
    main_rank = {h.doc: i for i, h in enumerate(main)}
    for d in sorted(order, key=lambda d: main_rank.get(d, len(main))):
        b = stance_of[d].bucket
        if b == ADVERSE:
            continue  # filled below, in the adverse search's order
        if len(buckets[b]) < limits[b]:
            buckets[b].append(d)
    for d in sorted(
        order, key=lambda d: (adverse_rank.get(d, len(by_query)), main_rank.get(d, len(main)))
    ):
        if stance_of[d].bucket == ADVERSE and len(buckets[ADVERSE]) < limits[ADVERSE]:
            buckets[ADVERSE].append(d)
    return buckets


def _judgment_pieces(
    m: MatterView,
    d: int,
    *,
    bucket: str,
    stance: Stance,
    hit: JudgmentHit | None,
    found_by: dict[int, set[str]],
) -> list[Piece]:
    """A selected judgment's pieces: the passage of its holding on the issue, its closing order
    when the stance's side rests on the outcome, then its best passages (at most MAX_PER_DOC
    in all), else its header; each with the bucket and the stance."""
    chosen: list[Piece] = []
    how = "both" if len(found_by.get(d, ())) > 1 else next(iter(found_by.get(d, {"adverse"})))
    # The passage that carries the stance comes first (its holding on the issue), then the
    # closing order its side was read from, then the passages the searches ranked best.
    first = [passage_piece(m, d, stance.at, "holding") if stance.quote else None]
    if stance.source in ("outcome", "holding"):
        first.append(outcome_piece(m, d))
    for piece in first:
        if piece is not None and all(piece.row != c.row for c in chosen):
            piece.found_by = how
            chosen.append(piece)
    for ph in (hit.passages if hit else [])[: max(0, MAX_PER_DOC - len(chosen))]:
        if all(ph.row != c.row for c in chosen):
            chosen.append(piece_at(m, ph, how))
    if not chosen:
        header = header_piece(m, d)
        if header is not None:
            chosen.append(header)
    for p in chosen:
        p.bucket, p.stance = bucket, stance
        text = m.documents[d].text[p.start : p.end]
        t = treatment_stance(text)
        if t.known and p.stance.source != "treatment":
            p.stance = Stance(
                p.stance.bucket,
                p.stance.source,
                f"{p.stance.reason}; the passage's treatment of a decision it cites: {t.cue}",
                p.stance.quote,
                p.stance.at,
            )
    return chosen


def _bucket_summary(m: MatterView, pieces: list[Piece]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for b in (SUPPORTING, ADVERSE, NEUTRAL):
        out[b] = [
            {
                "document": p.key(m),
                "node": p.node_id(m),
                "case": m.name(p.doc),
                "why": p.stance.reason if p.stance else "",
                "source": p.stance.source if p.stance else "",
            }
            for p in pieces
            if p.bucket == b
        ]
    return out


def _plan_claude(rec: StepRecord, query: Question, plan: Plan, provider: Any) -> Plan:  # noqa: ANN401
    prompt = research_prompts.research_plan_prompt(question=query.question)
    try:
        completion = query_completion(
            provider, prompt, query=query, max_tokens=PLAN_MAX_TOKENS, purpose="research_plan"
        )
    except LLMError as exc:
        rec.status, rec.note = ResearchStep.Status.FALLBACK, f"{exc}; the offline plan is used"
        return plan
    data = prompts.parse_json_object(completion.text)
    if not data or not isinstance(data.get("proposition"), str):
        rec.status, rec.note = (
            ResearchStep.Status.FALLBACK,
            "unreadable plan reply; the offline plan is used",
        )
        return plan

    def strings(key: str, most: int) -> list[str]:
        value = data.get(key)
        return (
            [str(v)[:400] for v in value if isinstance(v, str) and v.strip()][:most]
            if isinstance(value, list)
            else []
        )

    side_role = str(data.get("side") or "")
    side = plan.side  # the rules' reading keeps where the side sits and who it is
    if not side.known and side_role in research_prompts.RESEARCH_SIDES:
        side = Side(side_role, "claude", label=side_role)
    return Plan(
        proposition=data["proposition"][:1000] or plan.proposition,
        side=side,
        issues=strings("issues", 4) or plan.issues,
        queries=[query.question] + strings("queries", 3),
        adverse_queries=strings("adverse_queries", 2) or plan.adverse_queries,
        by=completion.model,
        issue=plan.issue
        if plan.issue.text
        else issue_of(query.question, data["proposition"][:1000], "stated"),
    )


def _analyse_claude(
    rec: StepRecord,
    query: Question,
    m: MatterView,
    plan: Plan,
    pieces: list[Piece],
    provider: Any,  # noqa: ANN401
) -> list[dict[str, str]]:
    """One call classifies every selected passage and must quote the words it relies on; a
    stance with a quote that is not verbatim in its passage is discarded. A judgment moves to
    the bucket of its best-ranked passage with an accepted stance."""
    if not pieces:
        return []
    prompt = research_prompts.research_stance_prompt(
        proposition=plan.proposition,
        side=_acting_for(plan.side),
        passages=_research_passages(m, pieces, buckets=False),
    )
    try:
        completion = query_completion(
            provider, prompt, query=query, max_tokens=STANCE_MAX_TOKENS, purpose="research_stance"
        )
    except LLMError as exc:
        rec.status, rec.note = ResearchStep.Status.FALLBACK, f"{exc}; the offline stances stand"
        return []
    data = prompts.parse_json_object(completion.text) or {}
    raw_items = data.get("items")
    items: list[object] = raw_items if isinstance(raw_items, list) else []
    accepted, rejected = _verified_stances(m, pieces, items)
    moves = _apply_stances(m, pieces, accepted)
    if rejected:
        rec.note = f"{len(rejected)} stance(s) discarded: their quotes were not verbatim"
        rec.outputs["rejected"] = rejected
    # Keep one move per judgment in the report.
    seen, unique = set(), []
    for mv in moves:
        if mv["document"] not in seen:
            seen.add(mv["document"])
            unique.append(mv)
    return unique


def _research_passages(
    m: MatterView, pieces: list[Piece], *, buckets: bool
) -> list[research_prompts.ResearchPassage]:
    """The pieces as the stance and brief prompts show them, numbered E1, E2, …; the brief's
    with their buckets."""
    return [
        research_prompts.ResearchPassage(
            evidence_id=f"E{i}",
            doc_id=p.key(m),
            node_id=p.node_id(m),
            text=p.text,
            case_name=m.name(p.doc),
            decided=m.dated(p.doc),
            outcome=m.outcome(p.doc),
            bucket=p.bucket if buckets else "",
        )
        for i, p in enumerate(pieces, 1)
    ]


def _verified_stances(
    m: MatterView, pieces: list[Piece], items: list[object]
) -> tuple[dict[int, tuple[str, str, str]], list[dict[str, str]]]:
    """The reply's stances by piece index, as (stance, quote, reason), where each is well
    formed and a supporting or adverse one quotes its passage verbatim; and those discarded
    for a quote that is not."""
    from legalnav.answers import citations

    accepted: dict[int, tuple[str, str, str]] = {}  # piece index -> (stance, quote, reason)
    rejected = []
    for item in items:
        if not isinstance(item, dict):
            continue
        ident = str(item.get("evidence") or "")
        if not ident.startswith("E") or not ident[1:].isdigit():
            continue
        i = int(ident[1:]) - 1
        if not 0 <= i < len(pieces):
            continue
        stance = str(item.get("stance") or "")
        quote = str(item.get("quote") or "").strip()
        reason = str(item.get("reason") or "")[:500]
        if stance not in (SUPPORTING, ADVERSE, NEUTRAL):
            continue
        if stance != NEUTRAL:
            passage = citations.normalise(
                m.documents[pieces[i].doc].text[pieces[i].start : pieces[i].end]
            )
            if not quote or citations.normalise(quote) not in passage:
                rejected.append(
                    {
                        "evidence": ident,
                        "stance": stance,
                        "quote": quote[:300],
                        "why": "quote not verbatim in the passage",
                    }
                )
                continue
        accepted[i] = (stance, quote, reason)
    return accepted, rejected


def _apply_stances(
    m: MatterView, pieces: list[Piece], accepted: dict[int, tuple[str, str, str]]
) -> list[dict[str, str]]:
    """Move every passage of a judgment to the bucket of its best-ranked passage with an
    accepted stance; the moves made, one per passage that changed bucket."""
    moves = []
    by_doc: dict[int, int] = {}  # judgment -> its best-ranked passage with an accepted stance
    for i in sorted(accepted):
        by_doc.setdefault(pieces[i].doc, i)
    for j, p in enumerate(pieces):
        if p.doc not in by_doc:
            continue
        source = by_doc[p.doc]
        stance, quote, reason = accepted[source]
        if stance != p.bucket:
            moves.append({"document": p.key(m), "from": p.bucket, "to": stance, "reason": reason})
        p.bucket = stance
        # The quote belongs to the passage it was taken from; the judgment's other passages
        # share the stance and say where it came from.
        if j == source:
            p.stance = Stance(stance, "claude", reason, quote)
        else:
            p.stance = Stance(stance, "claude", f"{reason} (from passage E{source + 1})", "")
    return moves


def _synthesise(
    query: Question,
    m: MatterView,
    plan: Plan,
    pieces: list[Piece],
    provider: Any,  # noqa: ANN401
) -> tuple[str, str, str]:
    prompt = research_prompts.research_brief_prompt(
        question=query.question,
        proposition=plan.proposition,
        side=_acting_for(plan.side),
        passages=_research_passages(m, pieces, buckets=True),
    )
    context = prompt.text()
    if provider is None:
        text = offline_brief.write(
            proposition=plan.proposition,
            side=_acting_for(plan.side),
            items=[
                offline_brief.Item(
                    bucket=p.bucket,
                    doc_key=p.key(m),
                    node_id=p.node_id(m),
                    case_name=m.name(p.doc),
                    decided=m.dated(p.doc),
                    outcome=m.outcome(p.doc),
                    reason=p.stance.reason if p.stance else "",
                    quote=_stance_quote(m, p),
                    passage=p.text,
                    flagged=bool(m.cards.get(p.doc) and m.cards[p.doc].judicial_treatment),
                )
                for p in pieces
            ],
            question=query.question,
        )
        offline_record(query, prompt_text=context, output_text=text)
        return text, "offline", context
    completion = query_completion(
        provider, prompt, query=query, max_tokens=BRIEF_MAX_TOKENS, purpose="answer"
    )
    return completion.text.strip(), completion.model, context


def _stance_quote(m: MatterView, p: Piece) -> str:
    """The words to quote for a passage: the stance's own quote when it lies inside this
    passage, else the passage's most telling sentence."""
    from legalnav.answers import citations

    if p.stance and p.stance.quote:
        if citations.normalise(p.stance.quote) in citations.normalise(p.text):
            return clean_quote(p.stance.quote)
    return ""
