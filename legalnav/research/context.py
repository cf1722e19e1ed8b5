"""What the research steps share: the loaded matter (judgments, case cards, search), the
trace, the evidence pieces and the validation of an answer."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db.models import Count, Max

from legalnav.answers.models import Question, ResearchRun, ResearchStep
from legalnav.core.attributes import from_attributes
from legalnav.documents.models import Document, Node
from legalnav.llm.models import LLMCall
from legalnav.llm.providers import OfflineProvider
from legalnav.research import listing as listing_mod
from legalnav.research.models import CaseCard
from legalnav.research.search import JudgmentSearch, PassageHit
from legalnav.research.stance import NEUTRAL, CardFacts, Stance
from legalnav.research.validate import clean_answer
from legalnav.retrieval.services import MatterRetriever, matter_retriever

if TYPE_CHECKING:
    from legalnav.llm.prompts import Prompt
    from legalnav.llm.providers import Completion

MAX_PER_BUCKET = 5
MAX_NEUTRAL = 3
MAX_PER_DOC = 2
CANDIDATE_DEPTH = 30  # judgments taken from each search
ADVERSE_POOL = 60  # judgments of the main search screened for an adverse outcome
LISTING_SHOWN = 40  # judgments written out in a listing answer (all are in the trace)
SIMPLE_K = 8
BRIEF_MAX_TOKENS = 2000
STANCE_MAX_TOKENS = 1500
PLAN_MAX_TOKENS = 600
ROUTE_MAX_TOKENS = 400


# --- the trace ------------------------------------------------------------------------------


@dataclass(slots=True)
class StepRecord:
    outputs: dict[str, Any] = field(default_factory=dict)
    status: str = ResearchStep.Status.OK
    note: str = ""


class Trace:
    """Writes one ResearchStep row per step, with the LLM calls made while it ran."""

    def __init__(self, run: ResearchRun) -> None:
        self.run = run
        self.order = 0
        self.seen: set[int] = set(
            LLMCall.objects.filter(query_id=run.question_id).values_list("id", flat=True)
        )

    @contextlib.contextmanager
    def step(self, name: str, **inputs: Any) -> Iterator[StepRecord]:
        rec = StepRecord()
        started = time.perf_counter()
        try:
            yield rec
        except Exception as exc:
            rec.status = ResearchStep.Status.ERROR
            rec.note = f"{exc.__class__.__name__}: {exc}"[:2000]
            raise
        finally:
            ms = int((time.perf_counter() - started) * 1000)
            calls = list(
                LLMCall.objects.filter(query_id=self.run.question_id)
                .exclude(id__in=self.seen)
                .values(
                    "id",
                    "input_tokens",
                    "cache_write_tokens",
                    "cache_read_tokens",
                    "output_tokens",
                    "dollars",
                )
            )
            self.seen.update(c["id"] for c in calls)
            self.order += 1
            ResearchStep.objects.create(
                run=self.run,
                order=self.order,
                name=name,
                status=rec.status,
                inputs=_jsonable(inputs),
                outputs=_jsonable(rec.outputs),
                note=rec.note,
                ms=ms,
                llm_calls=[c["id"] for c in calls],
                input_tokens=sum(
                    c["input_tokens"] + c["cache_write_tokens"] + c["cache_read_tokens"]
                    for c in calls
                ),
                output_tokens=sum(c["output_tokens"] for c in calls),
                dollars=sum((c["dollars"] for c in calls), Decimal(0)),
            )


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def query_completion(
    provider: Any,  # noqa: ANN401
    prompt: Prompt,
    *,
    query: Question,
    max_tokens: int,
    purpose: str,
) -> Completion:
    """One LLM call of a research step, its ledger row charged to the query and its matter.
    Raises what ``provider.complete`` raises (``LLMError`` when the call fails)."""
    return provider.complete(
        system=prompt.system,
        messages=prompt.messages,
        max_tokens=max_tokens,
        purpose=purpose,
        matter_id=query.matter_id,
        query_id=query.pk,
    )


def offline_record(query: Question, *, prompt_text: str, output_text: str) -> None:
    """The ledger row of an answer written offline (no LLM call), charged to the query and its
    matter like ``query_completion``'s."""
    OfflineProvider().record(
        purpose="answer",
        prompt_text=prompt_text,
        output_text=output_text,
        matter_id=query.matter_id,
        query_id=query.pk,
    )


