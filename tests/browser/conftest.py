"""Browser tests: Playwright driving Debian's chromium against the app on a live server.

Screenshots of the main pages go to var/screenshots/ (1280 px wide and 390 px narrow) so that a
person can look at them; the tests assert on what the pages say and do, not on pixels.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.cache import cache

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make to set up
# data are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_collection_modifyitems(session, config, items) -> None:  # type: ignore[no-untyped-def]
    """Tests that answer questions (the ``bioamber`` fixture) run after the others, so that the
    embedding model, which takes many seconds to load on a CPU, loads in the background while
    the upload and reader tests run (see ``_warm_embedder``)."""
    items.sort(key=lambda item: "bioamber" in getattr(item, "fixturenames", ()))


@pytest.fixture(scope="session", autouse=True)
def _warm_embedder(request) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """Load the embedding model in a background thread when some test will answer a question.
    The embedder's own lock makes a caller wait for this load instead of loading it twice."""
    if not any("bioamber" in getattr(i, "fixturenames", ()) for i in request.session.items):
        yield
        return
    from legalnav.retrieval.embeddings import get_embedder

    embedder = get_embedder()
    thread = threading.Thread(target=embedder._load, name="warm-embedder", daemon=True)
    thread.start()
    yield
    thread.join()


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


@pytest.fixture(autouse=True)
def _fresh_rate_limit() -> Iterator[None]:
    """The asking rate limit counts in Django's cache, which outlives a test's database."""
    cache.clear()
    yield
    cache.clear()


@dataclass
class Bioamber:
    matter: object
    owner: object
    base: object
    amendment: object
    inject: object  # "Which state's law governs...?" answered in inject mode
    navindex: object  # the same question answered later in navindex mode


@pytest.fixture
def bioamber() -> Bioamber:
    """A matter with the demo's development agreement and its amendment indexed, an owner, and
    the governing-law question answered twice (inject, then navindex) by the offline answerer."""
    from legalnav.answers.services import query_answer, query_create
    from tests.conftest import MatterFactory, MembershipFactory, index_bioamber_pair

    matter = MatterFactory(name="BioAmber development", description="Cargill and BioAmber, 2010")
    owner = MembershipFactory(matter=matter).user
    base, amendment = index_bioamber_pair(matter)
    answered = []
    for mode in ("inject", "navindex"):
        query = query_create(
            matter=matter,
            user=owner,
            question="Which state's law governs the Development Agreement?",
            mode=mode,
            enqueue=False,
        )
        query = query_answer(query_id=query.pk)
        assert query is not None and query.status == "answered", query and query.error_message
        answered.append(query)
    return Bioamber(matter, owner, base, amendment, *answered)


def _page(context):  # type: ignore[no-untyped-def]
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors  # type: ignore[attr-defined]
    return page


@pytest.fixture
def page(browser, live_server) -> Iterator[object]:
    """A 1280 x 860 window; ``page.js_errors`` collects uncaught JavaScript errors."""
    context = _context(browser, live_server, 1280, 860)
    yield _page(context)
    context.close()


@pytest.fixture
def narrow_page(browser, live_server) -> Iterator[object]:
    """A phone-sized window (390 x 844), with ``js_errors`` too."""
    context = _context(browser, live_server, 390, 844)
    yield _page(context)
    context.close()


def sign_in(page, username: str, password: str = PASSWORD) -> None:  # type: ignore[no-untyped-def]
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state("networkidle")


def shot(page, name: str, *, full_page: bool = True) -> Path:  # type: ignore[no-untyped-def]
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def horizontal_overflow(page) -> int:  # type: ignore[no-untyped-def]
    """How many CSS pixels the page is wider than its window (0 when nothing sticks out)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))
