"""Upload size enforced while the body streams in, for every door (pages and the API).

Two bounds, both from settings:

* ``LEGALNAV_MAX_UPLOAD_BYTES``: one file (a ``.zip`` has ``LEGALNAV_MAX_ZIP_UPLOAD_BYTES``). :class:`UploadLimitHandler`, installed first in
  ``FILE_UPLOAD_HANDLERS``, counts each file's bytes as the multipart parser hands them over and
  drops the file the moment it passes the limit, so no more of it is spooled or stored (and,
  where the rest of the body is not bounded, stops reading). Django's own handlers only learn a
  file's size once it is all on disk.
* ``LEGALNAV_MAX_REQUEST_BYTES``: one request body. Under ASGI (uvicorn, the deployed server)
  Django reads the whole body into a temporary file *before* any upload handler runs, and a
  chunked request (no Content-Length) has no size to check up front, so one such request could
  fill the disk. :class:`BoundedASGIHandler` stops reading at the bound. Under WSGI Django reads
  no more than the declared Content-Length and, without one, nothing at all.

A refused upload or file is marked on the request (:func:`upload_refusal`,
:func:`files_left_out` give the messages); the doors say "too large" in their own way (the page as a message, the API as a 413) and nothing is kept:
the parser closes, and so deletes, the temporary file of the file it was writing.
"""

from __future__ import annotations

import asyncio
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import RequestAborted
from django.core.files.uploadhandler import FileUploadHandler, SkipFile, StopUpload
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.db import close_old_connections
from django.http import HttpRequest

_REFUSAL = "_legalnav_upload_refused"
_SKIPPED = "_legalnav_files_left_out"
#: Read this much of a body whose declared Content-Length is already over the bound: enough for
#: the form fields before the file (the CSRF token), so the page can answer with its message.
_HEAD_BYTES = 64 * 1024


def human_size(n: int) -> str:
    """A byte count the way the upload page states its limit (binary units, one decimal)."""
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.0f} KB"
    if n < 1024**3:
        return f"{n / (1024 * 1024):.1f} MB"
    return f"{n / 1024**3:.1f} GB"


def upload_refusal(request: HttpRequest) -> str | None:
    """Why this request's upload was stopped as it streamed in (no file of it was kept), or
    None. Read it after ``request.FILES``: the parse is what finds out."""
    return getattr(request, _REFUSAL, None)


def files_left_out(request: HttpRequest) -> list[str]:
    """Why each file left out of ``request.FILES`` past the file limit was left out (the other
    files of the upload were read as usual)."""
    return list(getattr(request, _SKIPPED, ()))


def _refuse(request: HttpRequest | None, message: str) -> None:
    if request is not None and upload_refusal(request) is None:
        setattr(request, _REFUSAL, message)


def file_too_large_message(name: str, limit: int) -> str:
    return f"“{name}” is over the {human_size(limit)} limit."


def request_too_large_message(limit: int) -> str:
    return (
        f"The upload is over the {human_size(limit)} one upload may carry; "
        "send fewer or smaller files at a time."
    )


class UploadLimitHandler(FileUploadHandler):
    """Counts each file's bytes as they arrive and leaves out a file past the limit.

    Where the rest of the body is bounded (its Content-Length within
    ``LEGALNAV_MAX_REQUEST_BYTES``, which the ASGI handler also gives a chunked body it read) the
    file is skipped: its temporary file is closed, and so deleted, the rest of it is read past
    without being kept, and the other files of the upload are read as usual. Otherwise the whole
    upload stops there: ``StopUpload(connection_reset=True)`` makes the parser return without
    reading the rest. Either way the fields already read (the CSRF token comes first) stay, so
    the door can answer with a clear message rather than a bare error.
    """

    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self.file_limit: int = settings.LEGALNAV_MAX_UPLOAD_BYTES
        self.request_limit: int = settings.LEGALNAV_MAX_REQUEST_BYTES
        self.total = 0

    def _bounded(self) -> bool:
        meta = getattr(self.request, "META", {})
        try:
            declared = int(meta.get("CONTENT_LENGTH") or -1)
        except ValueError:
            declared = -1
        return 0 <= declared <= self.request_limit

    def _too_large(self) -> None:
        message = file_too_large_message(self.file_name or "file", self.file_limit)
        if self.request is not None and self._bounded():
            skipped = getattr(self.request, _SKIPPED, None)
            if skipped is None:
                skipped = []
                setattr(self.request, _SKIPPED, skipped)
            skipped.append(message)
            raise SkipFile()
        _refuse(self.request, message)
        raise StopUpload(connection_reset=True)

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        # A data room's zip has a limit of its own; its files are held to the file limit as
        # they come out of it.
        zipped = (self.file_name or "").lower().rstrip(". ").endswith(".zip")
        self.file_limit = (
            settings.LEGALNAV_MAX_ZIP_UPLOAD_BYTES if zipped else settings.LEGALNAV_MAX_UPLOAD_BYTES
        )
        if self.request is not None and upload_refusal(self.request) is not None:
            # The ASGI reader cut the body short: whatever part follows is incomplete.
            raise StopUpload(connection_reset=True)
        if self.content_length is not None and self.content_length > self.file_limit:
            self._too_large()

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        if start + len(raw_data) > self.file_limit:
            self._too_large()
        self.total += len(raw_data)
        if self.total > self.request_limit:
            _refuse(self.request, request_too_large_message(self.request_limit))
            raise StopUpload(connection_reset=True)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handler (memory or temporary file) makes the file


