"""manage.py bench_load: many reviewers at once against a whole stack, over HTTP.

    manage.py bench_load --setup embedded --users 10 50 --seconds 60
    manage.py bench_load --setup scaled --users 10 50 --seconds 60   # PostgreSQL + Redis + 2 workers
    manage.py bench_load --dataroom        # a 532-file data room uploaded as one zip, both setups

Prints requests served, p50/p95 page and API latency, questions and documents finished, and the
two figures that must be 0: jobs stuck and jobs lost. See legalnav.bench.loadbench.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from legalnav.bench import loadbench


class Command(BaseCommand):
    help = "Drive a whole legalnav stack with N concurrent reviewers and count stuck/lost jobs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--setup", choices=["embedded", "scaled", "both"], default="both")
        parser.add_argument("--users", type=int, nargs="+", default=[10, 50])
        parser.add_argument("--seconds", type=float, default=60.0)
        parser.add_argument("--settle", type=float, default=240.0, help="wait for the last jobs")
        parser.add_argument(
            "--dataroom",
            action="store_true",
            help="instead: upload the CUAD + EDGAR data room as one zip and time it until every "
            "document has ended (legalnav.bench.uploadbench; --settle bounds the wait)",
        )
        add_stack_arguments(parser)

    def handle(self, *args: object, **opts: Any) -> None:
        if opts["prepare"]:
            write_prepared(self, lambda: loadbench.prepare(int(opts["prepare"])))
            return
        quiet_http_log()
        setups = ["embedded", "scaled"] if opts["setup"] == "both" else [opts["setup"]]
        if opts["dataroom"]:
            self._dataroom(setups, opts)
            return
        results = []
        for setup in setups:
            for users in opts["users"]:
                self.stderr.write(f"{setup}, {users} users, {opts['seconds']:.0f} s")
                with _services(setup, opts) as (database_url, redis_url):
                    result = loadbench.run_bench(
                        setup=setup,
                        users=users,
                        seconds=opts["seconds"],
                        settle=opts["settle"],
                        database_url=database_url,
                        redis_url=redis_url,
                        say=self.stderr.write,
                    )
                results.append(result)
                self.stdout.write(_line(result))
        if opts["json"]:
            self.stdout.write(json.dumps(results, indent=2))
        if any(r["stuck"] or r["lost"] for r in results):
            raise CommandError("jobs were stuck or lost (both must be 0)")

    def _dataroom(self, setups: list[str], opts: dict[str, Any]) -> None:
        from legalnav.bench import uploadbench

        results = []
        for setup in setups:
            self.stderr.write(f"{setup}: a data room as one zip")
            with _services(setup, opts) as (database_url, redis_url):
                results.append(
                    uploadbench.run(
                        setup=setup,
                        database_url=database_url,
                        redis_url=redis_url,
                        settle=max(opts["settle"], 3600.0),
                        say=self.stderr.write,
                    )
                )
            self.stdout.write(uploadbench.table(results[-1:]))
        if opts["json"]:
            self.stdout.write(json.dumps(results, indent=2))
        if any(r["stuck"] for r in results):
            raise CommandError("documents were stuck (must be 0)")


def add_stack_arguments(parser: CommandParser) -> None:
    """The options of a bench that starts whole stacks: where a scaled run gets its PostgreSQL
    and Redis, ``--json``, and the hidden ``--prepare N`` the bench runs inside a stack."""
    parser.add_argument(
        "--postgres-url",
        default="postgres://postgres@127.0.0.1:5432/postgres",
        help="a server where a fresh database is made for each scaled run",
    )
    parser.add_argument("--redis-url", default="", help="default: a private redis-server")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--prepare", type=int, default=0, help=argparse.SUPPRESS)


def write_prepared(command: BaseCommand, prepare: Callable[[], object]) -> None:
    """``--prepare``: make the bench's data in the stack's database and print it as JSON for the
    bench (``loadbench.stack_json``) to read; a refusal is the command's error."""
    try:
        world = prepare()
    except RuntimeError as exc:
        raise CommandError(str(exc)) from None
    command.stdout.write(json.dumps(world))


def quiet_http_log() -> None:
    """Keep httpx's line for every request out of the bench's output."""
    logging.getLogger("httpx").setLevel(logging.WARNING)


def _line(r: dict[str, Any]) -> str:
    q, d = r["questions"], r["documents"]
    return (
        f"{r['setup']:8} N={r['users']:<3} {r['requests']:>6} requests in {r['elapsed_s']:.0f} s | "
        f"page p50 {r['page_ms']['p50']:.0f} ms p95 {r['page_ms']['p95']:.0f} ms | "
        f"API p50 {r['api_ms']['p50']:.0f} ms p95 {r['api_ms']['p95']:.0f} ms | "
        f"questions {q['answered']}/{q['asked']} answered, {q['failed']} failed | "
        f"documents {d['indexed']}/{d['uploaded']} indexed, {d['failed']} failed | "
        f"stuck {r['stuck']} lost {r['lost']}"
        + (f" | {r['fault']}" if r["fault"] else "")
        + (f" | errors {r['http_errors']}" if r["http_errors"] else "")
        + "".join(
            f"\n           {what}: p50 {t['p50']} ms p95 {t['p95']} ms ({t['n']})"
            for what, t in r.get("by_request", {}).items()
        )
        + (
            "\n           slowest: "
            + ", ".join(f"{s['what']} at {s['at_s']} s {s['ms']} ms" for s in r["slowest"][:5])
            if r.get("slowest")
            else ""
        )
    )


class _services:
    """A fresh PostgreSQL database and a Redis for a scaled run (nothing for embedded)."""

    def __init__(self, setup: str, opts: dict[str, Any]) -> None:
        self.setup, self.opts = setup, opts
        self.db_name = ""
        self.redis: subprocess.Popen[bytes] | None = None
        self.tmp = ""

    def __enter__(self) -> tuple[str, str]:
        if self.setup == "embedded":
            return "", ""
        import psycopg

        server = self.opts["postgres_url"]
        self.db_name = f"legalnav_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.db_name}"')
        database_url = server.rsplit("/", 1)[0] + "/" + self.db_name
        redis_url = self.opts["redis_url"]
        if not redis_url:
            port = loadbench._free_port()
            self.tmp = tempfile.mkdtemp(prefix="bench-redis-")
            self.redis = subprocess.Popen(
                ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                 "--appendonly", "no", "--dir", self.tmp],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            redis_url = f"redis://127.0.0.1:{port}/0"
            import redis

            loadbench._wait(lambda: redis.Redis.from_url(redis_url).ping(), 15, "redis-server")
        return database_url, redis_url

    def __exit__(self, *exc: object) -> None:
        if self.redis is not None:
            self.redis.terminate()
            self.redis.wait(timeout=10)
            shutil.rmtree(self.tmp, ignore_errors=True)
        if self.db_name:
            import psycopg

            with psycopg.connect(self.opts["postgres_url"], autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')


__all__ = ["Command", "Path"]
