"""Browser tests: Playwright driving Debian's chromium against the app on a live server.

Screenshots of the main pages go to var/screenshots/ (1280 px wide and 390 px narrow) so that a
person can look at them; the tests assert on what the pages say and do, not on pixels.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make to set up
# data are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("LEGALNAV_CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PASSWORD = "pw-for-tests"  # tests.conftest.UserFactory's password


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError(
            f"{CHROMIUM} is missing: install Debian's chromium (make test does it as root)"
        )
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def _context(browser, live_server, width: int, height: int):  # type: ignore[no-untyped-def]
    context = browser.new_context(
        viewport={"width": width, "height": height}, base_url=live_server.url
    )
    context.set_default_timeout(20_000)
    return context


@pytest.fixture
def page(browser, live_server) -> Iterator[object]:
    context = _context(browser, live_server, 1280, 860)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors  # type: ignore[attr-defined]
    yield page
    context.close()


@pytest.fixture
def narrow_page(browser, live_server) -> Iterator[object]:
    context = _context(browser, live_server, 390, 844)
    yield context.new_page()
    context.close()


def sign_in(page, username: str, password: str = PASSWORD) -> None:  # type: ignore[no-untyped-def]
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state("networkidle")


def shot(page, name: str) -> Path:  # type: ignore[no-untyped-def]
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
