"""Upload size enforced while the body streams in (legalnav.core.uploads): a 2 GB body, with a
Content-Length through WSGI and chunked (no length) through ASGI, is cut off at the limit with
memory far below its size, answered 413 in the API's format, and leaves nothing behind; a chunked
upload within the limits is read whole; the page says "too large" clearly."""

from __future__ import annotations

import asyncio
import io
import sys
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.core import signals
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from django.urls import reverse

from legalnav.api.tokens import api_token_create
from legalnav.core.uploads import BoundedASGIHandler
from legalnav.documents.models import Document
from legalnav.documents.verbs import Verb as DocumentVerb
from legalnav.matters.models import AuditEvent, Membership
from tests.conftest import MembershipFactory

GB2 = 2 * 1024**3
MIB = 1024 * 1024
BOUNDARY = "legalnav-test-boundary"
CONTENT_TYPE = f"multipart/form-data; boundary={BOUNDARY}"
HEAD = (
    f"--{BOUNDARY}\r\n"
    'Content-Disposition: form-data; name="file"; filename="huge.txt"\r\n'
    "Content-Type: text/plain\r\n\r\n"
    "1. Term. "
).encode()
TAIL = f"\r\n--{BOUNDARY}--\r\n".encode()


class LazyBody(io.RawIOBase):
    """A multipart body of ``size`` bytes of file content, made as it is read."""

    def __init__(self, size: int) -> None:
        self.parts: Iterator[bytes] = _body_parts(size)
        self.pending = b""
        self.served = 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            raise AssertionError("the whole body was asked for at once")
        while len(self.pending) < n:
            part = next(self.parts, b"")
            if not part:
                break
            self.pending += part
        out, self.pending = self.pending[:n], self.pending[n:]
        self.served += len(out)
        return out


def _body_parts(size: int, chunk: int = MIB, head: bytes = HEAD) -> Iterator[bytes]:
    yield head
    block = b"x" * chunk
    left = size
    while left > 0:
        yield block[: min(chunk, left)]
        left -= chunk
    yield TAIL


def body_length(size: int) -> int:
    return len(HEAD) + size + len(TAIL)


@pytest.fixture
def api_owner(matter):
    user = MembershipFactory(matter=matter, role=Membership.Role.OWNER).user
    _, raw = api_token_create(user=user, name="tests")
    return raw


