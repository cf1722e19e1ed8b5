"""``manage.py bench_ocr``: how well and how fast OCR reads scanned contracts.

    manage.py bench_ocr                      # 20 CUAD dev contracts, scanned at 200 dpi
    manage.py bench_ocr --contracts 5 --json

Character error rate, navembed recall@10 on the contracts' CUAD questions (scanned against text),
pages per minute with one and two workers, and the OCR process's peak memory
(see legalnav/bench/ocr_bench.py).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.documents.parsing.extract.ocr import missing


class Command(BaseCommand):
    help = "OCR bench: character error rate, recall@10 scanned vs text, pages per minute, memory."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--contracts", type=int, default=20)
        parser.add_argument(
            "--sequential", type=int, default=3, help="Contracts read again by one worker."
        )
        parser.add_argument("--cache", default="", help="Index cache (default: the door's).")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **opts: object) -> None:
        from legalnav.bench import ocr_bench

        why = missing()
        if why:
            raise CommandError(f"OCR is not available here: {why}.")
        contracts = int(opts["contracts"])  # type: ignore[call-overload]
        if not 1 <= contracts <= 40:
            raise CommandError("--contracts must be between 1 and 40 (the CUAD dev sample).")
        cache = Path(str(opts["cache"]) or settings.LEGALNAV_RETRIEVE_CACHE)
        report = ocr_bench.run(
            contracts=contracts,
            sequential=int(opts["sequential"]),  # type: ignore[call-overload]
            cache=cache,
            progress=lambda line: self.stderr.write(line),
        )
        if opts["json"]:
            data = asdict(report)
            for c in data["contracts"]:
                c.pop("text")
            self.stdout.write(json.dumps(data, indent=2))
        else:
            self.stdout.write(report.table())
