"""manage.py bench_dataroom: a review grid over a whole data room, on each setup (see
legalnav/bench/dataroombench.py)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.bench import dataroombench
from legalnav.bench.management.commands.bench_load import (
    _services,
    add_stack_arguments,
    quiet_http_log,
    write_prepared,
)


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
        add_stack_arguments(parser)

    def handle(self, *args: object, **opts: Any) -> None:
        if opts["prepare"]:
            write_prepared(
                self, lambda: dataroombench.prepare(int(opts["prepare"]), int(opts["unique"]))
            )
            return
        quiet_http_log()
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
