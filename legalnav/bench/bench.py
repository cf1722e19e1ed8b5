"""The speed bench: indexing throughput, embedding throughput, query latency per mode (p50/p95)
and peak memory, on a set of real documents.

Indexing is measured cold (parse, structure, enrichment and passages, no cache); embedding on a
fixed sample of passages, fresh; latency on a warm corpus (its vectors cached, its lexical index
built by one untimed question per mode), each question's own embedding included, since a user's
question is never cached. Nothing here calls an LLM.
"""

from __future__ import annotations

import resource
import statistics
import time
from pathlib import Path
from typing import Any

from legalnav.evaluation.baselines import NAIVE_MODES, NaiveCorpus
from legalnav.evaluation.runner import DEFAULT_MODES
from legalnav.retrieval.engine import Corpus, Retriever, retrieve
from legalnav.retrieval.index import DocIndex, IndexCache, build_doc_index

# Questions a reviewer asks of any commercial agreement (the retrieval bench asks four more).
QUESTIONS = [
    "Which state's law governs the agreement?",
    "Can a party assign the agreement without consent?",
    "How can the agreement be terminated for convenience?",
    "What is the term of the agreement and how is it renewed?",
    "What notice period applies to termination?",
    "Is there a cap on liability?",
    "Are consequential damages excluded?",
    "What are the confidentiality obligations?",
    "Who are the parties to the agreement?",
    "When is the agreement effective?",
    "What fees or payments are due and when?",
    "What interest rate applies to overdue amounts?",
    "What are the events of default?",
    "What conditions must be satisfied before closing?",
    "How are disputes resolved?",
    "What indemnification obligations exist?",
]
BENCH_MODES = DEFAULT_MODES


