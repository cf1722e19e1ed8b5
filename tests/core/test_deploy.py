"""Production refuses to start unsafe (DEBUG off with a weak SECRET_KEY), and the compose stack's
environment passes ``manage.py check --deploy`` with nothing to report.

Each check runs in a fresh process with only the environment given, as the container would: the
settings are read once per process, at import.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest
from django.test import Client

from legalnav.core.healthcheck import probe_host
from legalnav.env import secret_key_problem
from tests.conftest import REPO
from tests.test_docker import compose_config

REFUSAL = "legalnav refuses to start with DEBUG off: SECRET_KEY is"
WEAK_KEYS = {
    "unset": None,
    "empty": "",
    "compose's old fallback": "change-me",
    "the development default": "legalnav-dev-only-not-secret",
    "django startproject": "django-insecure-" + "x7#q" * 15,
    "short": "s3cr3t-but-only-thirty-chars-!",
}


def _run(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    """Run in the checkout with exactly ``env`` (plus what a process needs to exist)."""
    base = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")}
    base.update(DJANGO_SETTINGS_MODULE="legalnav.settings", PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(
        args, cwd=REPO, env={**base, **env}, capture_output=True, text=True, timeout=timeout
    )


def _production_env(key: str | None) -> dict[str, str]:
    env = {"DEBUG": "0", "ALLOWED_HOSTS": "legalnav.example.com"}
    if key is not None:
        env["SECRET_KEY"] = key
    return env


@pytest.mark.parametrize("proxy", ["1", "0"])
def test_check_deploy_is_clean_under_the_compose_environment(tmp_path, proxy):
    """Before: five warnings (W004 HSTS, W008 SSL redirect, W009 SECRET_KEY "change-me", W012 and
    W016 insecure cookies)."""
    web = compose_config(tmp_path, LEGALNAV_BEHIND_TLS_PROXY=proxy)["services"]["web"]
    env = {name: str(value) for name, value in web["environment"].items()}
    assert env["DEBUG"] == "0"
    result = _run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], env
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "System check identified no issues" in output, output


@pytest.mark.parametrize("key", WEAK_KEYS.values(), ids=WEAK_KEYS.keys())
def test_manage_py_refuses_a_weak_secret_key_with_debug_off(key):
    result = _run([sys.executable, "manage.py", "check"], _production_env(key))
    assert result.returncode != 0, result.stdout
    assert REFUSAL in result.stderr, result.stderr
    assert "secrets.token_urlsafe(50)" in result.stderr


@pytest.mark.parametrize("key", [None, "change-me"], ids=["unset", "change-me"])
def test_the_worker_and_web_entry_points_refuse_a_weak_secret_key(key):
    # What `celery -A legalnav ...` does first (it reads its configuration from the settings),
    # and what uvicorn imports.
    for code in (
        "from legalnav.celery import app; app.conf.broker_url",
        "import legalnav.asgi",
    ):
        result = _run([sys.executable, "-c", code], _production_env(key))
        assert result.returncode != 0, f"{code!r} started"
        assert REFUSAL in result.stderr, result.stderr


def test_a_celery_worker_does_not_start_with_the_old_compose_key():
    """The real worker command: before, it started (and would have run forever) with change-me."""
    try:
        result = _run(
            [sys.executable, "-m", "celery", "-A", "legalnav", "worker", "--pool=solo"],
            _production_env("change-me"),
            timeout=90,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("`celery -A legalnav worker` started with SECRET_KEY=change-me and DEBUG=0")
    assert result.returncode != 0
    assert REFUSAL in result.stdout + result.stderr


def test_the_embedded_default_needs_no_key():
    """`make demo` and the tests: DEBUG defaults on and the development key is used."""
    result = _run([sys.executable, "manage.py", "check"], {})
    assert result.returncode == 0, result.stderr
    code = (
        "from django.conf import settings as s; "
        "print(s.DEBUG, s.SECRET_KEY, s.SESSION_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, "
        "s.SECURE_HSTS_SECONDS)"
    )
    result = _run([sys.executable, "-c", code], {})
    assert result.stdout.split() == ["True", "legalnav-dev-only-not-secret", "False", "False", "0"]


def test_a_strong_key_with_debug_off_turns_https_on():
    code = (
        "from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, "
        "s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD, "
        "s.SECURE_PROXY_SSL_HEADER, s.X_FRAME_OPTIONS)"
    )
    env = _production_env(secrets.token_urlsafe(50))
    result = _run([sys.executable, "-c", code], {**env, "LEGALNAV_BEHIND_TLS_PROXY": "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "True", "True", "True", "31536000", "True", "True",
        "('HTTP_X_FORWARDED_PROTO',", "'https')", "DENY",
    ]  # fmt: skip
    # Each can be turned off, e.g. to try the stack over plain HTTP; the proxy header is opt-in.
    off = {"SECURE_SSL_REDIRECT": "0", "SESSION_COOKIE_SECURE": "0", "SECURE_HSTS_SECONDS": "0"}
    result = _run([sys.executable, "-c", code], {**env, **off})
    assert result.stdout.split()[:4] == ["False", "True", "False", "0"], result.stderr
    assert "None" in result.stdout.split()


def test_secret_key_problem():
    assert secret_key_problem(secrets.token_urlsafe(50)) is None
    assert secret_key_problem("") == "not set"
    assert "placeholder" in (secret_key_problem("change-me") or "")
    assert "django-insecure-" in (secret_key_problem("django-insecure-" + "ab1!" * 20) or "")
    assert "49 characters" in (secret_key_problem("k" * 24 + "ey" * 12 + "!") or "")
    assert "distinct" in (secret_key_problem("ab" * 40) or "")


def test_healthcheck_sends_a_host_that_allowed_hosts_accepts():
    assert probe_host(["legalnav.example.com", "localhost"]) == "legalnav.example.com"
    assert probe_host([".example.com"]) == "example.com"
    assert probe_host(["*"]) == "localhost"
    assert probe_host([]) == "localhost"


def test_healthz_answers_plain_http_while_pages_redirect(db, settings):
    """The compose healthcheck probes the container over plain HTTP; everything else goes to
    HTTPS (and, behind the proxy, X-Forwarded-Proto says it already did)."""
    settings.SECURE_SSL_REDIRECT = True
    settings.ALLOWED_HOSTS = ["legalnav.example.com"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client(HTTP_HOST="legalnav.example.com")
    assert client.get("/healthz").status_code == 200
    page = client.get("/accounts/login/")
    assert page.status_code == 301
    assert page["Location"] == "https://legalnav.example.com/accounts/login/"
    assert client.get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https").status_code == 200
