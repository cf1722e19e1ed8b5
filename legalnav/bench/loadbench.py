"""The load benchmark behind ``manage.py bench_load``: start a whole stack, drive it over HTTP with
N simulated reviewers for a fixed time, and count what finished, what failed (with a reason),
what is stuck and what was lost.

Two stacks, each started from nothing in a folder of its own:

- ``embedded``: ``manage.py runserver`` on a fresh SQLite file, no broker (the ``make demo``
  default): background work runs in the web process's job queues;
- ``scaled``: uvicorn with two workers, PostgreSQL, a private Redis, two Celery workers (one with
  beat, the job sweeper); one worker is SIGKILLed a third of the way in and started again at
  half time.

Every reviewer signs in first, and the clock starts when all have (fifty password checks in the
same second are a morning's sign-ins, not the load of people at work). Each then works in a
closed loop, as a person does: open the matter page, ask a question through the API (every fifth
turn, upload a small new document instead), poll until it has ended, open the answer page, think
for a second. So the backlog never exceeds the number of users, and at the end every accepted
job must have ended: ``stuck`` (still open after the settle time) and ``lost`` (accepted, then
never seen again or never ended) must both be 0. Times are also given per request kind, with the
slowest requests and when they came.
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "documents"
QUESTIONS = [
    "What is the term of the agreement?",
    "Which law governs the agreement?",
    "How can the agreement be terminated?",
    "What does the first amendment change?",
    "Who are the parties to the agreement?",
    "What are the payment obligations?",
    "Is there a limitation of liability?",
    "What notice must be given to terminate?",
]
OPEN = {"queued", "running", "indexing"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stack_json(env: dict[str, str], *argv: str) -> Any:  # noqa: ANN401
    """Run ``python *argv`` in the repository with a stack's environment and return the JSON its
    last line of output prints (``manage.py ... --prepare``, or ``-c`` code reading the stack's
    database)."""
    out = subprocess.run(
        [sys.executable, *argv],
        cwd=REPO, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


SIGN_IN_WAIT_S = 600  # how long the reviewers wait for each other to sign in


@dataclass
class Tally:
    page_ms: list[float] = field(default_factory=list)
    api_ms: list[float] = field(default_factory=list)
    requests: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    questions: list[int] = field(default_factory=list)
    documents: list[int] = field(default_factory=list)
    refused_503: int = 0
    # The same times by what was asked ("matter page", "ask", ...), to say which one is slow.
    by_request: dict[str, list[float]] = field(default_factory=dict)
    # (ms, seconds into the run, what) of every request, for the slowest few and when they came.
    timeline: list[tuple[float, float, str]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)  # once every reviewer is signed in
    clock_running: bool = False
    seconds: float = 60.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def timed(self, kind: str, ms: float, status: int, what: str = "") -> None:
        with self.lock:
            self.requests += 1
            (self.page_ms if kind == "page" else self.api_ms).append(ms)
            self.by_request.setdefault(what or kind, []).append(ms)
            self.timeline.append((ms, time.monotonic() - self.started - ms / 1000, what or kind))
            if status >= 500:
                key = f"HTTP {status}"
                self.errors[key] = self.errors.get(key, 0) + 1
                if status == 503:
                    self.refused_503 += 1

    def start_clock(self) -> None:
        """Start the run's clock, once: when every reviewer has signed in, or when the wait for
        that ends, whichever thread sees it first."""
        with self.lock:
            if not self.clock_running:
                self.started, self.clock_running = time.monotonic(), True

    def error(self, what: str) -> None:
        with self.lock:
            self.errors[what] = self.errors.get(what, 0) + 1


class Proc:
    def __init__(self, name: str, args: list[str], env: dict[str, str], folder: Path) -> None:
        self.name, self.args, self.env = name, args, env
        self.log = folder / f"{name}.log"
        self.popen: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        out = open(self.log, "ab")  # noqa: SIM115 - the child holds it
        self.popen = subprocess.Popen(
            self.args, cwd=REPO, env=self.env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    def kill(self) -> None:
        if self.popen and self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=10)

    def stop(self) -> None:
        if self.popen and self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


def _wait(check: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception:  # noqa: BLE001 - not up yet
            pass
        time.sleep(0.3)
    raise RuntimeError(f"timed out waiting for {what}")


# The benchmarks' people sign in with this known password, so their accounts may only be made in
# a database a Stack created for the run: the Stack sets this variable for its processes, and
# ``--prepare`` refuses to run without it (never in a deployment's own database).
BENCH_STACK_ENV = "LEGALNAV_BENCH_STACK"
PASSWORD = "bench-password"


def require_bench_stack() -> None:
    """Refuse to make benchmark accounts outside a benchmark's own stack."""
    if os.environ.get(BENCH_STACK_ENV) != "1":
        raise RuntimeError(
            f"--prepare makes users with a known password; it runs only inside a benchmark's "
            f"own stack ({BENCH_STACK_ENV}=1), never against a deployment's database."
        )


