"""A small Messages API server on 127.0.0.1 that replays queued responses.

The Anthropic API is out of reach from these machines, so the Claude path is tested by pointing
the real ``anthropic`` client (``base_url``) at this server. It answers ``POST /v1/messages``
with the next queued reply: a message in the API's shape (``usage`` with the cache fields), an
API error (429, 529, 500 …), or a reply delayed past the client's timeout. It records every
request it received (path, headers, JSON body) for the tests to inspect.

The canned bodies under ``recordings/`` are written in the documented response shape; they are
not captures of live traffic.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

RECORDINGS = Path(__file__).resolve().parent / "recordings"


def recording(name: str) -> dict[str, Any]:
    return json.loads((RECORDINGS / f"{name}.json").read_text(encoding="utf-8"))


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (past the client timeout: a timeout)


@dataclass
class SeenRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: dict[str, Any]


def message(
    text: str,
    *,
    input_tokens: int,
    output_tokens: int,
    cache_write: int = 0,
    cache_read: int = 0,
    model: str = "claude-sonnet-4-6",
) -> Reply:
    """A 200 reply built on the recorded message shape, with the given text and usage."""
    body = recording("message")
    body["content"] = [{"type": "text", "text": text}]
    body["model"] = model
    body["usage"].update(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_creation_input_tokens=cache_write,
        cache_read_input_tokens=cache_read,
    )
    body["usage"]["cache_creation"]["ephemeral_5m_input_tokens"] = cache_write
    return Reply(status=200, body=body)


def error(status: int, *, retry_after: str | None = None) -> Reply:
    """An API error reply in the API's error shape (``{"type": "error", "error": {...}}``)."""
    kinds = {
        400: "invalid_request_error",
        401: "authentication_error",
        429: "rate_limit_error",
        500: "api_error",
        529: "overloaded_error",
    }
    body = recording("error")
    body["error"]["type"] = kinds.get(status, "api_error")
    body["error"]["message"] = f"replayed {status}"
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return Reply(status=status, body=body, headers=headers)


class ReplayServer:
    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[SeenRequest] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep pytest output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                seen = SeenRequest(
                    method="POST",
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=json.loads(raw or b"{}"),
                )
                with server._lock:
                    server.requests.append(seen)
                    reply = server.replies.popleft() if server.replies else None
                if self.path.split("?")[0] != "/v1/messages":
                    reply = Reply(
                        status=404,
                        body={
                            "type": "error",
                            "error": {"type": "not_found_error", "message": self.path},
                        },
                    )
                elif reply is None:
                    # An unexpected extra request fails the test loudly instead of hanging it.
                    reply = Reply(
                        status=418,
                        body={
                            "type": "error",
                            "error": {
                                "type": "invalid_request_error",
                                "message": "replay queue is empty",
                            },
                        },
                    )
                if reply.delay:
                    time.sleep(reply.delay)
                payload = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.send_header("request-id", f"req_replay_{len(server.requests)}")
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting: that was the point of the delay

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def start(self) -> ReplayServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