@contextmanager
def handler_signals() -> Iterator[None]:
    """Calling Django's handlers directly, as the test client does: the request signals must not
    close the test's connection (it is inside the test's transaction)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture
def upload_tmp(settings, tmp_path: Path) -> Path:
    folder = tmp_path / "upload-tmp"
    folder.mkdir()
    settings.FILE_UPLOAD_TEMP_DIR = str(folder)
    return folder


def assert_nothing_kept(matter, settings, upload_tmp: Path) -> None:
    assert not Document.objects.filter(matter=matter).exists()
    assert not AuditEvent.objects.filter(action=DocumentVerb.UPLOADED).exists()
    assert list(upload_tmp.iterdir()) == []  # the temporary file of the cut file is gone
    media = Path(settings.MEDIA_ROOT)
    assert not media.exists() or not [p for p in media.rglob("*") if p.is_file()]


def test_a_2gb_upload_with_a_content_length_is_cut_at_the_limit_in_constant_memory(
    client, matter, owner, settings, upload_tmp
) -> None:
    """WSGI (runserver, gunicorn), the upload page: Django reads up to the Content-Length, and
    the CSRF check parses the form before any view could look at a size; the upload handler
    stops the file at the limit and nothing more of the 2 GB is read or stored."""
    limit = settings.LEGALNAV_MAX_UPLOAD_BYTES  # 50 MiB, the default
    client.force_login(owner)
    client.get(reverse("matter-detail", args=[matter.pk]))  # sets the CSRF cookie
    cookies = "; ".join(f"{k}={v.value}" for k, v in client.cookies.items())
    body = LazyBody(GB2)
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": reverse("matter-upload", args=[matter.pk]),
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "testserver",
        "HTTP_COOKIE": cookies,
        "HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value,
        "CONTENT_TYPE": CONTENT_TYPE.replace('name="file"', ""),
        "CONTENT_LENGTH": str(body_length(GB2)),
        "wsgi.input": body,
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http",
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    body.parts = _body_parts(GB2, head=HEAD.replace(b'name="file"', b'name="documents"'))
    status: list[str] = []
    headers: list[tuple[str, str]] = []
    tracemalloc.start()
    try:
        with handler_signals():
            chunks = WSGIHandler()(environ, lambda s, h, *a: (status.append(s), headers.extend(h)))
            b"".join(chunks)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert status[0].startswith("302"), status
    assert body.served < limit + 2 * MIB  # cut at the limit: 2 GB were offered
    assert peak < 16 * MIB, f"peak {peak / MIB:.1f} MiB"
    assert_nothing_kept(matter, settings, upload_tmp)
    for name, value in headers:  # the message rides in a cookie to the next page
        if name.lower() == "set-cookie":
            client.cookies.load(value)
    page = client.get(reverse("matter-detail", args=[matter.pk])).content.decode()
    assert "“huge.txt” is over the 50.0 MB limit. No file of this upload was added." in page


def asgi_post(path: str, headers: list[tuple[bytes, bytes]], parts: Iterator[bytes]) -> dict:
    """One request through the deployed ASGI handler, its body sent chunked (no Content-Length)
    as the parts come; returns the status, the body and how much of the body was taken."""
    taken = 0
    done = asyncio.Event()
    sent: list[dict] = []

    async def receive() -> dict:
        nonlocal taken
        part = next(parts, None)
        if part is not None:
            taken += len(part)
            return {"type": "http.request", "body": part, "more_body": True}
        if taken >= 0 and not getattr(receive, "ended", False):
            receive.ended = True  # type: ignore[attr-defined]
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()  # the client stays until the response is complete
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            done.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"transfer-encoding", b"chunked"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    with handler_signals():
        async_to_sync(BoundedASGIHandler())(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return {"status": start["status"], "body": body, "taken": taken}


# Committed data: the handler serves the view on a thread of its pool, on a connection of
# its own that would not see the test's open transaction.
@pytest.mark.django_db(transaction=True)
def test_a_2gb_chunked_upload_is_cut_at_the_request_bound_in_constant_memory(
    matter, api_owner, settings, upload_tmp
) -> None:
    """ASGI (uvicorn, the deployed server): Django would spool the whole chunked body to disk
    before any view ran; the handler stops reading at LEGALNAV_MAX_REQUEST_BYTES."""
    settings.LEGALNAV_MAX_REQUEST_BYTES = 64 * MIB
    headers = [(b"authorization", f"Bearer {api_owner}".encode()), (b"content-type", b"")]
    headers[1] = (b"content-type", CONTENT_TYPE.encode())
    tracemalloc.start()
    try:
        result = asgi_post(
            f"/api/v1/matters/{matter.pk}/documents", headers, _body_parts(GB2, chunk=MIB)
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result["status"] == 413, result["body"][:500]
    assert b'"too_large"' in result["body"] and b"64.0 MB" in result["body"]
    assert result["taken"] <= 64 * MIB + 2 * MIB  # 2 GB were offered
    assert peak < 32 * MIB, f"peak {peak / MIB:.1f} MiB"
    assert_nothing_kept(matter, settings, upload_tmp)


# Committed data: the handler serves the view on a thread of its pool, on a connection of
# its own that would not see the test's open transaction.
@pytest.mark.django_db(transaction=True)
def test_a_chunked_upload_within_the_limits_is_read_whole(
    matter, api_owner, settings, django_capture_on_commit_callbacks
) -> None:
    """A chunked body has no Content-Length: Django would read it as empty ("'file' is
    required"); the ASGI handler gives it its real length."""
    headers = [
        (b"authorization", f"Bearer {api_owner}".encode()),
        (b"content-type", CONTENT_TYPE.encode()),
    ]
    parts = iter([HEAD, b"The term is one year.\n", TAIL])
    with django_capture_on_commit_callbacks(execute=False):
        result = asgi_post(f"/api/v1/matters/{matter.pk}/documents", headers, parts)
    assert result["status"] == 201, result["body"][:500]
    doc = Document.objects.get(matter=matter)
    assert doc.original_filename == "huge.txt" and doc.size_bytes == len(
        b"1. Term. The term is one year.\n"
    )


def test_the_page_says_a_file_past_the_limit_is_too_large_and_keeps_nothing(
    client, matter, owner, settings, upload_tmp
) -> None:
    settings.LEGALNAV_MAX_UPLOAD_BYTES = 64 * 1024
    settings.LEGALNAV_MAX_REQUEST_BYTES = 96 * 1024  # this body is over: the upload stops
    client.force_login(owner)
    big = SimpleUploadedFile("big.txt", b"1. Term. " + b"x" * (256 * 1024))
    small = SimpleUploadedFile("small.txt", b"1. Term. One year.\n")
    response = client.post(
        reverse("matter-upload", args=[matter.pk]), {"documents": [big, small]}, follow=True
    )
    page = response.content.decode()
    assert (
        "Not uploaded: “big.txt” is over the 64 KB limit. No file of this upload was added." in page
    )
    assert_nothing_kept(matter, settings, upload_tmp)
