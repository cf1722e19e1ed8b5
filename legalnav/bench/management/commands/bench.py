"""``manage.py bench``: indexing throughput, embedding throughput, query latency p50/p95 per
mode and peak memory, as a table (or ``--json``; ``--out FILE`` writes the JSON too).

    manage.py bench                                   # the demo documents
    manage.py bench ../shared/data/cuad/contracts/A.txt B.txt --repeat 3 --json
"""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.bench.bench import BENCH_MODES, bench_run, format_bench
from legalnav.evaluation.runner import check_mode


class Command(BaseCommand):
    help = "Speed bench: indexing and embedding throughput, latency per mode, peak memory."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*", help="Plain-text documents (default: the demo).")
        parser.add_argument("--modes", nargs="+", default=None)
        parser.add_argument("--repeat", type=int, default=1, help="Rounds of the question set.")
        parser.add_argument("--embed-sample", type=int, default=128)
        parser.add_argument(
            "--cache",
            default="",
            help="Index cache folder (default var/retrieve-cache, shared with the retrieve door).",
        )
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--out", default="", help="Also write the JSON report here.")

    def handle(self, *args: object, **opts: object) -> None:
        files = [Path(str(p)) for p in opts["files"]]  # type: ignore[attr-defined]
        paths = files or sorted((Path(settings.BASE_DIR) / "demo" / "documents").glob("*.txt"))
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise CommandError(f"No such file: {', '.join(missing)}")
        if not paths:
            raise CommandError("No documents to benchmark.")
        modes = list(opts["modes"] or BENCH_MODES)  # type: ignore[call-overload]
        try:
            modes = [check_mode(m) for m in modes]
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if int(opts["repeat"]) < 1 or int(opts["embed_sample"]) < 1:  # type: ignore[call-overload]
            raise CommandError("--repeat and --embed-sample must be at least 1")
        cache = Path(str(opts["cache"]) or Path(settings.VAR_DIR) / "retrieve-cache")
        report = bench_run(
            paths=paths,
            cache_dir=cache,
            modes=modes,
            repeat=int(opts["repeat"]),  # type: ignore[call-overload]
            embed_sample=int(opts["embed_sample"]),  # type: ignore[call-overload]
        )
        if opts["out"]:
            out = Path(str(opts["out"]))
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(report, indent=2), encoding="utf-8")
        self.stdout.write(json.dumps(report, indent=2) if opts["json"] else format_bench(report))
