"""Parse-and-enrich throughput over a folder of agreements (embeddings excluded)."""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.documents.parsing import parse_document
from legalnav.documents.parsing.extract import extract_text

DEFAULT = settings.DATA_DIR / "agreements" / "edgar2020"


class Command(BaseCommand):
    help = "Print parse-and-enrich throughput (MB/s, nodes/s) and peak memory."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", nargs="?", default=str(DEFAULT))
        parser.add_argument("--repeat", type=int, default=1)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **opts: object) -> None:
        paths = sorted(Path(str(opts["folder"])).glob("*.txt"))
        if not paths:
            raise CommandError(f"No .txt files in {opts['folder']}.")
        texts = [extract_text(p.read_bytes(), p.name, max_bytes=1 << 30).text for p in paths]
        total_bytes = sum(len(t.encode("utf-8")) for t in texts)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        best = float("inf")
        nodes = refs = terms = 0
        for _ in range(int(opts["repeat"])):  # type: ignore[call-overload]
            nodes = refs = terms = 0
            start = time.perf_counter()
            for text in texts:
                parsed = parse_document(text)
                nodes += len(parsed.nodes)
                refs += len(parsed.refs)
                terms += len(parsed.terms)
            best = min(best, time.perf_counter() - start)
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        result = {
            "documents": len(texts),
            "megabytes": round(total_bytes / 1e6, 2),
            "seconds": round(best, 2),
            "mb_per_s": round(total_bytes / 1e6 / best, 2),
            "nodes": nodes,
            "nodes_per_s": round(nodes / best),
            "cross_references": refs,
            "defined_terms": terms,
            "peak_rss_mb": round(peak_mb, 1),
            "rss_before_mb": round(rss_before / 1024, 1),
        }
        if opts["json"]:
            self.stdout.write(json.dumps(result))
            return
        for key, value in result.items():
            self.stdout.write(f"{key:<18} {value}")