# --- the matter: judgments, cards, search ----------------------------------------------------


@dataclass(slots=True)
class MatterView:
    mr: MatterRetriever
    search: JudgmentSearch
    cards: dict[int, CaseCard]  # corpus position -> card
    views: list[listing_mod.CardView]

    @property
    def documents(self) -> list[Document]:
        return self.mr.documents

    def facts(self, doc: int) -> CardFacts:
        card = self.cards.get(doc)
        if card is None:
            return CardFacts(
                case_name=self.documents[doc].title, outcome="unknown", winner="unknown"
            )
        return CardFacts.of(card)

    def name(self, doc: int) -> str:
        card = self.cards.get(doc)
        return card.case_name if card else self.documents[doc].title

    def dated(self, doc: int) -> str:
        card = self.cards.get(doc)
        return card.decided.isoformat() if card and card.decided else ""

    def outcome(self, doc: int) -> str:
        card = self.cards.get(doc)
        if card is None or card.outcome == "unknown":
            return ""
        return card.outcome_text or card.get_outcome_display()


_SEARCHES: dict[int, JudgmentSearch] = {}
_CARDS: dict[tuple[object, ...], tuple[dict[int, CaseCard], list[listing_mod.CardView]]] = {}


def load_matter(matter_obj: Any, *, dense: bool = True) -> MatterView:  # noqa: ANN401
    """The matter's retriever (shared with the rest of legalnav), an exact-dense judgment search
    over it and its case cards, reused while the matter is unchanged."""
    mr = matter_retriever(matter=matter_obj, dense=dense)
    key = id(mr.retriever)
    search = _SEARCHES.get(key)
    if search is None or search.corpus is not mr.retriever.corpus:
        search = JudgmentSearch(mr.retriever.corpus)
        _SEARCHES.clear()  # one matter's vectors at a time: they can be large
        _SEARCHES[key] = search
    position = {d.pk: i for i, d in enumerate(mr.documents)}
    rows = CaseCard.objects.filter(document__matter=matter_obj)
    stamp = rows.aggregate(n=Count("id"), latest=Max("updated_at"))
    card_key = (tuple(sorted(position)), stamp["n"], stamp["latest"])
    cached = _CARDS.get(card_key)
    if cached is None:
        cards = {position[c.document_id]: c for c in rows if c.document_id in position}
        views = [_view(i, c) for i, c in sorted(cards.items())]
        _CARDS.clear()  # one matter's cards at a time
        _CARDS[card_key] = cached = (cards, views)
    return MatterView(mr, search, cached[0], cached[1])


def _view(doc: int, c: CaseCard) -> listing_mod.CardView:
    return from_attributes(
        listing_mod.CardView,
        c,
        doc=doc,
        judges=tuple(c.judges or ()),
        appellants=tuple(c.appellants or ()),
        respondents=tuple(c.respondents or ()),
        statutes=tuple(c.statutes or ()),
        cases_cited=tuple(c.cases_cited or ()),
    )


# --- evidence -------------------------------------------------------------------------------


@dataclass(slots=True)
class Piece:
    """One passage put before the answer."""

    doc: int
    row: int  # passage row, -1 for a span that is not a retrieval passage
    start: int
    end: int
    node: int  # node position in the document's parsed nodes
    text: str
    score: float = 0.0
    bucket: str = NEUTRAL
    found_by: str = ""
    stance: Stance | None = None
    parent: tuple[int, int, str] = (0, 0, "")

    def key(self, m: MatterView) -> str:
        return m.documents[self.doc].key

    def node_id(self, m: MatterView) -> str:
        return m.search.corpus.docs[self.doc].nodes[self.node].node_id


def piece_at(m: MatterView, hit: PassageHit, found_by: str) -> Piece:
    d, p = m.search.corpus.owner[hit.row]
    passage = m.search.corpus.docs[d].passages[p]
    piece = Piece(
        d,
        hit.row,
        passage.start,
        passage.end,
        passage.node,
        passage.text,
        hit.score,
        found_by=found_by,
    )
    piece.parent = _parent(m, d, passage.start, passage.end)
    return piece


