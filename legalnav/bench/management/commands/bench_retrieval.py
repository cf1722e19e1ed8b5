"""Retrieval latency per mode (no LLM), index build time, embedding throughput and peak memory."""

from __future__ import annotations

import hashlib
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.bench import bench
from legalnav.retrieval.embeddings import get_embedder
from legalnav.retrieval.engine import (
    DENSE_FULL_LIMIT,
    Corpus,
    Retriever,
    VectorSearch,
    rank_documents,
    retrieve,
)
from legalnav.retrieval.index import IndexCache

# The speed bench's sixteen contract questions and four more.
QUESTIONS = [
    *bench.QUESTIONS,
    "Is there a non-compete or non-solicitation covenant?",
    "What insurance must be maintained?",
    "What representations and warranties are given?",
    "How are notices delivered?",
]
MODES = ["navembed:bm25", "navembed:dense", "navembed", "navindex", "inject"]


def _edge_search(corpus: Corpus) -> tuple[VectorSearch, object]:
    """Every passage vector in a scratch Qdrant Edge collection; a search over all of them."""
    from legalnav.retrieval.vectors import EdgeVectorStore

    store = EdgeVectorStore(Path(tempfile.mkdtemp(prefix="bench-edge-")))
    matrix = np.vstack([d.vectors for d in corpus.docs if len(d.passages)])
    store.ensure_collection("bench", matrix.shape[1])
    # Passages left unembedded (passages.skip_embedding: zero vectors) get no point.
    rows = np.flatnonzero(matrix.any(axis=1))
    payloads = [
        {"document_id": d, "node_id": corpus.docs[d].passages[p].node}
        for d, p in (corpus.owner[r] for r in rows.tolist())
    ]
    store.upsert("bench", rows.tolist(), matrix[rows], payloads)

    def search(vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        return [(h.id, h.score) for h in store.search("bench", vector, limit=limit)]

    return search, store


def _paths(files: list[object]) -> list[Path]:
    """The documents named on the command line, else the demo documents."""
    paths = [Path(str(p)) for p in files] or sorted(
        (settings.BASE_DIR / "demo" / "documents").glob("*.txt")
    )  # type: ignore[attr-defined]
    if not paths:
        raise CommandError("No documents to benchmark.")
    return paths


def _cache_folder(opts: dict[str, object]) -> Path:
    """A scratch folder for a cold run, else the (shared) index cache."""
    return (
        Path(tempfile.mkdtemp(prefix="bench-"))
        if opts["cold"]
        else Path(str(opts["cache"]) or Path(settings.VAR_DIR) / "retrieve-cache")
    )


def _embed_missing(corpus: Corpus, retriever: Retriever, *, edge: bool) -> float:
    """Embed what the cache lacks (every passage, or BM25's candidates only in a corpus too
    large for exact dense search in memory); returns the seconds it took."""
    started = time.perf_counter()
    if edge or corpus.size <= DENSE_FULL_LIMIT:
        corpus.ensure_vectors()  # embed what is missing
    else:
        retriever.dense_ranking("warm up", 1)  # embeds BM25's candidates only
    return time.perf_counter() - started


def _vector_store(corpus: Corpus, *, kind: str) -> dict[str, object]:
    """Switch the corpus to a Qdrant Edge collection when asked; what the report says of it."""
    store_report: dict[str, object] = {"kind": kind}
    if kind == "edge":
        started = time.perf_counter()
        corpus.vector_search, store = _edge_search(corpus)
        store_report["upsert_s"] = round(time.perf_counter() - started, 2)
        store_report["points"] = corpus.size
    return store_report


def _questions(source: str) -> list[str]:
    """The questions of ``source`` (one a line, AILA's 'ID||text' accepted), else QUESTIONS."""
    if not source:
        return QUESTIONS
    try:
        lines = Path(source).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CommandError(f"Cannot read {source}: {exc}") from exc
    questions = [ln.split("||", 1)[-1].strip() for ln in lines if ln.strip()]
    if not questions:
        raise CommandError(f"No questions in {source}.")
    return questions


def _measure(
    retriever: Retriever, questions: list[str], *, unit: str, k: int, repeat: int
) -> tuple[dict[str, list[float]], dict[str, list[int]]]:
    """Per mode, every question's latency (ms) and payload size (characters)."""
    rank = rank_documents if unit == "document" else retrieve
    latency: dict[str, list[float]] = {}
    payload: dict[str, list[int]] = {}
    for mode in MODES:
        # One untimed question per mode: lazy indexes (BM25, the planner's surface, the
        # model) are built once per corpus, not per question, and are reported above.
        rank(retriever, questions[0], mode, k)
        for _ in range(repeat):
            for question in questions:
                t0 = time.perf_counter()
                result = rank(retriever, question, mode, k)
                latency.setdefault(mode, []).append((time.perf_counter() - t0) * 1000)
                payload.setdefault(mode, []).append(result.payload_chars)
    return latency, payload


class Command(BaseCommand):
    help = (
        "Benchmark retrieval: per-mode latency p50/p95, index build, embedding throughput, memory."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "files", nargs="*", help="Plain-text documents (default: demo/documents)."
        )
        parser.add_argument("--unit", choices=["span", "document"], default="span")
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument(
            "--repeat", type=int, default=3, help="Rounds of the question set per mode."
        )
        parser.add_argument(
            "--cold", action="store_true", help="Use an empty cache (measure embedding)."
        )
        parser.add_argument(
            "--store",
            choices=["memory", "edge"],
            default="memory",
            help="Dense search over the cached vectors in memory (exact; BM25's candidates only "
            "past 20k passages), or over every vector in an in-process Qdrant (Edge) collection.",
        )
        parser.add_argument(
            "--cache",
            default="",
            help="Index cache folder (default var/retrieve-cache, shared with the retrieve door).",
        )
        parser.add_argument(
            "--questions",
            default="",
            help="A file of questions, one per line (AILA's 'ID||text' lines are accepted); "
            "default: twenty contract questions.",
        )
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **opts: object) -> None:
        paths = _paths(opts["files"])  # type: ignore[arg-type]
        texts = [p.read_bytes().decode("utf-8") for p in paths]
        cache = IndexCache(_cache_folder(opts), keep=max(500, len(texts)))
        started = time.perf_counter()
        docs = [cache.get(t) for t in texts]
        build_s = time.perf_counter() - started
        embedder = get_embedder()
        corpus = Corpus(docs, embedder=embedder, cache=cache)
        retriever = Retriever(corpus)
        missing = sum(1 for d in docs if d.vectors is None or np.isnan(d.vectors).any())
        embed_s = _embed_missing(corpus, retriever, edge=opts["store"] == "edge")
        cache.flush()
        store_report = _vector_store(corpus, kind=str(opts["store"]))
        questions = _questions(str(opts["questions"]))
        latency, payload = _measure(
            retriever,
            questions,
            unit=str(opts["unit"]),
            k=int(opts["k"]),  # type: ignore[call-overload]
            repeat=int(opts["repeat"]),  # type: ignore[call-overload]
        )
        report = {
            "documents": len(docs),
            "characters": sum(len(t) for t in texts),
            "passages": corpus.size,
            "nodes": sum(len(d.nodes) for d in docs),
            "index_build_s": round(build_s, 2),
            "embedding": {
                "documents_embedded_now": missing,
                "seconds": round(embed_s, 2),
                "passages_per_s": round(corpus.size / embed_s, 1)
                if missing and embed_s > 0
                else None,
                "model": embedder.name,
            },
            "latency_ms": {
                m: {"p50": round(statistics.median(v), 2), "p95": bench.percentile(v, 0.95)}
                for m, v in latency.items()
            },
            "payload_chars_median": {m: int(statistics.median(v)) for m, v in payload.items()},
            "vector_store": store_report,
            "peak_rss_mb": bench.peak_rss_mb(),
            "corpus_sha": hashlib.sha256("".join(d.sha256 for d in docs).encode()).hexdigest()[:12],
        }
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        self._print(report, build_s=build_s)

    def _print(self, report: dict[str, Any], *, build_s: float) -> None:
        """The report as the text table a person reads."""
        w = self.stdout.write
        store_report = report["vector_store"]
        w(
            f"{report['documents']} documents, {report['characters']:,} characters, {report['nodes']:,} nodes, {report['passages']:,} passages"
        )
        w(f"index build {build_s:.2f} s (parse + passages; cached by content hash)")
        emb = report["embedding"]
        w(
            f"embedding   {emb['documents_embedded_now']} documents embedded now in {emb['seconds']} s"
            + (
                f" ({emb['passages_per_s']} passages/s)"
                if emb["passages_per_s"]
                else " (all cached)"
            )
        )
        w(
            f"vectors     {store_report['kind']}"
            + (
                f" (Qdrant Edge, {store_report['points']:,} points upserted in "
                f"{store_report['upsert_s']} s)"
                if store_report["kind"] == "edge"
                else ""
            )
        )
        w(f"{'mode':<16}{'p50 ms':>10}{'p95 ms':>10}{'payload chars':>16}")
        for m in MODES:
            lat = report["latency_ms"][m]
            w(f"{m:<16}{lat['p50']:>10}{lat['p95']:>10}{report['payload_chars_median'][m]:>16,}")
        w(f"peak RSS {report['peak_rss_mb']} MB")
