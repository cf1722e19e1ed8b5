"""The deployed ASGI handler serves sync views on a pool of threads (``WEB_THREADS``): two
requests whose views wait for each other both get in at once (Django's own ASGI handler runs
every sync view of a process on one shared thread, so the second would wait for the first and
the barrier below would break)."""

from __future__ import annotations

import asyncio
import threading

from django.http import HttpResponse
from django.test import override_settings
from django.urls import path

from legalnav.core.uploads import BoundedASGIHandler

BARRIER = threading.Barrier(2, timeout=10)


def meet(request):  # type: ignore[no-untyped-def]
    BARRIER.wait()  # raises BrokenBarrierError when the other request never arrives
    return HttpResponse(threading.current_thread().name)


urlpatterns = [path("meet/", meet)]


async def _get(handler: BoundedASGIHandler, url: str) -> tuple[int, bytes]:
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": url, "raw_path": url.encode(), "query_string": b"",
        "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }  # fmt: skip
    sent: list[dict] = []
    done = asyncio.Event()
    asked = []

    async def receive():  # type: ignore[no-untyped-def]
        if not asked:  # the body, then (for the handler's disconnect listener) the end
            asked.append(1)
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message):  # type: ignore[no-untyped-def]
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            done.set()

    await handler(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], body


@override_settings(ROOT_URLCONF=__name__, ALLOWED_HOSTS=["127.0.0.1"], WEB_THREADS=4)
def test_two_slow_views_are_served_at_once_on_threads_of_the_pool():
    handler = BoundedASGIHandler()

    async def both():  # type: ignore[no-untyped-def]
        return await asyncio.gather(_get(handler, "/meet/"), _get(handler, "/meet/"))

    (s1, b1), (s2, b2) = asyncio.run(both())
    assert (s1, s2) == (200, 200)
    assert b1 != b2 and b1.startswith(b"legalnav-view")  # two threads of the pool
