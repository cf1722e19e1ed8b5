"""A data room uploaded as one zip, timed until every document has ended: ``manage.py
bench_load --dataroom``.

The zip holds the 408 CUAD contracts and the 94 EDGAR 2020 agreements of ../shared/data, 20
scans (the opening of 20 CUAD dev contracts, typeset and scanned at 200 dpi with noise and skew,
see ``scans``) and 10 byte-for-byte copies of CUAD contracts in another folder, in four folders.
It is sent to ``POST /api/v1/matters/{id}/archives`` of a stack started from nothing (the load
benchmark's ``Stack``): ``embedded`` (runserver, SQLite, jobs in the web process) or ``scaled``
(uvicorn x2, PostgreSQL, Redis, two Celery workers; the second worker is SIGKILLed a third of the
way in and started again). Reported per setup: the upload request's time, the time until no
document is queued or indexing, documents indexed / failed (with reasons) / stuck (must be 0),
copies recorded, the peak resident memory of each process tree (web, each worker), sampled every
half second.

Indexing runs as the stack's other benchmarks set it: embeddings are deferred to the first
question (``EMBED_ON_INDEX=0``), so the time is extraction (OCR for the scans), clause trees,
navindex files and amendment links.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from legalnav.bench.loadbench import OPEN, Stack, stack_json
from legalnav.evaluation import gold, scans

SCANS = 20
COPIES = 10
SCAN_CHARS = 3500  # about two pages each: the scans cost OCR time, not the rest


def build_zip(data: Path, folder: Path, say: Any) -> tuple[Path, dict[str, int]]:
    """The data room's zip, written to ``folder``; and how many files of each kind it holds."""
    cuad = sorted((data / "cuad" / "contracts").glob("*.txt"))
    edgar = sorted((data / "agreements" / "edgar2020").glob("ud*.txt"))
    dev = [Path(p) for p in dict.fromkeys(i.documents[0] for i in gold.cuad_items(contracts=40))]
    path = folder / "data room.zip"
    say(f"  building the zip: {len(cuad)} CUAD, {len(edgar)} EDGAR, {SCANS} scans, {COPIES} copies")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in cuad:
            zf.write(p, f"Data room/1. Commercial contracts/{p.name}")
        for p in edgar:
            zf.write(p, f"Data room/2. Financing and corporate/{p.name}")
        for n, p in enumerate(dev[:SCANS]):
            text = p.read_text(encoding="utf-8")[:SCAN_CHARS]
            pdf = scans.scan(text, scans.ScanStyle(seed=n, rotated=(2,) if n % 5 == 0 else ()))
            zf.writestr(f"Data room/3. Signed copies (scans)/{p.stem} - signed.pdf", pdf)
        for p in cuad[::40][:COPIES]:
            zf.write(p, f"Data room/4. Duplicates/copy of {p.name}")
    counts = {"cuad": len(cuad), "edgar": len(edgar), "scans": SCANS, "copies": COPIES}
    return path, counts


class MemorySampler(threading.Thread):
    """Peak resident memory of each process tree of the stack (a process and its children)."""

    def __init__(self, stack: Stack) -> None:
        super().__init__(daemon=True)
        self.stack = stack
        self.peak: dict[str, float] = {}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            by_group: dict[int, int] = {}
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                        fields = fh.read().rsplit(")", 1)[1].split()
                    pgid = int(fields[2])
                    with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as fh:
                        rss = next((int(x.split()[1]) for x in fh if x.startswith("VmRSS:")), 0)
                except (OSError, ValueError, IndexError):
                    continue
                by_group[pgid] = max(by_group.get(pgid, 0), rss)  # the largest process of it
            for proc in self.stack.procs:
                if proc.popen is not None and proc.popen.pid in by_group:
                    mb = by_group[proc.popen.pid] / 1024
                    self.peak[proc.name] = max(self.peak.get(proc.name, 0.0), mb)
            self.done.wait(0.5)


