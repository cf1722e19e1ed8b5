"""Fixtures for the MCP tests: two users, each a member of one matter only, with API tokens; the
first matter holds the BioAmber development agreement and its amendment, indexed.

The SDK runs tools in worker threads with their own database connections, and the transport tests
run the server in another process: the data must be committed, so these tests use transactional
databases."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.conf import settings
from django.core.cache import cache

from legalnav.api.tokens import api_token_create
from legalnav.documents.models import Document
from legalnav.matters.models import Matter, Membership
from tests.api.conftest import add_indexed
from tests.conftest import MatterFactory, MembershipFactory
from tests.procs import database_url

T = TypeVar("T")


@dataclass
class World:
    matter: Matter
    base: Document
    amendment: Document
    alice: Any  # owner of ``matter``
    alice_token: str
    other_matter: Matter
    other_document: Document
    bob: Any  # member of ``other_matter`` only
    bob_token: str


@pytest.fixture(autouse=True)
def _no_ask_limit(settings, transactional_db):
    # The limits count in the shared cache, which on the embedded default is a database table
    # that a transactional test's flush leaves alone: cleared here, with the database open.
    settings.LEGALNAV_ASK_RATE_PER_MINUTE = 0
    cache.clear()


@pytest.fixture
def world(transactional_db) -> World:
    matter = MatterFactory(name="BioAmber")
    alice = MembershipFactory(matter=matter, role=Membership.Role.OWNER).user
    base, amendment = add_indexed(matter)
    other = MatterFactory(name="Someone else's deal")
    bob = MembershipFactory(matter=other, role=Membership.Role.OWNER).user
    from legalnav.documents.services import document_add, document_index

    other_doc, _ = document_add(
        matter=other,
        filename="secret.txt",
        data=b"1. Secret Terms.\nThe price is $1,000,000, payable on 1 May 2024.\n",
        enqueue=False,
    )
    document_index(document_id=other_doc.pk)
    return World(
        matter=matter,
        base=base,
        amendment=amendment,
        alice=alice,
        alice_token=api_token_create(user=alice, name="mcp")[1],
        other_matter=other,
        other_document=other_doc,
        bob=bob,
        bob_token=api_token_create(user=bob, name="mcp")[1],
    )


def run(coro_fn: Callable[[], Awaitable[T]]) -> T:
    """Run an async client session from a synchronous test (the ORM stays outside it). If this
    thread already has a running loop (Playwright's sync API leaves one), use a thread of its
    own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_fn())
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coro_fn())).result()


def server_env(**extra: str) -> dict[str, str]:
    """The environment of a server process that shares this test's database and files."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "legalnav.settings",
        "DATABASE_URL": database_url(),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "NAVINDEX_DIR": str(Path(settings.NAVINDEX_DIR)),
        "INDEX_CACHE_DIR": str(settings.INDEX_CACHE_DIR),
        "EMBED_ON_INDEX": "0",
        "VECTOR_STORE": "memory",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("LEGALNAV_API_TOKEN", None)
    env.update(extra)
    return env
