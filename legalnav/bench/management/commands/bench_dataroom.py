"""manage.py bench_dataroom: a review grid over a whole data room, on each setup (see
legalnav/bench/dataroombench.py)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.bench import dataroombench
from legalnav.bench.management.commands.bench_load import _services, argparse_hidden


class Command(BaseCommand):
    help = (
        "Fill a 41-column grid over N documents (CUAD + EDGAR, repeated under new names) on a "
        "fresh stack and report fill time, cells/s, page latency while filling, XLSX export "
        "time, peak memory and stuck jobs (must be 0)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--documents", type=int, nargs="+", default=[500])
        parser.add_argument(
            "--unique", type=int, default=0, help="distinct texts to repeat (0: all 502)"
        )
        parser.add_argument("--setup", choices=["embedded", "scaled", "both"], default="both")
        parser.add_argument(
            "--workers", type=int, nargs="+", default=[1, 2], help="scaled: Celery workers"
        )
        parser.add_argument("--settle", type=float, default=7200.0, help="the longest fill")
        parser.add_argument(
            "--postgres-url",
            default="postgres://postgres@127.0.0.1:5432/postgres",
            help="a server where a fresh database is made for each scaled run",
        )
        parser.add_argument("--redis-url", default="", help="default: a private redis-server")
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--prepare", type=int, default=0, help=argparse_hidden())

    def handle(self, *args: object, **opts: Any) -> None:
        if opts["prepare"]:
            try:
                world = dataroombench.prepare(int(opts["prepare"]), int(opts["unique"]))
            except RuntimeError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(json.dumps(world))
            return
        import logging

        logging.getLogger("httpx").setLevel(logging.WARNING)
        runs = []
        if opts["setup"] in ("embedded", "both"):
            runs.append(("embedded", 0))
        if opts["setup"] in ("scaled", "both"):
            runs += [("scaled", n) for n in opts["workers"]]
        results = []
        for documents in opts["documents"]:
            for setup, workers in runs:
                self.stderr.write(f"{setup}, {workers or 'no'} workers, {documents} documents")
                with _services(setup, opts) as (database_url, redis_url):
                    result = dataroombench.run(
                        setup=setup,
                        workers=workers,
                        documents=documents,
                        unique=int(opts["unique"]),
                        database_url=database_url,
                        redis_url=redis_url,
                        settle=opts["settle"],
                        say=self.stderr.write,
                    )
                results.append(result)
                self.stdout.write(dataroombench.line(result))
        if opts["json"]:
            self.stdout.write(json.dumps(results, indent=2))
        if any(r["stuck"] or r["status"] != "done" for r in results):
            raise CommandError("a grid did not finish, or jobs were stuck (must be 0)")