def _parent(m: MatterView, doc: int, start: int, end: int) -> tuple[int, int, str]:
    card = m.cards.get(doc)
    for p in (card.parents if card else []) or []:
        if p["start"] <= start < max(p["end"], p["start"] + 1):
            first, last = p["first"], p["last"]
            label = (
                "header"
                if first == last == 0
                else (f"¶{first}" if first == last else f"¶¶{first}–{last}")
            )
            return p["start"], max(p["end"], end), label
    return start, end, ""


def outcome_piece(m: MatterView, doc: int) -> Piece | None:
    """The passage holding the judgment's closing order (the words its outcome was read from)."""
    card = m.cards.get(doc)
    if card is None or not card.outcome_text:
        return None
    at = m.documents[doc].text.rfind(card.outcome_text)
    return passage_piece(m, doc, at, "outcome")


def passage_piece(m: MatterView, doc: int, at: int, found_by: str) -> Piece | None:
    """The retrieval passage of ``doc`` that holds the character offset ``at`` (None if none)."""
    if at < 0:
        return None
    corpus_doc = m.search.corpus.docs[doc]
    base = m.search.first_row(doc)
    for p, passage in enumerate(corpus_doc.passages):
        if passage.start <= at < passage.end:
            return piece_at(m, PassageHit(base + p, doc, 0.0), found_by)
    return None


@dataclass(slots=True)
class Result:
    text: str
    answerer: str
    kind: str  # listing | lookup | retrieval | brief | clarify
    pieces: list[Piece] = field(default_factory=list)
    context_text: str = ""
    proposition: str = ""
    side: str = ""
    removed: list[dict[str, str]] = field(default_factory=list)
    validation: dict[str, Any] = field(default_factory=dict)


def header_piece(m: MatterView, doc: int) -> Piece | None:
    corpus_doc = m.search.corpus.docs[doc]
    if not corpus_doc.passages:
        return None
    return piece_at(m, PassageHit(m.search.first_row(doc), doc, 0.0), "case card")


def paragraph_piece(m: MatterView, doc: int, number: int) -> Piece | None:
    corpus_doc = m.search.corpus.docs[doc]
    for n, node in enumerate(corpus_doc.nodes):
        if node.label == str(number) and node.kind == "section":
            base = m.search.first_row(doc)
            for p, passage in enumerate(corpus_doc.passages):
                if passage.node == n:
                    return piece_at(m, PassageHit(base + p, doc, 0.0), f"paragraph {number}")
    return None


def quotable(text: str, words: int) -> str:
    parts = text.split()
    return clean_quote(" ".join(parts[:words]))


def clean_quote(text: str) -> str:
    """A verbatim run safe to put inside “…”: inner double quotes become single ones (the
    validator compares quotation marks as equal)."""
    return text.replace("“", "‘").replace("”", "’").replace('"', "'")


def search_mode(m: MatterView) -> str:
    return "hybrid" if m.search.corpus.embedder is not None else "bm25"


def validate_result(m: MatterView, result: Result, *, question: str = "") -> None:
    lookup = node_lookup(m)
    cleaned = clean_answer(
        result.text, lookup, sources=[p.text for p in result.pieces], known=[question]
    )
    result.text = cleaned.text
    result.removed = cleaned.removed
    result.validation = cleaned.report()


def node_lookup(m: MatterView):  # type: ignore[no-untyped-def]
    by_key = {d.key: d for d in m.documents}
    cache: dict[tuple[str, str], str | None] = {}

    def lookup(doc_key: str, node_ref: str) -> str | None:
        if (doc_key, node_ref) in cache:
            return cache[(doc_key, node_ref)]
        doc = by_key.get(doc_key)
        found: str | None = None
        if doc is not None:
            if node_ref.startswith("clause:"):
                label = node_ref.split(":", 1)[1].split("(")[0]
                node = Node.objects.filter(document=doc, label=label).order_by("order").first()
            else:
                node = Node.objects.filter(document=doc, node_id=node_ref).first()
            if node is not None:
                from legalnav.answers.snapshots import provision_text

                found = provision_text(doc, node)
        cache[(doc_key, node_ref)] = found
        return found

    return lookup