LEXICAL_MODES = frozenset({"navembed:bm25", "inject", "naive:bm25"})  # no embedding needed


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of ``values`` (nearest rank below), to 2 places."""
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def bench_run(
    *,
    paths: list[Path],
    cache_dir: Path,
    modes: list[str] | None = None,
    repeat: int = 1,
    embed_sample: int = 128,
    k: int = 10,
    embedder=None,  # type: ignore[no-untyped-def]
) -> dict[str, Any]:
    """Measure and return the bench report (a JSON-able dict)."""
    if embedder is None:
        from legalnav.retrieval.embeddings import get_embedder

        embedder = get_embedder()
    modes = modes or BENCH_MODES
    texts = [p.read_bytes().decode("utf-8") for p in paths]
    chars = sum(len(t) for t in texts)
    report: dict[str, Any] = {
        "documents": len(texts),
        "characters": chars,
        "embedding_model": embedder.name,
    }
    built, report["indexing"] = _measure_indexing(texts, chars=chars)
    report["embedding"] = _measure_embedding(embedder, built, embed_sample=embed_sample)
    corpus, retriever, naive, warmup_s = _warm_corpus(
        texts, cache_dir=cache_dir, embedder=embedder, modes=modes
    )
    latency, payload = _measure_latency(retriever, naive, modes=modes, repeat=repeat, k=k)
    report["warm_corpus"] = {
        "passages": corpus.size,
        "embedding_missing_s": round(warmup_s, 2),
    }
    report["latency_ms"] = latency
    report["payload_chars_median"] = payload
    report["peak_rss_mb"] = peak_rss_mb()
    return report


def _measure_indexing(texts: list[str], *, chars: int) -> tuple[list[DocIndex], dict[str, Any]]:
    """Indexing, cold: parse + structure + enrichment + passages, as a new document gets."""
    started = time.perf_counter()
    built = [build_doc_index(t, f"bench-{i}") for i, t in enumerate(texts)]
    seconds = time.perf_counter() - started
    nodes = sum(len(d.nodes) for d in built)
    passages = sum(len(d.passages) for d in built)
    return built, {
        "seconds": round(seconds, 3),
        "mb_per_s": round(chars / 1e6 / seconds, 3) if seconds else None,
        "nodes": nodes,
        "nodes_per_s": round(nodes / seconds, 1) if seconds else None,
        "passages": passages,
    }


def _measure_embedding(
    embedder: Any,  # noqa: ANN401
    built: list[DocIndex],
    *,
    embed_sample: int,
) -> dict[str, Any]:
    """Embedding, fresh: a fixed sample of passages (the first ones of each document in turn)."""
    sample = [
        p.indexed_text for d in built for p in d.passages[: max(1, embed_sample // len(built))]
    ][:embed_sample]
    embedder.encode(sample[:2])  # load the model outside the timing
    started = time.perf_counter()
    embedder.encode(sample)
    seconds = time.perf_counter() - started
    return {
        "passages": len(sample),
        "seconds": round(seconds, 3),
        "passages_per_s": round(len(sample) / seconds, 1) if seconds else None,
        "chars_per_s": round(sum(len(s) for s in sample) / seconds) if seconds else None,
    }


def _warm_corpus(
    texts: list[str],
    *,
    cache_dir: Path,
    embedder: Any,  # noqa: ANN401
    modes: list[str],
) -> tuple[Corpus, Retriever, NaiveCorpus, float]:
    """The corpus for the latency runs, every passage embedded (and cached) before the clock
    starts; with the seconds the missing embeddings took."""
    cache = IndexCache(cache_dir)
    docs = [cache.get(t) for t in texts]
    corpus = Corpus(docs, embedder=embedder, cache=cache, texts=list(texts))
    started = time.perf_counter()
    if corpus.size and any(m not in LEXICAL_MODES for m in modes):
        corpus.ensure_vectors()  # embed what is missing
    warmup_s = time.perf_counter() - started
    cache.flush()
    retriever = Retriever(corpus)
    naive = NaiveCorpus(texts, embedder=embedder, cache_dir=cache_dir)
    if any(m in ("naive:dense", "naive:rrf") for m in modes):
        naive.matrix()
    return corpus, retriever, naive, warmup_s


def _measure_latency(
    retriever: Retriever, naive: NaiveCorpus, *, modes: list[str], repeat: int, k: int
) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    """Per mode, the latency percentiles (ms) and the median payload (characters)."""
    latency: dict[str, dict[str, float]] = {}
    payload: dict[str, int] = {}
    for mode in modes:
        # One untimed question first: lazily built indexes (BM25, the stacked vectors) are
        # built once per corpus, not per question.
        if mode in NAIVE_MODES:
            naive.search("warm up", mode, k)
        else:
            retrieve(retriever, "warm up", mode, k)
        times, sizes = [], []
        for _ in range(max(1, repeat)):
            for question in QUESTIONS:
                t0 = time.perf_counter()
                if mode in NAIVE_MODES:
                    hits = naive.search(question, mode, k)
                    size = sum(h.end - h.start for h in hits)
                else:
                    size = retrieve(retriever, question, mode, k).payload_chars
                times.append((time.perf_counter() - t0) * 1000)
                sizes.append(size)
        latency[mode] = {
            "p50": percentile(times, 0.5),
            "p95": percentile(times, 0.95),
            "n": len(times),
        }
        payload[mode] = int(statistics.median(sizes))
    return latency, payload


def format_bench(report: dict[str, Any]) -> str:
    idx, emb = report["indexing"], report["embedding"]
    lines = [
        f"{report['documents']} documents, {report['characters']:,} characters",
        f"indexing   {idx['seconds']} s cold: {idx['mb_per_s']} MB/s, {idx['nodes']:,} nodes "
        f"({idx['nodes_per_s']}/s), {idx['passages']:,} passages",
        f"embedding  {emb['passages']} passages in {emb['seconds']} s: {emb['passages_per_s']} "
        f"passages/s ({emb['chars_per_s']:,} chars/s), {report['embedding_model']}",
        "",
        f"{'mode':<22}{'p50 ms':>10}{'p95 ms':>10}{'payload chars':>16}",
    ]
    for mode, lat in report["latency_ms"].items():
        lines.append(
            f"{mode:<22}{lat['p50']:>10}{lat['p95']:>10}{report['payload_chars_median'][mode]:>16,}"
        )
    lines.append(f"\npeak RSS {report['peak_rss_mb']} MB")
    return "\n".join(lines)
