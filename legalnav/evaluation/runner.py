"""Running one gold question in one mode: retrieve, measure, and (for answer sets) answer and
score. No database here: ``services.py`` stores what this returns.

The documents of a question are an ad-hoc corpus, exactly as the measurement door treats them
(``manage.py retrieve --json``): indexed into the door's cache (var/retrieve-cache, keyed by
content hash, so embeddings computed once serve every later run), never into a user's matter.
Retrieval calls the engine the product uses (``legalnav.retrieval.engine.retrieve``); answers
use the product's prompts, offline answerer and citation validator. Two differences from the
product, said plainly: navindex's S1 step is always the deterministic planner (a Claude S1
needs the matter's navindex files), and answers are not written as ``Question`` rows.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

from legalnav.answers import citations, core
from legalnav.core.lru import LruCache
from legalnav.documents.parsing.layout import tidy
from legalnav.evaluation import metrics
from legalnav.evaluation.baselines import NAIVE_MODES, NaiveCorpus
from legalnav.evaluation.gold import GoldItem
from legalnav.evaluation.keyfacts import score_answer
from legalnav.llm.models import LLMCall
from legalnav.llm.prices import PriceCard
from legalnav.llm.tokens import count_tokens
from legalnav.retrieval.embeddings import Embedder
from legalnav.retrieval.engine import (
    Corpus,
    Hit,
    Retriever,
    normalise_mode,
    rank_documents,
    retrieve,
)
from legalnav.retrieval.index import DocIndex, IndexCache

logger = logging.getLogger(__name__)

CORPUS_CACHE = 4  # ad-hoc corpora kept in memory (one question set usually reuses one)
SPAN_KS = (1, 5, 10)
DOCUMENT_KS = (1, 10, 100)
SNIPPET_CHARS = 240  # characters of each hit kept for the drill-down page
# The modes an evaluation run or the speed bench compares when none are named: the engine's
# strategies, the planner, the whole matter, and the naive floor.
DEFAULT_MODES = [
    "navembed:bm25",
    "navembed:dense",
    "navembed",
    "navembed:dense+xref",
    "navindex",
    "inject",
    "naive:bm25",
    "naive:dense",
]


def check_mode(mode: str) -> str:
    """The mode as given when it is one we can run (engine modes and the naive floor)."""
    if mode in NAIVE_MODES:
        return mode
    normalise_mode(mode)  # raises ValueError naming the valid modes
    return mode


class QuestionMemo:
    """An embedder that remembers its recent one-text encodes (the questions).

    A run asks the same question in several modes (dense, hybrid, dense+xref, navindex, the
    naive floor), and on a busy CPU each question embedding costs a large share of a second;
    embedding it once per question keeps a run of thousands of questions in minutes. Passage
    batches pass straight through. Latencies measured in a run therefore include a question's
    embedding only the first time; ``manage.py bench`` measures per-mode latency without it.
    """

    def __init__(self, embedder, size: int = 64) -> None:  # type: ignore[no-untyped-def]
        self.inner = embedder
        self.size = size
        self._memo: LruCache[str, object] = LruCache(size)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def encode(self, texts: list[str], **kwargs: object):  # type: ignore[no-untyped-def]
        if len(texts) != 1:
            return self.inner.encode(texts, **kwargs)
        return self._memo.get_or_make(texts[0], lambda: self.inner.encode(texts, **kwargs))


class Workbench:
    """Ad-hoc corpora for gold questions, with the caches that make reruns cheap."""

    def __init__(
        self,
        *,
        cache_dir: Path,
        embedder=None,  # type: ignore[no-untyped-def]
        reranker=None,  # type: ignore[no-untyped-def]
        use_embedder: bool = True,
    ) -> None:
        if embedder is None and use_embedder:
            from legalnav.retrieval.embeddings import get_embedder

            embedder = get_embedder()
        if reranker is None:
            from legalnav.retrieval.rerank import get_reranker

            reranker = get_reranker()
        self.cache_dir = cache_dir
        self.cache = IndexCache(cache_dir, keep=4000)
        # Typed as the embedder it wraps: it has the same name, dimension and encode.
        self.embedder = cast(
            "Embedder | None", QuestionMemo(embedder) if embedder is not None else None
        )
        self.reranker = reranker
        self._texts: dict[str, str] = {}
        self._retrievers: LruCache[tuple[str, ...], Retriever] = LruCache(CORPUS_CACHE)
        self._naive: LruCache[tuple[str, ...], NaiveCorpus] = LruCache(CORPUS_CACHE)
        self._tokens: dict[str, int] = {}  # content hash -> tokens of the document
        self._index_tokens: dict[str, int] = {}  # content hash -> tokens of its compact index

    def text(self, path: str) -> str:
        if path not in self._texts:
            with open(path, "rb") as fh:
                self._texts[path] = fh.read().decode("utf-8")
        return self._texts[path]

    def docs(self, paths: list[str]) -> list[DocIndex]:
        return [self.cache.get(self.text(p)) for p in paths]

    def retriever(self, paths: list[str]) -> Retriever:
        docs = self.docs(paths)
        return self._retrievers.get_or_make(
            tuple(d.sha256 for d in docs), lambda: self.corpus_retriever(docs, paths)
        )

    def corpus_retriever(self, docs: list[DocIndex], paths: list[str]) -> Retriever:
        """A new retriever over these files' indexes, with the bench's embedder, index cache and
        reranker (``retriever`` keeps the last few; the cross-validation makes its own)."""
        texts = [self.text(p) for p in paths]
        return Retriever(
            Corpus(docs, embedder=self.embedder, cache=self.cache, texts=texts),
            reranker=self.reranker,
        )

    def naive(self, paths: list[str]) -> NaiveCorpus:
        return self._naive.get_or_make(
            tuple(paths),
            lambda: NaiveCorpus(
                [self.text(p) for p in paths], embedder=self.embedder, cache_dir=self.cache_dir
            ),
        )

    def doc_tokens(self, doc: DocIndex, text: str) -> int:
        if doc.sha256 not in self._tokens:
            self._tokens[doc.sha256] = count_tokens(text)
        return self._tokens[doc.sha256]

    def index_tokens(self, doc: DocIndex) -> int:
        """About what the compact index of the document costs a planner to read: ids, clause
        references, headings, summaries and keywords of every node (not the provision text)."""
        if doc.sha256 not in self._index_tokens:
            surface = "\n".join(
                f"{n.node_id} {n.ref} {n.heading} {n.summary} {' '.join(n.keywords)}"
                for n in doc.nodes
                if n.kind != "toc"
            )
            self._index_tokens[doc.sha256] = count_tokens(surface)
        return self._index_tokens[doc.sha256]

    def flush(self) -> None:
        self.cache.flush()


@dataclass(slots=True)
class ItemResult:
    strategy: str = ""
    hits: list[dict[str, object]] = field(default_factory=list)
    metrics: dict[str, object] = field(default_factory=dict)
    answer: str = ""
    answerer: str = ""
    citations: dict[str, object] = field(default_factory=dict)
    scores: dict[str, object] = field(default_factory=dict)
    payload_chars: int = 0
    payload_tokens: int = 0
    footprint_tokens: int = 0
    dollars: Decimal = Decimal(0)
    dollars_estimate: Decimal = Decimal(0)
    latency_ms: float = 0.0
    error: str = ""


def _ranges(hits) -> list[metrics.Range]:  # type: ignore[no-untyped-def]
    return [metrics.Range(h.doc, h.start, h.end) for h in hits]


def _ancestors(doc: DocIndex, node: int) -> list[int]:
    out, cur = [], doc.nodes[node].parent
    while cur is not None:
        out.append(cur)
        cur = doc.nodes[cur].parent
    return out


def node_level(
    hits: list[Hit], gold: list[tuple[int, str]], docs: list[DocIndex], k: int
) -> dict[str, object]:
    """Node-level metrics: a returned node finds a gold node when it is that node, or one holds
    the other (a heading read with its sub-clauses, or a passage inside the gold clause)."""
    by_id = [{n.node_id: i for i, n in enumerate(d.nodes)} for d in docs]
    gold_idx = [(d, by_id[d].get(node_id)) for d, node_id in gold]
    covers = []
    for h in hits:
        found = set()
        if h.node >= 0:
            line = {h.node, *_ancestors(docs[h.doc], h.node)}
            for g, (d, gi) in enumerate(gold_idx):
                if gi is None or d != h.doc:
                    continue
                if gi in line or h.node in _ancestors(docs[d], gi):
                    found.add(g)
        covers.append(frozenset(found))
    out: dict[str, object] = dict(metrics.ranking_metrics(covers, len(gold), SPAN_KS))
    missing = [f"{d}:{n}" for (d, n), (_, gi) in zip(gold, gold_idx, strict=True) if gi is None]
    if missing:
        out["gold_nodes_not_in_parse"] = missing
    return out


def _lookup(docs: list[DocIndex], texts: list[str]):  # type: ignore[no-untyped-def]
    """The citation validator's lookup over an ad-hoc corpus: document keys D1, D2, … by
    position, nodes by id (or a printed clause reference), text as the product shows it."""
    by_id = [{n.node_id: n for n in d.nodes} for d in docs]

    def lookup(doc_key: str, node_ref: str) -> str | None:
        try:
            d = int(doc_key.lstrip("D")) - 1
        except ValueError:
            return None
        if not 0 <= d < len(docs):
            return None
        if node_ref.startswith("clause:"):
            head = node_ref.split(":", 1)[1].split("(")[0]
            node = next(
                (n for n in docs[d].nodes if n.label == head and n.kind in ("section", "article")),
                None,
            )
        else:
            node = by_id[d].get(node_ref)
        if node is None:
            return None
        index = docs[d].nodes.index(node)
        within = [
            i
            for i, n in enumerate(docs[d].nodes)
            if n.start >= node.start and n.start < max(node.end, node.subtree_end)
        ] or [index]
        parts = [p.text for p in docs[d].passages if p.node in set(within)]
        raw = tidy(texts[d][node.start : max(node.end, node.subtree_end)])
        return citations.checkable_text(raw, parts)

    return lookup


def _sources(docs: list[DocIndex], texts: list[str]) -> list[core.Source]:
    return [
        core.Source(key=f"D{i + 1}", title=d.title, kind=d.kind, text=t)
        for i, (d, t) in enumerate(zip(docs, texts, strict=True))
    ]


def _answer(
    item: GoldItem,
    strategy: str,
    hits: list[Hit],
    bench: Workbench,
    docs: list[DocIndex],
    texts: list[str],
    provider,  # type: ignore[no-untyped-def]
) -> tuple[core.Draft, Decimal]:
    """The answering core on a gold question: the draft, and the dollars billed for it."""
    sources = _sources(docs, texts)
    draft = core.compose(
        question=item.question,
        provisions=core.provisions(hits, docs, sources),
        provider=provider,
        inject=[s.prompt_document() for s in sources] if strategy.endswith("inject") else None,
        # Offline, inject still has to point at provisions: quote hybrid's best, as the
        # product's offline path does.
        offline_provisions=lambda: core.provisions(
            retrieve(bench.retriever(item.documents), item.question, "navembed", 10).hits,
            docs,
            sources,
        ),
    )
    billed = (
        LLMCall.objects.filter(pk=draft.call_id).values_list("dollars", flat=True).first()
        if draft.call_id
        else None
    )
    return draft, Decimal(billed or 0)


@dataclass(slots=True)
class _Retrieved:
    hits: list[Any]
    strategy: str
    payload: int
    docs: list[DocIndex] | None  # None for the naive baselines (no clause tree)
    texts: list[str]


def _retrieve_item(bench: Workbench, item: GoldItem, mode: str, k: int) -> _Retrieved:
    texts = [bench.text(p) for p in item.documents]
    if mode in NAIVE_MODES:
        hits: list[Any] = bench.naive(item.documents).search(item.question, mode, k)
        return _Retrieved(hits, mode, sum(h.end - h.start for h in hits), None, texts)
    retriever = bench.retriever(item.documents)
    ranked = (
        rank_documents(retriever, item.question, mode, k)
        if item.unit == "document"
        else retrieve(retriever, item.question, mode, k)
    )
    return _Retrieved(
        ranked.hits[:k], ranked.strategy, ranked.payload_chars, retriever.corpus.docs, texts
    )


def _hit_rows(got: _Retrieved) -> list[dict[str, object]]:
    return [
        {
            "doc": h.doc,
            "start": h.start,
            "end": h.end,
            "score": round(float(h.score), 6),
            "node": got.docs[h.doc].nodes[h.node].node_id
            if got.docs is not None and getattr(h, "node", -1) >= 0
            else "",
            # The opening of the text, for the drill-down page (the whole range for inject
            # would be the whole document).
            "text": " ".join(got.texts[h.doc][h.start : h.start + SNIPPET_CHARS * 2].split())[
                :SNIPPET_CHARS
            ],
        }
        for h in got.hits
    ]


def _measure(item: GoldItem, got: _Retrieved, k: int) -> dict[str, object]:
    """Document-, span- and node-level ranking metrics, and the footprint of what was sent."""
    hits, measured = got.hits, {}
    total_chars = sum(len(t) for t in got.texts)
    if item.unit == "document":
        covers = [frozenset({h.doc}) if h.doc in item.relevant else frozenset() for h in hits]
        if item.relevant:
            doc_metrics: dict[str, object] = dict(
                metrics.ranking_metrics(covers, len(item.relevant), DOCUMENT_KS)
            )
            doc_metrics["average_precision"] = metrics.average_precision(
                covers, len(item.relevant), max(DOCUMENT_KS)
            )
            measured["document"] = doc_metrics
    elif item.spans:
        gold = [metrics.Range(d, s, e) for d, s, e in item.spans]
        returned = _ranges(hits)
        covers = metrics.span_covers(returned, gold)
        span: dict[str, object] = dict(metrics.ranking_metrics(covers, len(gold), SPAN_KS))
        span["coverage"] = metrics.span_coverage(returned, gold, k)
        measured["span"] = span
    if item.nodes and got.docs is not None and not got.strategy.endswith("inject"):
        measured["node"] = node_level(hits, item.nodes, got.docs, k)
    if total_chars:
        measured["footprint"] = metrics.footprint(_ranges(hits), total_chars, k)
    return measured


def _price(
    bench: Workbench, item: GoldItem, got: _Retrieved, result: ItemResult, card: PriceCard
) -> None:
    """Tokens and dollars, priced as Claude would be on the card (input side, warm cache)."""
    docs = got.docs if got.docs is not None else bench.docs(item.documents)
    texts = got.texts
    total_chars = sum(len(t) for t in texts)
    corpus_tokens = sum(bench.doc_tokens(d, t) for d, t in zip(docs, texts, strict=True))
    ratio = corpus_tokens / total_chars if total_chars else 0.0
    question_tokens = count_tokens(item.question)
    result.payload_tokens = round(result.payload_chars * ratio)
    if got.strategy.endswith("inject"):
        footprint = corpus_tokens + question_tokens
        estimate = corpus_tokens * card.cache_read + question_tokens * card.input
    else:
        footprint = result.payload_tokens + question_tokens
        estimate = footprint * card.input
        if got.strategy == "navindex":
            index_tokens = sum(bench.index_tokens(d) for d in docs)
            footprint += index_tokens
            estimate += index_tokens * card.cache_read
    result.footprint_tokens = footprint
    result.dollars_estimate = (Decimal(estimate) / Decimal(1_000_000)).quantize(
        Decimal("0.00000001")
    )


def _answer_and_score(
    bench: Workbench,
    item: GoldItem,
    got: _Retrieved,
    result: ItemResult,
    provider: Any,  # noqa: ANN401
) -> None:
    """Answer through the answering core, check its citations and score it against the gold."""
    assert got.docs is not None
    t0 = time.perf_counter()
    draft, billed = _answer(item, got.strategy, got.hits, bench, got.docs, got.texts, provider)
    text, usage = draft.text, draft.usage
    result.answer, result.answerer, result.dollars = text, draft.answerer, billed
    if usage is not None:
        result.footprint_tokens = (
            usage.input_tokens + usage.cache_write_tokens + usage.cache_read_tokens
        )
    else:
        result.footprint_tokens = count_tokens(draft.context_text)
    validation = citations.validate(text, _lookup(got.docs, got.texts))
    result.citations = validation.as_dict()
    result.scores = score_answer(
        answer=text,
        reference=item.reference,
        must_contain=item.must_contain,
        must_not_claim=item.must_not_claim,
        out_of_scope=item.out_of_scope,
        citation_problems=validation.problems,
        citations=len(validation.checks),
    ).as_dict()
    result.latency_ms += (time.perf_counter() - t0) * 1000


def evaluate_item(
    bench: Workbench,
    item: GoldItem,
    mode: str,
    *,
    k: int = 10,
    answer: bool = False,
    provider=None,  # type: ignore[no-untyped-def]
    card: PriceCard | None = None,
) -> ItemResult:
    """Retrieve for one gold question in one mode and measure it; answer and score the answer
    when ``answer`` is set (gold sets with references). A failure is recorded in ``error`` and
    counts as a miss; it never stops the run."""
    card = card or PriceCard.from_settings()
    result = ItemResult()
    started = time.perf_counter()
    try:
        got = _retrieve_item(bench, item, mode, k)
        result.latency_ms = (time.perf_counter() - started) * 1000
        result.strategy = got.strategy
        result.payload_chars = int(got.payload)
        result.hits = _hit_rows(got)
        result.metrics = _measure(item, got, k)
        _price(bench, item, got, result, card)
        if answer and item.unit == "span" and got.docs is not None:
            _answer_and_score(bench, item, got, result, provider)
    except Exception as exc:  # one question failing must not stop a run of thousands
        if isinstance(exc, ValueError | OSError):  # a mode or file that cannot work: no trace
            logger.warning("evaluating %s in %s failed: %s", item.id, mode, exc)
        else:
            logger.exception("evaluating %s in %s failed", item.id, mode)
        result.error = f"{exc.__class__.__name__}: {exc}"[:2000]
        result.latency_ms = (time.perf_counter() - started) * 1000
    return result
