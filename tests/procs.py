"""Real processes for the tests that need them: a web server, Celery workers and a private Redis,
sharing the test's database and folders, each with its log kept for the failure message."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from django.conf import settings
from django.db import connection

from tests.conftest import REPO


def database_url() -> str:
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    if connection.vendor == "postgresql":
        auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
        return f"postgres://{auth}@{s['HOST'] or 'localhost'}:{s['PORT'] or 5432}/{s['NAME']}"
    raise AssertionError(f"no subprocess test for {connection.vendor}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def child_env(**extra: str) -> dict[str, str]:
    """A process that shares this test's database and files; no broker unless ``extra`` says."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "legalnav.settings",
        "DATABASE_URL": database_url(),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "NAVINDEX_DIR": str(Path(settings.NAVINDEX_DIR)),
        "INDEX_CACHE_DIR": str(settings.INDEX_CACHE_DIR),
        "EMBED_ON_INDEX": "0",
        "VECTOR_STORE": "memory",
        "LEGALNAV_ASK_RATE_PER_MINUTE": "0",
        "HF_HUB_OFFLINE": "1",
        "LOG_LEVEL": "INFO",
    }
    for name in ("REDIS_URL", "TASK_RUNNER", "CELERY_TASK_ALWAYS_EAGER", "ANTHROPIC_API_KEY"):
        env.pop(name, None)
    env.update(extra)
    return env


def wait_until(
    check: Callable[[], Any], *, timeout: float, what: str, logs: list[Proc] = ()
) -> Any:  # type: ignore[assignment]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    tails = "\n".join(p.tail() for p in logs)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}\n{tails}")


class Proc:
    """A child process in its own process group, with its output in a log file."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log: Path) -> None:
        self.name = name
        self.log_path = log
        self._log = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.popen = subprocess.Popen(
            args,
            cwd=REPO,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def children(self) -> list[int]:
        """Direct child processes (a prefork worker's pool), read from /proc."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == self.pid:
                found.append(int(entry.name))
        return found

    def kill_group(self) -> None:
        """SIGKILL the process and everything it started: a machine losing the worker."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.popen.wait(timeout=10)

    def stop(self) -> None:
        if self.alive():
            try:
                os.killpg(self.pid, signal.SIGTERM)
                self.popen.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                self.kill_group()
        self._log.close()

    def tail(self, chars: int = 4000) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return f"--- {self.name} log ---\n{text[-chars:]}"


def start_redis(tmp: Path, port: int | None = None) -> tuple[Proc, str]:
    port = port or free_port()
    proc = Proc(
        "redis",
        [
            "redis-server",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp),
        ],
        os.environ.copy(),
        tmp / f"redis-{port}.log",
    )
    url = f"redis://127.0.0.1:{port}/0"
    import redis

    def up() -> bool:
        try:
            return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5).ping())
        except redis.RedisError:
            return False

    wait_until(up, timeout=15, what="redis-server", logs=[proc])
    return proc, url


def start_web(tmp: Path, env: dict[str, str], *, name: str = "web") -> tuple[Proc, str]:
    """``manage.py runserver`` (threaded, as ``make demo`` runs it), without the reloader."""
    port = free_port()
    proc = Proc(
        name,
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        env,
        tmp / f"{name}.log",
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    wait_until(up, timeout=60, what="the web server", logs=[proc])
    return proc, url


def start_worker(
    tmp: Path,
    env: dict[str, str],
    *,
    name: str = "worker",
    pool: str = "prefork",
    beat: bool = False,
) -> Proc:
    args = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "legalnav",
        "worker",
        f"--pool={pool}",
        "--concurrency=1",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        f"--hostname={name}@%h",
    ]
    if env.get("CELERY_QUEUE"):
        args += ["-Q", env["CELERY_QUEUE"]]
    if beat:
        args += ["-B", "-s", str(tmp / f"{name}-beat-schedule")]
    proc = Proc(name, args, env, tmp / f"{name}.log")

    def ready() -> bool:
        return "ready." in proc.log_path.read_text(errors="replace")

    wait_until(ready, timeout=60, what=f"celery {name}", logs=[proc])
    return proc
