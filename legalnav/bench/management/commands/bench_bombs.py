"""Time and peak memory of refusing hostile files: a DOCX zip bomb, a PDF of 100,000 pages and a
2 GB chunked upload through the deployed (ASGI) handler. Each case runs in a fresh process, so
its peak resident memory (``ru_maxrss``) is its own.

    manage.py bench_bombs [--case docx|pdf|upload]
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

MIB = 1024 * 1024
_CT = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
    'package/2006/content-types"><Default Extension="rels" ContentType="application/'
    'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
    'ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="'
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.'
    'org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats'
    '.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
    "</Relationships>"
)
_DOC_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org'
    '/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t xml:space="preserve">'
)
_DOC_TAIL = "</w:t></w:r></w:p></w:body></w:document>"


def docx_bomb(path: Path, *, expanded: int) -> Path:
    """A .docx whose body is ``expanded`` bytes of spaces: about 1 MB on disk per GB expanded.
    Written as it is deflated, so building it takes no memory."""
    chunk = b" " * MIB
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("[Content_Types].xml", _CT)
        zf.writestr("_rels/.rels", _RELS)
        with zf.open("word/document.xml", "w", force_zip64=True) as part:
            part.write(_DOC_HEAD.encode())
            left = expanded
            while left > 0:
                part.write(chunk[: min(left, MIB)])
                left -= MIB
            part.write(_DOC_TAIL.encode())
    return path


def pdf_of_pages(pages: int) -> bytes:
    """A valid PDF of ``pages`` empty pages, written by hand (one page object listed ``pages``
    times: about 8 bytes a page)."""
    kids = b" ".join([b"3 0 R"] * pages)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count " + str(pages).encode() + b" >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def _peak_mib() -> float:
    """This process's peak resident memory. On Linux VmHWM, since ``ru_maxrss`` carries the
    parent's high-water mark across exec."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _extract_case(name: str, data: bytes) -> dict[str, Any]:
    from legalnav.documents.actions import extract_limits
    from legalnav.documents.parsing.extract import ExtractionError, extract_text

    before = _peak_mib()
    started = time.perf_counter()
    try:
        extract_text(data, name, max_bytes=50 * MIB, limits=extract_limits())
        outcome = "accepted"
    except ExtractionError as exc:
        outcome = f"{exc.code}: {exc.message}"
    return {
        "seconds": round(time.perf_counter() - started, 3),
        "peak_rss_mib": round(_peak_mib(), 1),
        "rss_before_mib": round(before, 1),
        "file_bytes": len(data),
        "outcome": outcome,
    }


def _upload_case() -> dict[str, Any]:
    """2 GB offered chunked (no Content-Length) to the upload page through the ASGI handler, as
    uvicorn would hand it over; an anonymous POST, since the CSRF check parses the form before
    any view (or login) is reached, which is what an attacker would send."""
    import asyncio

    from django.conf import settings

    from legalnav.core.uploads import BoundedASGIHandler

    boundary = "bench"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="documents"; '
        'filename="huge.txt"\r\nContent-Type: text/plain\r\n\r\n'
    ).encode()
    block = b"x" * MIB
    offered = 2 * 1024 * MIB
    state = {"taken": 0, "status": 0}
    done = asyncio.Event()

    async def receive() -> dict[str, Any]:
        if state["taken"] < offered:
            body = head if state["taken"] == 0 else block
            state["taken"] += len(body)
            return {"type": "http.request", "body": body, "more_body": True}
        if not state.get("ended"):
            state["ended"] = 1
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            state["status"] = message["status"]
        elif not message.get("more_body"):
            done.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/matters/1/upload/",
        "raw_path": b"/matters/1/upload/",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"localhost"),
            (b"transfer-encoding", b"chunked"),
            (b"content-type", f"multipart/form-data; boundary={boundary}".encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("localhost", 8000),
    }
    before = _peak_mib()
    started = time.perf_counter()
    asyncio.run(BoundedASGIHandler()(scope, receive, send))
    return {
        "seconds": round(time.perf_counter() - started, 3),
        "peak_rss_mib": round(_peak_mib(), 1),
        "rss_before_mib": round(before, 1),
        "offered_bytes": offered,
        "read_bytes": state["taken"],
        "request_bound_bytes": settings.LEGALNAV_MAX_REQUEST_BYTES,
        "status": state["status"],
    }


class Command(BaseCommand):
    help = "Time and peak memory of refusing a DOCX bomb, a PDF bomb and a 2 GB chunked upload."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--case", choices=["docx", "pdf", "upload"])

    def handle(self, *args: Any, **options: Any) -> None:
        case = options.get("case")
        if case is None:
            for name in ("docx", "pdf", "upload"):
                out = subprocess.run(
                    [sys.executable, sys.argv[0], "bench_bombs", "--case", name],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr
                self.stdout.write(f"{name}: {line}")
            return
        if case == "docx":
            with TemporaryDirectory() as tmp:
                data = docx_bomb(Path(tmp) / "bomb.docx", expanded=950 * MIB).read_bytes()
            result = _extract_case("bomb.docx", data)
            result["expands_to_bytes"] = 950 * MIB
        elif case == "pdf":
            result = _extract_case("bomb.pdf", pdf_of_pages(100_000))
            result["pages"] = 100_000
        else:
            result = _upload_case()
        self.stdout.write(json.dumps(result))
