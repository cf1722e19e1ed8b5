"""What indexing embeds and how fast: passages per indexed MB with and without the passages that
need no vector (signature blocks, contents lines, page furniture), embedding throughput with one
and with several worker processes (each loads its own model, as Celery workers do), the time a
fresh process takes to its first dense answer, and peak memory.

    .venv/bin/python manage.py bench_embed [FILES] [--contracts 40] [--workers 1 2] [--json]

With no files, the first ``--contracts`` CUAD contracts in ../shared/data. Nothing is cached:
every run embeds everything it counts.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import resource
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

# Nothing here imports the models at module level: the worker processes are spawned fresh and
# import this module (to find their function) before Django is set up.


def _texts(paths: list[str]) -> tuple[list[str], int, dict[str, int]]:
    """Every passage's embedding text (heading path and text, as Corpus embeds it), the bytes
    indexed, and how many passages each skip rule took out (and left out of the list)."""
    from legalnav.retrieval.index import build_doc_index
    from legalnav.retrieval.passages import skip_embedding

    texts, size, skipped = [], 0, {}
    for path in paths:
        raw = Path(path).read_bytes()
        size += len(raw)
        text = raw.decode("utf-8")
        index = build_doc_index(text, hashlib.sha256(raw).hexdigest())
        for p in index.passages:
            why = skip_embedding(p.text)
            if why:
                skipped[why] = skipped.get(why, 0) + 1
                continue
            texts.append(p.indexed_text)
    return texts, size, skipped


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _worker(job: tuple[list[str], int]) -> dict[str, float]:
    """One worker process: load the model, embed its share in one call (sentence-transformers
    batches a call's texts by length), report its times and peak memory."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
    django.setup()
    from legalnav.retrieval.embeddings import get_embedder, share_cores

    texts, processes = job
    if processes:
        share_cores(processes)  # as each Celery pool process does
    t0 = time.perf_counter()
    embedder = get_embedder()
    if embedder is None:
        raise RuntimeError("no embedding model is configured")
    embedder.encode(["warm"])
    loaded = time.perf_counter() - t0
    t1 = time.perf_counter()
    embedder.encode(texts)
    return {
        "load_s": loaded,
        "embed_s": time.perf_counter() - t1,
        "passages": len(texts),
        "peak_mb": _peak_mb(),
    }


def _first_answer(path: str) -> dict[str, float]:
    """A fresh process: Django, the model, one document's index and vectors, one question."""
    started = time.perf_counter()
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
    django.setup()
    from legalnav.retrieval.embeddings import get_embedder
    from legalnav.retrieval.engine import Corpus, Retriever, retrieve
    from legalnav.retrieval.index import build_doc_index

    ready = time.perf_counter()
    text = Path(path).read_bytes().decode("utf-8")
    index = build_doc_index(text, hashlib.sha256(text.encode()).hexdigest())
    t_model = time.perf_counter()
    embedder = get_embedder()
    corpus = Corpus([index], embedder=embedder, texts=[text])
    corpus.ensure_vectors()
    t_question = time.perf_counter()
    retrieve(Retriever(corpus), "Which state's law governs the agreement?", "navembed", 10)
    done = time.perf_counter()
    return {
        "django_s": ready - started,
        "index_and_vectors_s": t_question - t_model,
        "question_s": done - t_question,
        "total_s": done - started,
        "peak_mb": _peak_mb(),
    }


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*")
        parser.add_argument("--contracts", type=int, default=40)
        parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        paths = [str(Path(f).resolve()) for f in opts["files"]]
        if not paths:
            folder = Path(settings.DATA_DIR) / "cuad" / "contracts"
            paths = [str(p) for p in sorted(folder.glob("*.txt"))[: opts["contracts"]]]
        missing = [p for p in paths if not Path(p).is_file()]
        if not paths or missing:
            raise CommandError(f"no such file: {', '.join(missing) or 'none given'}")
        if any(w < 1 for w in opts["workers"]):
            raise CommandError("--workers takes counts of at least 1")
        t0 = time.perf_counter()
        texts, size, skipped = _texts(paths)
        parse_s = time.perf_counter() - t0
        mb = size / 1e6
        total = len(texts) + sum(skipped.values())
        report: dict[str, Any] = {
            "documents": len(paths),
            "mb": round(mb, 3),
            "parse_s": round(parse_s, 2),
            "passages": total,
            "embedded": len(texts),
            "skipped": skipped,
            "passages_per_mb_all": round(total / mb, 1),
            "passages_per_mb_embedded": round(len(texts) / mb, 1),
            "workers": [],
        }
        ctx = multiprocessing.get_context("spawn")  # a fresh interpreter, as a worker has
        for n in opts["workers"]:
            for shared in (False, True) if n > 1 else (False,):
                shares = [(texts[i::n], n if shared else 0) for i in range(n)]
                started = time.perf_counter()
                with ctx.Pool(n) as pool:
                    runs = pool.map(_worker, shares)
                wall = time.perf_counter() - started
                embed_wall = max(r["embed_s"] for r in runs)
                report["workers"].append(
                    {
                        "workers": n,
                        "threads_each": "share" if shared else "all",
                        "passages_per_s": round(len(texts) / embed_wall, 1),
                        "wall_s_with_model_load": round(wall, 1),
                        "model_load_s": round(max(r["load_s"] for r in runs), 2),
                        "peak_mb_per_worker": round(max(r["peak_mb"] for r in runs)),
                    }
                )
        with ctx.Pool(1) as pool:
            report["first_answer"] = {
                k: round(v, 2) for k, v in pool.apply(_first_answer, (paths[0],)).items()
            }
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        w = self.stdout.write
        w(
            f"{report['documents']} documents, {report['mb']} MB, parsed in "
            f"{report['parse_s']} s: {total} passages ({report['passages_per_mb_all']}/MB), "
            f"{len(texts)} embedded ({report['passages_per_mb_embedded']}/MB); skipped "
            + (", ".join(f"{k} {v}" for k, v in sorted(skipped.items())) or "none")
        )
        for row in report["workers"]:
            w(
                f"  {row['workers']} worker process(es), torch on "
                f"{'its share of the' if row['threads_each'] == 'share' else 'all'} cores: "
                f"{row['passages_per_s']} passages/s "
                f"(model load {row['model_load_s']} s, wall {row['wall_s_with_model_load']} s), "
                f"peak {row['peak_mb_per_worker']} MB each"
            )
        fa = report["first_answer"]
        w(
            f"  fresh process to first navembed answer: {fa['total_s']} s (Django "
            f"{fa['django_s']} s, model + one contract's vectors {fa['index_and_vectors_s']} s, "
            f"the question {fa['question_s']} s), peak {fa['peak_mb']:.0f} MB"
        )
