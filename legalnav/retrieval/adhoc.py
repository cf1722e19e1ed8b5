"""Ad-hoc corpora for the measurement doors (``retrieve --json``, ``extract --json``).

A door is handed file paths, not a user's matter. Each distinct list of files is indexed into a
cache of its own, keyed by content hash so that later processes reuse the indexes and vectors,
and the last few corpora are kept in memory for the questions that follow in the same batch.
Both doors share this, so a contract indexed for one is not indexed again for the other.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from legalnav.core.lru import LruCache
from legalnav.retrieval.embeddings import Embedder, get_embedder
from legalnav.retrieval.engine import Corpus, Retriever
from legalnav.retrieval.index import IndexCache
from legalnav.retrieval.rerank import get_reranker

CORPUS_CACHE = 4  # corpora held in memory: a batch usually asks about one set at a time


class AdHocCorpora:
    """Texts read from disk (exactly as the protocol decodes them) and retrievers over them."""

    def __init__(self, folder: Path, *, embedder: Embedder | None = None) -> None:
        self.cache = IndexCache(folder)
        self.embedder = embedder if embedder is not None else get_embedder()
        self.texts: dict[str, tuple[float, int, str, str]] = {}  # path -> mtime, size, text, sha
        self.corpora: LruCache[tuple[str, ...], Retriever] = LruCache(CORPUS_CACHE)

    def text(self, path: str) -> str:
        """The file decoded as UTF-8 with no newline translation (the offsets' reference), read
        again only when its size or modification time changes."""
        return self._read(path)[2]

    def _read(self, path: str) -> tuple[float, int, str, str]:
        stat = os.stat(path)
        cached = self.texts.get(path)
        if cached and cached[0] == stat.st_mtime and cached[1] == stat.st_size:
            return cached
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8")
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self.texts[path] = (stat.st_mtime, stat.st_size, text, sha)
        return self.texts[path]

    def retriever(self, paths: list[str]) -> Retriever:
        """A retriever over these files, indexing those the cache has not seen. A corpus already
        in memory is found by its files' content hashes (known while their size and mtime stay
        the same) without asking the index cache for each document, which holds only its last
        500 in memory: a request over the 2,914 AILA judgments took 3.6 s to find its corpus."""
        read = [self._read(p) for p in paths]

        def build() -> Retriever:
            texts = [r[2] for r in read]
            docs = [self.cache.get(t) for t in texts]
            return Retriever(
                Corpus(docs, embedder=self.embedder, cache=self.cache, texts=texts),
                reranker=get_reranker(),
            )

        return self.corpora.get_or_make(tuple(r[3] for r in read), build)

    def flush(self) -> int:
        return self.cache.flush()


class RequestError(ValueError):
    """A request line a door cannot read: its response carries the message as ``error``."""


class DoorCommand(BaseCommand):
    """What the measurement doors (``retrieve --json``, ``extract --json``) share: the options,
    the loop that reads a request a line from stdin and writes its one response line to
    stdout, flushed at once (logs go to stderr), and the reading of each line as a JSON object.
    A subclass answers one request in ``respond`` (raising ``RequestError`` for a request it
    cannot take), names the fields an error response carries empty (``empty``) and may flush
    the index cache more often (``flush_every``); whatever goes wrong, every line is answered."""

    cache_help = "Folder for the per-document indexes (default var/retrieve-cache)."
    flush_every = 50  # responses between writes of the index cache
    door = "door"  # the door's name in the log
    empty: dict[str, object] = {}  # an error response's fields besides id, latency and error

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--json", action="store_true", required=True, help="JSON lines in and out."
        )
        parser.add_argument(
            "--cache", default=str(settings.LEGALNAV_RETRIEVE_CACHE), help=self.cache_help
        )

    def respond(self, request: dict[str, object], started: float) -> dict[str, object]:
        raise NotImplementedError

    def answer(self, raw: str, started: float) -> dict[str, object]:
        """The response to one line: ``respond``'s, or an error response; never raises."""
        ident: object = None
        try:
            try:
                request = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise RequestError(f"not a JSON object: {exc.msg}") from exc
            if not isinstance(request, dict):
                raise RequestError("each line must be a JSON object")
            ident = request.get("id")
            return self.respond(request, started)
        except (RequestError, ValueError, OSError, UnicodeDecodeError) as exc:
            return self._error(ident, str(exc), started)
        except Exception as exc:  # every line gets an answer, whatever went wrong
            logging.getLogger(type(self).__module__).exception("%s failed for %r", self.door, ident)
            return self._error(ident, f"{exc.__class__.__name__}: {exc}", started)

    def _error(self, ident: object, message: str, started: float) -> dict[str, object]:
        return {
            "id": ident,
            **self.empty,
            "latency_ms": round((time.perf_counter() - started) * 1000, 2),
            "error": message,
        }

    def handle(self, *args: object, **opts: object) -> None:
        logging.basicConfig(stream=sys.stderr, level=logging.INFO)
        self.adhoc = AdHocCorpora(Path(str(opts["cache"])))
        self.cache = self.adhoc.cache
        out = sys.stdout
        count = 0
        try:
            for raw in sys.stdin:
                if not raw.strip():
                    continue
                started = time.perf_counter()
                response = self.answer(raw, started)
                out.write(json.dumps(response, ensure_ascii=False) + "\n")
                out.flush()
                count += 1
                if count % self.flush_every == 0:
                    self.adhoc.flush()
        finally:
            self.adhoc.flush()