def sign_in(client: httpx.Client, url: str, username: str) -> httpx.Response:
    """Sign a benchmark user in on the sign-in page, as a browser would (CSRF token, Referer)."""
    form = client.get(url + "/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)
    if token is None:
        raise RuntimeError("no CSRF token on the sign-in page")
    done = client.post(
        url + "/accounts/login/",
        data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token[1]},
        headers={"Referer": url + "/accounts/login/"},
    )
    if done.status_code not in (200, 302):
        raise RuntimeError(f"sign-in answered {done.status_code}")
    return done


class Stack:
    """A running legalnav, its database and what it needs; ``env`` is what its processes see."""

    def __init__(self, setup: str, folder: Path, say: Any, workers: int = 2) -> None:
        self.setup, self.folder, self.say = setup, folder, say
        self.worker_count = workers
        self.procs: list[Proc] = []
        self.workers: list[Proc] = []
        self.url = ""
        self.env: dict[str, str] = {}

    def _base_env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("REDIS_URL", "DATABASE_URL", "TASK_RUNNER", "ANTHROPIC_API_KEY")
        }
        env.update(
            DJANGO_SETTINGS_MODULE="legalnav.settings",
            **{BENCH_STACK_ENV: "1"},
            MEDIA_ROOT=str(self.folder / "media"),
            NAVINDEX_DIR=str(self.folder / "navindex"),
            INDEX_CACHE_DIR=str(REPO / "var" / "index-cache"),
            LEGALNAV_ASK_RATE_PER_MINUTE="0",
            # The load is many reviewers at machine pace: no limits on what they do.
            LEGALNAV_SEARCH_RATE_PER_MINUTE="0",
            LEGALNAV_EXPORT_RATE_PER_MINUTE="0",
            LEGALNAV_SIGNIN_RATE_PER_MINUTE="0",
            LEGALNAV_SIGNIN_FAILURES_PER_MINUTE="0",
            HF_HUB_OFFLINE="1",
            EMBED_ON_INDEX="0",
            VECTOR_STORE="memory",
            LOG_LEVEL="WARNING",
            # Production settings, served over plain HTTP on 127.0.0.1: a real key (DEBUG off
            # refuses a weak one) and the HTTPS-only settings off.
            SECRET_KEY=secrets.token_urlsafe(50),
            DEBUG="0",
            SECURE_SSL_REDIRECT="0",
            SESSION_COOKIE_SECURE="0",
            CSRF_COOKIE_SECURE="0",
            SECURE_HSTS_SECONDS="0",
            ALLOWED_HOSTS="127.0.0.1,localhost",
            JOB_SWEEP_SECONDS="5",
            JOB_LEASE_SECONDS="15",
        )
        return env

    def start(self, *, database_url: str, redis_url: str) -> None:
        env = self._base_env()
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        if self.setup == "embedded":
            env["DATABASE_URL"] = f"sqlite:///{self.folder / 'bench.sqlite3'}"
        else:
            env["DATABASE_URL"] = database_url
            env.setdefault("DB_POOL_SIZE", "8")  # as docker/compose.yml runs it
            env["REDIS_URL"] = redis_url
            env["CELERY_QUEUE"] = f"bench-{port}"
        self.env = env
        self.say(f"  migrating {env['DATABASE_URL'].split('@')[-1]}")
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=REPO, env=env, check=True,
        )  # fmt: skip
        if self.setup == "embedded":
            web = Proc(
                "web",
                [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                env,
                self.folder,
            )
            self.procs.append(web)
        else:
            # Each worker process embeds on its share of the cores, not all of them each.
            env["EMBEDDING_THREADS"] = str(max(1, (os.cpu_count() or 1) // self.worker_count))
            for i in range(self.worker_count):
                args = [
                    sys.executable, "-m", "celery", "-A", "legalnav", "worker", "--pool=prefork",
                    "--concurrency=1", "--loglevel=WARNING", f"--hostname=bench{i}@%h",
                    "-Q", env["CELERY_QUEUE"], "--without-gossip", "--without-mingle",
                ]  # fmt: skip
                if i == 0:
                    args += ["-B", "-s", str(self.folder / "beat-schedule")]
                worker = Proc(f"worker{i}", args, env, self.folder)
                self.procs.append(worker)
                self.workers.append(worker)
            web = Proc(
                "web",
                [
                    sys.executable, "-m", "uvicorn", "legalnav.asgi:application", "--host",
                    "127.0.0.1", "--port", str(port), "--workers", "2", "--log-level", "warning",
                ],
                env,
                self.folder,
            )  # fmt: skip
            self.procs.append(web)
        _wait(lambda: httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200, 90, "web")

    def stop(self) -> None:
        for p in reversed(self.procs):
            p.stop()


def prepare(users: int) -> dict[str, Any]:
    """In the stack's database (this process's settings): a matter with the demo pair indexed,
    and ``users`` members, each with a password and an API token."""
    require_bench_stack()
    from django.contrib.auth import get_user_model

    from legalnav.api.tokens import api_token_create
    from legalnav.documents.actions import document_upload
    from legalnav.documents.models import Document
    from legalnav.matters.models import Matter, Membership

    matter = Matter.objects.create(name="Load benchmark")

    def upload(name: str, **details: Any) -> Document | None:
        """A demo file indexed into the matter now, as the ingest command does."""
        data = (DEMO / name).read_bytes()
        outcome = document_upload(
            matter=matter, user=None, filename=name, data=data, via="command", here=True, **details
        )
        return outcome.document

    base = upload("bioamber-development-agreement.txt")
    upload("bioamber-development-agreement-first-amendment.txt", amends=base, kind="amendment")
    people = []
    User = get_user_model()
    for i in range(users):
        user = User.objects.create_user(f"bench{i}", password=PASSWORD)
        Membership.objects.create(matter=matter, user=user, role=Membership.Role.EDITOR)
        people.append(
            {"username": user.username, "token": api_token_create(user=user, name="b")[1]}
        )
    return {"matter": matter.pk, "users": people}


class Reviewer(threading.Thread):
    def __init__(self, n: int, url: str, matter: int, who: dict[str, str], tally: Tally,
                 signed_in: threading.Barrier) -> None:  # fmt: skip
        super().__init__(daemon=True, name=f"reviewer-{n}")
        self.n, self.url, self.matter, self.who, self.tally = n, url, matter, who, tally
        self.signed_in = signed_in
        self.rng = random.Random(n)

    @property
    def stop_at(self) -> float:
        return self.tally.started + self.tally.seconds

    def _get(
        self, client: httpx.Client, path: str, kind: str, what: str = "", **kw: Any
    ) -> httpx.Response:
        return self._timed(client.get, path, kind, what, **kw)

    def _post(
        self, client: httpx.Client, path: str, kind: str, what: str = "", **kw: Any
    ) -> httpx.Response:
        return self._timed(client.post, path, kind, what, **kw)

    def _timed(self, send: Any, path: str, kind: str, what: str, **kw: Any) -> httpx.Response:
        started = time.perf_counter()
        response: httpx.Response = send(self.url + path, **kw)
        ms = (time.perf_counter() - started) * 1000
        self.tally.timed(kind, ms, response.status_code, what)
        return response

    def run(self) -> None:
        auth = {"Authorization": f"Bearer {self.who['token']}"}
        with httpx.Client(timeout=60) as page, httpx.Client(timeout=60, headers=auth) as api:
            try:
                self._login(page)
            except Exception as exc:  # noqa: BLE001
                self.tally.error(f"login: {exc.__class__.__name__}")
                return
            finally:
                # Everyone signs in before the clock starts: fifty password checks at once
                # (each a deliberately slow hash) are a morning's sign-ins, not a working load.
                # A sign-in stuck past the wait breaks the barrier for everyone: the run goes
                # on (the main thread starts the clock) and the report counts it.
                try:
                    self.signed_in.wait(timeout=SIGN_IN_WAIT_S)
                except threading.BrokenBarrierError:
                    self.tally.start_clock()  # not stopped by a clock that never started
                    self.tally.error("sign-ins not all done in time")
            turn = 0
            while time.monotonic() < self.stop_at:
                turn += 1
                try:
                    self._turn(page, api, turn)
                except httpx.HTTPError as exc:
                    self.tally.error(exc.__class__.__name__)
                    time.sleep(1)
                time.sleep(1 + self.rng.random())  # a reviewer reads before the next question

    def _login(self, page: httpx.Client) -> None:
        sign_in(page, self.url, self.who["username"])

    def _turn(self, page: httpx.Client, api: httpx.Client, turn: int) -> None:
        self._get(page, f"/matters/{self.matter}/", "page", "matter page")
        if turn % 5 == 2:
            body = (
                f"SIDE LETTER {self.n}-{turn}\n\n1. Fees. The Buyer shall pay ${1000 + turn:,} "
                f"within {turn} days.\n\n2. Term. This letter ends on 31 December 2027.\n"
            ).encode()
            response = self._post(
                api,
                f"/api/v1/matters/{self.matter}/documents",
                "api",
                "upload",
                files={"file": (f"side-letter-{self.n}-{turn}.txt", body)},
            )
            if response.status_code == 201:
                doc = response.json()["document"]["id"]
                with self.tally.lock:
                    self.tally.documents.append(doc)
                self._poll(api, f"/api/v1/documents/{doc}")
            return
        response = self._post(
            api,
            f"/api/v1/matters/{self.matter}/queries",
            "api",
            "ask",
            json={"question": self.rng.choice(QUESTIONS), "mode": "navembed"},
        )
        if response.status_code != 202:
            return
        qid = response.json()["id"]
        with self.tally.lock:
            self.tally.questions.append(qid)
        self._poll(api, f"/api/v1/matters/{self.matter}/queries/{qid}")
        self._get(page, f"/matters/{self.matter}/questions/{qid}/", "page", "answer page")

    def _poll(self, api: httpx.Client, path: str) -> None:
        while time.monotonic() < self.stop_at + 5:
            body = self._get(api, path, "api", "poll").json()
            status = body.get("status") or body.get("document", {}).get("status")
            if status not in OPEN:
                return
            time.sleep(1)


def outcome(env: dict[str, str], questions: list[int], documents: list[int]) -> dict[str, Any]:
    """Where every accepted job ended, read from the stack's database by a subprocess."""
    code = (
        "import json,sys,django;django.setup();"
        "from legalnav.answers.models import Question;from legalnav.documents.models import Document;"
        "q=json.loads(sys.argv[1]);d=json.loads(sys.argv[2]);"
        "print(json.dumps({'q':dict(Question.objects.filter(pk__in=q).values_list('pk','status')),"
        "'d':dict(Document.objects.filter(pk__in=d).values_list('pk','status'))}))"
    )
    found = stack_json(env, "-c", code, json.dumps(questions), json.dumps(documents))
    q = {int(k): v for k, v in found["q"].items()}
    d = {int(k): v for k, v in found["d"].items()}
    return {"questions": q, "documents": d}


def run_bench(
    *,
    setup: str,
    users: int,
    seconds: float,
    settle: float,
    database_url: str,
    redis_url: str,
    say: Any,
) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix=f"bench-load-{setup}-"))
    stack = Stack(setup, folder, say)
    try:
        stack.start(database_url=database_url, redis_url=redis_url)
        world = stack_json(stack.env, "manage.py", "bench_load", "--prepare", str(users))
        tally = Tally(seconds=seconds)

        signed_in = threading.Barrier(users + 1, action=tally.start_clock)
        reviewers = [
            Reviewer(i, stack.url, world["matter"], world["users"][i], tally, signed_in)
            for i in range(users)
        ]
        for r in reviewers:
            r.start()
        try:
            signed_in.wait(timeout=SIGN_IN_WAIT_S)
        except threading.BrokenBarrierError:
            tally.start_clock()  # some sign-in hung: measure from now with whoever got in
            say(f"  not every reviewer signed in within {SIGN_IN_WAIT_S} s; the clock starts now")
        started = tally.started
        killed = ""
        if stack.workers:
            time.sleep(seconds / 3)
            stack.workers[1].kill()
            killed = f"worker1 SIGKILLed at {time.monotonic() - started:.0f} s"
            time.sleep(seconds / 2 - seconds / 3)
            stack.workers[1].start()
            killed += f", restarted at {time.monotonic() - started:.0f} s"
            say(f"  {killed}")
        for r in reviewers:
            r.join(timeout=seconds + 120)
        # Let the last jobs end: nothing accepted may stay open.
        deadline = time.monotonic() + settle
        while True:
            ended = outcome(stack.env, tally.questions, tally.documents)
            open_jobs = [s for s in (*ended["questions"].values(), *ended["documents"].values())
                         if s in OPEN]  # fmt: skip
            if not open_jobs or time.monotonic() > deadline:
                break
            time.sleep(2)
        elapsed = time.monotonic() - started
        qs, ds = ended["questions"], ended["documents"]
        lost = sum(1 for i in tally.questions if i not in qs) + sum(
            1 for i in tally.documents if i not in ds
        )
        return {
            "setup": setup,
            "users": users,
            "seconds": seconds,
            "elapsed_s": round(elapsed, 1),
            "requests": tally.requests,
            "page_ms": {"p50": round(_pct(tally.page_ms, 0.5), 1),
                        "p95": round(_pct(tally.page_ms, 0.95), 1), "n": len(tally.page_ms)},
            "api_ms": {"p50": round(_pct(tally.api_ms, 0.5), 1),
                       "p95": round(_pct(tally.api_ms, 0.95), 1), "n": len(tally.api_ms)},
            "questions": {"asked": len(tally.questions),
                          "answered": sum(1 for s in qs.values() if s == "answered"),
                          "failed": sum(1 for s in qs.values() if s == "failed")},
            "documents": {"uploaded": len(tally.documents),
                          "indexed": sum(1 for s in ds.values() if s == "indexed"),
                          "failed": sum(1 for s in ds.values() if s == "failed")},
            "stuck": len(open_jobs),
            "lost": lost,
            "http_errors": tally.errors,
            "fault": killed,
            "mean_page_ms": round(statistics.fmean(tally.page_ms), 1) if tally.page_ms else 0,
            "by_request": {
                what: {"p50": round(_pct(ms, 0.5)), "p95": round(_pct(ms, 0.95)), "n": len(ms)}
                for what, ms in sorted(tally.by_request.items())
            },
            "slowest": [
                {"what": what, "at_s": round(at, 1), "ms": round(ms)}
                for ms, at, what in sorted(tally.timeline, reverse=True)[:10]
            ],
        }  # fmt: skip
    finally:
        stack.stop()
        shutil.rmtree(folder, ignore_errors=True)