def _statuses(env: dict[str, str], matter: int) -> dict[str, Any]:
    code = (
        "import json,sys,django;django.setup();"
        "from legalnav.documents.models import Document, DocumentCopy;"
        "m=int(sys.argv[1]);d=Document.objects.filter(matter_id=m);"
        "print(json.dumps({'status':list(d.values_list('status',flat=True)),"
        "'errors':list(d.filter(status='failed').values_list('original_filename','error_message')),"
        "'copies':DocumentCopy.objects.filter(document__matter_id=m).count(),"
        "'ocr':d.filter(extraction__has_key='ocr').count(),"
        "'links':d.filter(link_proposal__state='proposed').count()}))"
    )
    return stack_json(env, "-c", code, str(matter))


def run(
    *,
    setup: str,
    database_url: str,
    redis_url: str,
    settle: float,
    say: Any,
    zip_path: Path | None = None,
) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix=f"bench-upload-{setup}-"))
    stack = Stack(setup, folder, say)
    sampler = MemorySampler(stack)
    try:
        if zip_path is None:
            zip_path, counts = build_zip(gold.data_dir(), folder, say)
        else:
            counts = {}
        stack.start(database_url=database_url, redis_url=redis_url)
        world = stack_json(stack.env, "manage.py", "bench_load", "--prepare", "1")
        matter, token = world["matter"], world["users"][0]["token"]
        before = len(_statuses(stack.env, matter)["status"])
        sampler.start()
        started = time.monotonic()
        with zip_path.open("rb") as fh:
            response = httpx.post(
                f"{stack.url}/api/v1/matters/{matter}/archives",
                headers={"Authorization": f"Bearer {token}"},
                files={"file": ("data room.zip", fh, "application/zip")},
                timeout=1800,
            )
        upload_s = time.monotonic() - started
        if response.status_code != 201:
            raise RuntimeError(f"upload refused: {response.status_code} {response.text[:300]}")
        body = response.json()
        say(f"  uploaded in {upload_s:.0f} s: {body['added']} added, {body['copies']} copies, "
            f"{body['left_out']} left out")  # fmt: skip
        killed = ""
        deadline = started + settle
        while True:
            now = time.monotonic()
            state = _statuses(stack.env, matter)
            open_now = sum(1 for s in state["status"] if s in OPEN)
            indexed = sum(1 for s in state["status"] if s == "indexed") - before
            if stack.workers and not killed and indexed >= body["added"] / 3:
                stack.workers[1].kill()
                killed = f"worker1 SIGKILLed at {now - started:.0f} s ({indexed} indexed)"
                say(f"  {killed}")
                time.sleep(15)
                stack.workers[1].start()
                killed += f", restarted at {time.monotonic() - started:.0f} s"
            if not open_now or now > deadline:
                break
            time.sleep(3)
        elapsed = time.monotonic() - started
        statuses = Counter(state["status"])
        return {
            "setup": setup,
            "zip": counts,
            "upload_s": round(upload_s, 1),
            "all_ended_s": round(elapsed, 1),
            "documents": len(state["status"]) - before,
            "indexed": statuses.get("indexed", 0) - before,
            "failed": statuses.get("failed", 0),
            "failures": state["errors"][:20],
            "stuck": sum(statuses.get(s, 0) for s in OPEN),
            "copies_recorded": state["copies"],
            "read_by_ocr": state["ocr"],
            "links_proposed": state["links"],
            "left_out": body["left_out"],
            "peak_rss_mb": {k: round(v) for k, v in sorted(sampler.peak.items())},
            "fault": killed,
        }
    finally:
        sampler.done.set()
        stack.stop()
        shutil.rmtree(folder, ignore_errors=True)


def table(results: list[dict[str, Any]]) -> str:
    lines = []
    for r in results:
        lines.append(
            f"{r['setup']}: {r['documents']} documents from the zip in {r['upload_s']} s of "
            f"upload; all ended after {r['all_ended_s']} s: {r['indexed']} indexed, {r['failed']}"
            f" failed, {r['stuck']} stuck; {r['copies_recorded']} copies recorded, "
            f"{r['read_by_ocr']} read by OCR, {r['links_proposed']} amendment links proposed"
        )
        lines.append(f"  peak memory (MB): {r['peak_rss_mb']}")
        if r["fault"]:
            lines.append(f"  {r['fault']}")
        for name, why in r["failures"]:
            lines.append(f"  failed: {name}: {why}")
    return "\n".join(lines)
