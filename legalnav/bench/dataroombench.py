"""The data-room grid benchmark behind ``manage.py bench_dataroom``: a whole stack started from
nothing (``loadbench.Stack``), N documents put in one matter, a grid of CUAD's 41 columns over
all of them made through the API, and timed until it ends.

The documents are CUAD's contracts and the EDGAR agreements (``--unique`` of them, all by
default), repeated under new names to reach N; a repeat ends with a line naming it, so it is a
document of its own (a byte-identical file would be recorded as a copy), while its passages'
vectors come from the cache as they would for a clause seen before. They are indexed by a
subprocess in the stack's own database before the clock starts.

Measured: the fill's time and cells per second (the grid's own count), the peak resident memory
of each process tree while filling and while exporting, the grid page's latency p50/p95 while it
fills (a signed-in reviewer opening it every half second), the XLSX export's time and size, and
what is stuck: the grid or any of its chunks still open once it has ended, which must be 0. With
workers, the last worker is SIGKILLed when a third of the cells are written and started again
15 s later: the chunk it held is sent again by the sweeper.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from legalnav.bench.loadbench import (
    PASSWORD,
    Stack,
    _pct,
    require_bench_stack,
    sign_in,
    stack_json,
)
from legalnav.bench.uploadbench import MemorySampler

OPEN = ("queued", "running")


def sources(unique: int) -> list[Path]:
    from legalnav.evaluation import gold

    data = gold.data_dir()
    files = sorted((data / "cuad" / "contracts").glob("*.txt"))
    files += sorted((data / "agreements" / "edgar2020").glob("ud*.txt"))
    return files[:unique] if unique else files


def prepare(documents: int, unique: int) -> dict[str, Any]:
    """In the stack's database (this process's settings): a matter of ``documents`` indexed
    documents and a member with a password and an API token."""
    require_bench_stack()
    from django.contrib.auth import get_user_model

    from legalnav.api.tokens import api_token_create
    from legalnav.documents.actions import document_upload
    from legalnav.documents.models import Document
    from legalnav.matters.models import Matter, Membership

    files = sources(unique)
    matter = Matter.objects.create(name="Data room grid benchmark")
    user = get_user_model().objects.create_user("dataroom", password=PASSWORD)
    Membership.objects.create(matter=matter, user=user, role=Membership.Role.EDITOR)
    started = time.monotonic()
    for i in range(documents):
        source = files[i % len(files)]
        data = source.read_bytes()
        name = source.name
        if i >= len(files):
            copy = i // len(files)
            name = f"{source.stem} (set {copy + 1}){source.suffix}"
            data += f"\n\nData room set {copy + 1}.\n".encode()
        document_upload(
            matter=matter, user=None, filename=name[:200], data=data, via="command", here=True
        )
    states = Document.objects.filter(matter=matter).values_list("status", "error_message")
    failed = [why for status, why in states if status != Document.Status.INDEXED]
    return {
        "matter": matter.pk,
        "indexed": len(states) - len(failed),
        "not_indexed": failed[:5],
        "username": user.get_username(),
        "token": api_token_create(user=user, name="bench")[1],
        "documents": documents,
        "unique": len(files),
        "index_s": round(time.monotonic() - started, 1),
    }


# How long the grid's progress may go unread (a restarting web worker, a 5xx under load) before
# the benchmark gives up on the stack.
PROGRESS_GRACE_S = 120.0


def _progress(
    api: httpx.Client, matter: int, grid: int, last: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The grid's status and counts, as the API gives them to any client. A poll that fails (a
    connection error, a timeout, a 5xx) returns ``last`` and is tried again on the next call, as
    a client would; only ``PROGRESS_GRACE_S`` of failures in a row stop the benchmark."""
    failing_since = last.get("_failing_since") if last else None
    try:
        got = api.get(f"/api/v1/matters/{matter}/grids/{grid}")
        if got.status_code < 500:
            got.raise_for_status()  # a 4xx is the benchmark's own mistake: stop at once
            data = got.json()
            return {k: data[k] for k in ("status", "cells_done", "cells_total", "error")}
        problem = f"HTTP {got.status_code}"
    except (httpx.TransportError, ValueError) as exc:
        problem = exc.__class__.__name__
    now = time.monotonic()
    if last is None or (failing_since is not None and now - failing_since > PROGRESS_GRACE_S):
        raise RuntimeError(f"the grid's progress could not be read: {problem}")
    return {**last, "_failing_since": failing_since if failing_since is not None else now}


def _jobs(env: dict[str, str], grid: int) -> dict[str, Any]:
    code = (
        "import json,sys,django;django.setup();"
        "from legalnav.review.models import Grid, GridChunk;"
        "g=Grid.objects.get(pk=int(sys.argv[1]));"
        "c=list(GridChunk.objects.filter(grid=g).values_list('status','attempts'));"
        "print(json.dumps({'status':g.status,'cells_done':g.cells_done,'cells_total':g.cells_total,"
        "'error':g.error_message,'chunks':c}))"
    )
    return stack_json(env, "-c", code, str(grid))  # type: ignore[no-any-return]


def _signed_in(url: str, username: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=120)
    sign_in(client, url, username)
    return client


class PageWatcher(threading.Thread):
    """A reviewer opening the grid page every half second while it fills."""

    def __init__(self, client: httpx.Client, path: str) -> None:
        super().__init__(daemon=True)
        self.client, self.path = client, path
        self.ms: list[float] = []
        self.errors = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            started = time.perf_counter()
            try:
                status = self.client.get(self.path).status_code
            except httpx.HTTPError:
                status = 599
            self.ms.append((time.perf_counter() - started) * 1000)
            self.errors += status >= 400
            self.done.wait(0.5)


