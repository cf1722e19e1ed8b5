"""The measurement door: ``manage.py retrieve --json`` (see RETRIEVE-PROTOCOL.md).

Reads one JSON request a line on stdin, writes one JSON response a line on stdout, in the same
order; logs go to stderr. Each distinct set of documents is an ad-hoc matter indexed into a cache
of its own (keyed by content hash, reused by later processes), never into a user's matter. No
network and no API key are needed: navindex runs its deterministic planner.
"""

from __future__ import annotations

import time

from legalnav.retrieval.adhoc import DoorCommand, RequestError
from legalnav.retrieval.engine import Retriever, normalise_mode, rank_documents, retrieve


class Command(DoorCommand):
    help = "Answer retrieval requests (JSON lines on stdin) with ranked character ranges."
    cache_help = (
        "Folder for the per-document indexes (default settings.LEGALNAV_RETRIEVE_CACHE, "
        "var/retrieve-cache)."
    )

    door = "retrieve"
    empty = {"results": [], "payload_chars": 0}

    def respond(self, request: dict[str, object], started: float) -> dict[str, object]:
        ident = request.get("id")
        paths = request.get("documents")
        question = request.get("question")
        if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
            raise RequestError("'documents' must be a non-empty list of file paths")
        if not isinstance(question, str) or not question.strip():
            raise RequestError("'question' must be a non-empty string")
        k = request.get("k", 10)
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise RequestError("'k' must be a positive integer")
        unit = request.get("unit", "span")
        if unit not in ("span", "document"):
            raise RequestError("'unit' must be 'span' or 'document'")
        mode = str(request.get("mode", "navembed"))
        normalise_mode(mode)  # unknown modes fail before any indexing work
        retriever = self._retriever(paths)
        if unit == "document":
            result = rank_documents(retriever, question, mode, k)
        else:
            result = retrieve(retriever, question, mode, k)
        results = [
            {"path": paths[h.doc], "start": h.start, "end": h.end, "score": round(h.score, 6)}
            for h in result.hits[:k]
        ]
        return {
            "id": ident,
            "results": results,
            "payload_chars": int(result.payload_chars),
            "latency_ms": round((time.perf_counter() - started) * 1000, 2),
            "strategy": result.strategy,
        }

    def _retriever(self, paths: list[str]) -> Retriever:
        return self.adhoc.retriever(paths)
