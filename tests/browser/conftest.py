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
from django.contrib.auth.models import User
from django.core.cache import cache

from legalnav.answers.models import Question
from legalnav.answers.verbs import Verb as AnswerVerb
from legalnav.documents.models import Document
from legalnav.documents.verbs import Verb as DocumentVerb
from legalnav.matters.models import Matter

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make to set up
# data are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def _answers(item) -> bool:  # type: ignore[no-untyped-def]
    return "answering" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(session, config, items) -> None:  # type: ignore[no-untyped-def]
    """Tests that answer questions (those using the ``answering`` fixture) run after the others,
    so that the embedding model, which takes many seconds to load on a CPU, loads in the
    background while the upload and reader tests run (see ``_warm_embedder``)."""
    here = Path(__file__).parent
    at = [i for i, item in enumerate(items) if here in Path(str(item.path)).parents]
    browser_items = sorted((items[i] for i in at), key=_answers)  # stable: others keep order
    for i, item in zip(at, browser_items, strict=True):
        items[i] = item


def _warm_up(folder: Path) -> None:
    """Load the embedding model and embed the demo pair's passages into the session's index
    cache. Vectors are cached by passage text, so the first answer in a test finds them there
    instead of embedding the matter while the browser waits."""
    from django.conf import settings

    from legalnav.documents.parsing.extract import extract_text
    from legalnav.retrieval.embeddings import get_embedder
    from legalnav.retrieval.engine import Corpus
    from legalnav.retrieval.index import IndexCache
    from tests.conftest import demo_bytes

    embedder = get_embedder()
    cache = IndexCache(folder)
    for name in (
        "bioamber-development-agreement.txt",
        "bioamber-development-agreement-first-amendment.txt",
    ):
        limit = settings.LEGALNAV_MAX_UPLOAD_BYTES
        doc = cache.get(extract_text(demo_bytes(name), name, max_bytes=limit).text)
        corpus = Corpus([doc], embedder=embedder, cache=cache)
        corpus.ensure_vectors()  # as embed_document_text
    # The vectors are in the cache's passage table now; no document pickles are written, so
    # nothing here races the tests' own index cache over the same files.
    cache.passages.close()


@pytest.fixture(scope="session", autouse=True)
def _warm_embedder(  # type: ignore[no-untyped-def]
    request, _index_cache_dir: Path
) -> Iterator[threading.Thread | None]:
    """When some test will answer a question, warm up (``_warm_up``) in a background thread
    while the other tests run. The embedder's lock makes a caller wait for the model's load
    rather than load it twice; ``answering`` waits for the whole warm-up."""
    if not any(_answers(i) for i in request.session.items):
        yield None
        return
    from legalnav.retrieval.embeddings import get_embedder

    get_embedder()  # made once here: the cached factory is not itself thread-safe
    thread = threading.Thread(
        target=_warm_up, args=(_index_cache_dir,), name="warm-embedder", daemon=True
    )
    thread.start()
    yield thread
    thread.join()


@pytest.fixture
def answering(_warm_embedder: threading.Thread | None) -> None:
    """For a test that answers questions (the offline answerer retrieves with the embedding
    model): waits until the warm-up has loaded the model and embedded the demo pair."""
    if _warm_embedder is not None:
        _warm_embedder.join()


CHROMIUM = os.environ.get("LEGALNAV_CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PASSWORD = "pw-for-tests"  # tests.conftest.UserFactory's password
QUESTION = "Which state's law governs the Development Agreement?"


# Package scope, not session: Playwright's sync API keeps an asyncio loop running in this thread
# while it lives, and a later test file in the same process that calls asyncio.run() (the MCP
# tests) would fail if the browser outlived the browser tests.
@pytest.fixture(scope="package")
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
    matter: Matter
    owner: User
    base: Document  # D: the development agreement
    amendment: Document  # its first amendment
    inject: Question | None = None  # the governing-law question answered in inject mode
    navindex: Question | None = None  # the same question answered after it in navindex mode


@pytest.fixture
def bioamber_docs() -> Bioamber:
    """A matter named "BioAmber development" with an owner and the demo's development agreement
    and its first amendment indexed (with the audit rows the upload page would write)."""
    from legalnav.matters.audit import audit_record
    from tests.conftest import MatterFactory, MembershipFactory, index_bioamber_pair

    matter = MatterFactory(name="BioAmber development", description="Cargill and BioAmber, 2010")
    owner = MembershipFactory(matter=matter).user
    base, amendment = index_bioamber_pair(matter)
    for doc in (base, amendment):
        audit_record(
            matter=matter,
            user=owner,
            action=DocumentVerb.UPLOADED,
            target=f"{doc.key} {doc.title} ({doc.original_filename})",
            detail={"filename": doc.original_filename, "sha256": doc.sha256},
        )
    return Bioamber(matter, owner, base, amendment)


@pytest.fixture
def bioamber(bioamber_docs: Bioamber, answering: None) -> Bioamber:
    """``bioamber_docs`` with the governing-law question answered twice by the offline
    answerer (inject, then navindex), as the ask page would have recorded it."""
    from legalnav.answers.services import query_answer, query_create
    from legalnav.matters.audit import audit_record

    b = bioamber_docs
    answered: list[Question] = []
    for mode in ("inject", "navindex"):
        query = query_create(
            matter=b.matter, user=b.owner, question=QUESTION, mode=mode, enqueue=False
        )
        done = query_answer(query_id=query.pk)
        assert done is not None and done.status == "answered", done and done.error_message
        audit_record(
            matter=b.matter,
            user=b.owner,
            action=AnswerVerb.ASKED,
            target=f"question Q{done.pk}",
            detail={"query_id": done.pk, "mode": mode, "question": done.question},
        )
        answered.append(done)
    b.inject, b.navindex = answered
    return b


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
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def shot(page, name: str, *, full_page: bool = True) -> Path:  # type: ignore[no-untyped-def]
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def horizontal_overflow(page) -> int:  # type: ignore[no-untyped-def]
    """How many CSS pixels the page is wider than its window (0 when nothing sticks out)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))