def run(
    *,
    setup: str,
    workers: int,
    documents: int,
    unique: int,
    database_url: str,
    redis_url: str,
    settle: float,
    say: Any,
) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix=f"bench-dataroom-{setup}-"))
    stack = Stack(setup, folder, say, workers=workers)
    sampler = MemorySampler(stack)
    try:
        stack.start(database_url=database_url, redis_url=redis_url)
        say(f"  indexing {documents} documents")
        world = stack_json(
            stack.env, "manage.py", "bench_dataroom", "--prepare", str(documents),
            "--unique", str(unique),
        )  # fmt: skip
        say(
            f"  {world['indexed']} indexed in {world['index_s']:.0f} s ({world['unique']} distinct "
            f"texts); not indexed: {world['not_indexed']}"
        )
        matter = world["matter"]
        api = httpx.Client(
            base_url=stack.url, timeout=300, headers={"Authorization": f"Bearer {world['token']}"}
        )
        sampler.start()
        started = time.monotonic()
        made = api.post(
            f"/api/v1/matters/{matter}/grids",
            json={"title": "Data room", "preset": "cuad", "mode": "offline"},
        )
        if made.status_code not in (201, 202):
            raise RuntimeError(f"the grid was refused: {made.status_code} {made.text[:300]}")
        grid = made.json()["id"]
        page = _signed_in(stack.url, world["username"])
        watcher = PageWatcher(page, f"/matters/{matter}/grids/{grid}/")
        watcher.start()
        killed = ""
        deadline = started + settle
        # Progress through the API, as a client polls it: a process started each second to read
        # the database would take half a core of a 2-core machine from the workers it times.
        state = _progress(api, matter, grid)
        while state["status"] in OPEN and time.monotonic() < deadline:
            if stack.workers and not killed and state["cells_done"] >= state["cells_total"] / 3:
                victim = stack.workers[-1]
                victim.kill()
                killed = (
                    f"{victim.name} SIGKILLed at {time.monotonic() - started:.0f} s "
                    f"({state['cells_done']} cells)"
                )
                say(f"  {killed}")
                time.sleep(15)
                victim.start()
                killed += f", restarted at {time.monotonic() - started:.0f} s"
            time.sleep(1)
            state = _progress(api, matter, grid, state)
        fill_s = time.monotonic() - started
        state = _jobs(stack.env, grid)  # and its chunks, once it has ended
        watcher.done.set()
        watcher.join(timeout=130)
        filling_peak = dict(sampler.peak)
        sampler.peak.clear()
        token = re.search(
            r'name="csrfmiddlewaretoken" value="([^"]+)"', page.get(watcher.path).text
        )
        export_started = time.monotonic()
        xlsx = page.post(
            f"/matters/{matter}/grids/{grid}/export.xlsx",
            data={"csrfmiddlewaretoken": token[1] if token else ""},
            headers={"Referer": stack.url + watcher.path},
        )
        export_s = time.monotonic() - export_started
        time.sleep(1)  # a last memory sample
        export_peak = dict(sampler.peak)
        stuck = (state["status"] in OPEN) + sum(1 for s, _ in state["chunks"] if s in OPEN)
        return {
            "setup": setup,
            "workers": workers,
            "documents": documents,
            "distinct_texts": world["unique"],
            "indexed": world["indexed"],
            "index_s": world["index_s"],
            "status": state["status"],
            "error": state["error"],
            "cells": state["cells_done"],
            "fill_s": round(fill_s, 1),
            "cells_per_s": round(state["cells_done"] / fill_s, 1) if fill_s else 0.0,
            "chunks": len(state["chunks"]),
            "chunks_sent_again": sum(1 for _, attempts in state["chunks"] if attempts > 1),
            "page_ms": {
                "p50": round(_pct(watcher.ms, 0.5)),
                "p95": round(_pct(watcher.ms, 0.95)),
                "n": len(watcher.ms),
                "errors": watcher.errors,
            },  # fmt: skip
            "xlsx": {
                "status": xlsx.status_code,
                "s": round(export_s, 1),
                "mb": round(len(xlsx.content) / 1e6, 1),
            },  # fmt: skip
            "peak_rss_mb_filling": {k: round(v) for k, v in sorted(filling_peak.items())},
            "peak_rss_mb_export": {k: round(v) for k, v in sorted(export_peak.items())},
            "stuck": stuck,
            "fault": killed,
        }
    finally:
        sampler.done.set()
        stack.stop()
        shutil.rmtree(folder, ignore_errors=True)


def line(r: dict[str, Any]) -> str:
    who = f"{r['setup']}" + (f" x{r['workers']} workers" if r["workers"] else "")
    return (
        f"{who:22} N={r['documents']:<5} ({r['distinct_texts']} texts) | {r['status']} | "
        f"{r['cells']} cells in {r['fill_s']:.0f} s = {r['cells_per_s']:.1f} cells/s, "
        f"{r['chunks']} chunks ({r['chunks_sent_again']} sent again) | page while filling p50 "
        f"{r['page_ms']['p50']} ms p95 {r['page_ms']['p95']} ms ({r['page_ms']['n']}, "
        f"{r['page_ms']['errors']} errors) | XLSX {r['xlsx']['status']} in {r['xlsx']['s']} s, "
        f"{r['xlsx']['mb']} MB | peak MB filling {r['peak_rss_mb_filling']}, exporting "
        f"{r['peak_rss_mb_export']} | stuck {r['stuck']}"
        + (f" | {r['fault']}" if r["fault"] else "")
    )