class _SpooledBody(tempfile.SpooledTemporaryFile):  # type: ignore[type-arg]
    kept = 0
    cut = False


class _Receive:
    """The ASGI receive callable, remembering whether the body was left unread."""

    def __init__(self, receive: Any, *, declared: int | None) -> None:
        self._receive = receive
        self.declared = declared  # the Content-Length header, if any
        self.body_cut = False

    async def __call__(self) -> dict[str, Any]:
        message: dict[str, Any] = await self._receive()
        return message


class BoundedASGIHandler(ASGIHandler):
    """Django's ASGI handler, reading at most ``LEGALNAV_MAX_REQUEST_BYTES`` of a body.

    Past the bound it stops reading (the server stops reading the socket in turn, so the client
    waits rather than the disk filling) and lets the request through marked as refused, with
    what it read so far: the page still has its CSRF token and can say why. A body that arrived
    whole without a Content-Length (chunked) gets one, its real size, so that Django's own
    checks (``DATA_UPLOAD_MAX_MEMORY_SIZE``) and the multipart parser see it; Django would
    otherwise read such a body as empty, or read it whole into memory through ``request.body``.
    """

    def __init__(self) -> None:
        super().__init__()
        # Django runs a sync view of an ASGI request on the one thread that every sync call of
        # the process shares (``thread_sensitive``), so a process served its pages one after
        # another: 50 reviewers queued behind each other. Every view here is sync, so the
        # request goes through the sync middleware chain on a pool of ``WEB_THREADS`` threads
        # instead, as a threaded WSGI server would run it.
        self._threaded = BaseHandler()
        self._threaded.load_middleware(is_async=False)
        self._pool = ThreadPoolExecutor(
            max_workers=settings.WEB_THREADS, thread_name_prefix="legalnav-view"
        )

    async def get_response_async(self, request: HttpRequest) -> Any:
        return await sync_to_async(self._respond, thread_sensitive=False, executor=self._pool)(
            request
        )

    def _respond(self, request: HttpRequest) -> Any:
        # The pool thread's own database connection: checked before (a dropped or too old one
        # is replaced) and given back after, as the request signals do for a WSGI thread.
        close_old_connections()
        try:
            return self._threaded.get_response(request)
        finally:
            close_old_connections()

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        # One handler serves concurrent requests: per-request state rides on the receive wrapper.
        await super().handle(scope, _Receive(receive, declared=_declared_length(scope)), send)

    async def read_body(self, receive: Any) -> Any:
        limit: int = settings.LEGALNAV_MAX_REQUEST_BYTES
        declared = receive.declared if isinstance(receive, _Receive) else None
        keep = limit if declared is None or declared <= limit else min(_HEAD_BYTES, limit)
        body = _SpooledBody(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE, mode="w+b")
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                body.close()
                raise RequestAborted()
            chunk = message.get("body", b"")
            if body.kept + len(chunk) > keep:
                body.write(chunk[: keep - body.kept])
                body.kept = keep
                body.cut = True
                if isinstance(receive, _Receive):
                    receive.body_cut = True
                break
            body.write(chunk)
            body.kept += len(chunk)
            if not message.get("more_body", False):
                break
        body.seek(0)
        return body

    def create_request(self, scope: dict[str, Any], body_file: Any) -> Any:
        request, error = super().create_request(scope, body_file)
        if request is not None and isinstance(body_file, _SpooledBody):
            if body_file.cut:
                _refuse(request, request_too_large_message(settings.LEGALNAV_MAX_REQUEST_BYTES))
                if "CONTENT_LENGTH" not in request.META:
                    # Over the bound: Django refuses a non-form body this size by itself.
                    request.META["CONTENT_LENGTH"] = str(body_file.kept + 1)
            elif "CONTENT_LENGTH" not in request.META:
                request.META["CONTENT_LENGTH"] = str(body_file.kept)
        return request, error

    async def listen_for_disconnect(self, receive: Any) -> None:
        if getattr(receive, "body_cut", False):
            # The rest of the body is still on its way: reading it to look for a disconnect is
            # what the bound is there to avoid. This task is cancelled once the response is sent.
            await asyncio.Event().wait()
        await super().listen_for_disconnect(receive)


def _declared_length(scope: dict[str, Any]) -> int | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
