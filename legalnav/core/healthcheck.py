"""The web container's health check: ``python -m legalnav.core.healthcheck`` (docker/compose.yml).

It asks the server in the same container for ``/healthz`` (which also reaches the database) and
exits 0 on a 200. The image has no curl or wget, and a plain ``GET http://127.0.0.1:8000/healthz``
would be refused with 400 once ``ALLOWED_HOSTS`` names only the firm's host, so the request
carries the first host that ``ALLOWED_HOSTS`` accepts. ``/healthz`` is exempt from the HTTPS
redirect (``SECURE_REDIRECT_EXEMPT``), so plain HTTP to the container is enough.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def probe_host(allowed_hosts: list[str]) -> str:
    """A Host header that ``ALLOWED_HOSTS`` accepts: its first entry that names a host
    (``.example.com`` also matches ``example.com``; ``*`` matches anything)."""
    for entry in allowed_hosts:
        host = entry.strip().lstrip(".")
        if host and host != "*":
            return host
    return "localhost"


def main() -> int:
    from django.conf import settings

    request = urllib.request.Request(
        "http://127.0.0.1:8000/healthz",  # the port the image's uvicorn listens on
        headers={"Host": probe_host(list(settings.ALLOWED_HOSTS))},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310 - fixed URL
            ok = response.status == 200
    except (urllib.error.URLError, OSError) as exc:
        print(f"healthcheck: {exc}", file=sys.stderr)
        return 1
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "legalnav.settings")
    sys.exit(main())
