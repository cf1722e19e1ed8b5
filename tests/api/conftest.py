"""Fixtures for the API and MCP tests: users with API tokens, and a matter with the BioAmber
development agreement and its first amendment indexed (real public agreements)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.core.cache import cache
from django.test import Client

from legalnav.api.tokens import api_token_create
from legalnav.documents.models import Document
from legalnav.matters.models import Matter, Membership
from tests.conftest import (
    MatterFactory,
    MembershipFactory,
    UserFactory,
    index_bioamber_pair,
)


@dataclass
class Actor:
    user: object
    token: str
    client: Client

    def get(self, url: str, **kw):
        return self.client.get(url, **kw)


def actor_for(user) -> Actor:
    _, raw = api_token_create(user=user, name="tests")
    return Actor(user=user, token=raw, client=Client(HTTP_AUTHORIZATION=f"Bearer {raw}"))


@pytest.fixture(autouse=True)
def _no_ask_limit(settings):
    """The per-user ask limit counts in the process-wide cache: off unless a test sets it."""
    settings.LEGALNAV_ASK_RATE_PER_MINUTE = 0
    cache.clear()
    yield
    cache.clear()


def add_indexed(matter: Matter) -> tuple[Document, Document]:
    return index_bioamber_pair(matter)


@pytest.fixture
def indexed(matter) -> tuple[Document, Document]:
    return add_indexed(matter)


@pytest.fixture
def owner_actor(matter) -> Actor:
    return actor_for(MembershipFactory(matter=matter, role=Membership.Role.OWNER).user)


@pytest.fixture
def viewer_actor(matter) -> Actor:
    return actor_for(MembershipFactory(matter=matter, role=Membership.Role.VIEWER).user)


@pytest.fixture
def outsider_actor(db) -> Actor:
    """A member of another matter only."""
    return actor_for(MembershipFactory(matter=MatterFactory(name="Other matter")).user)


__all__ = ["Actor", "actor_for", "add_indexed", "UserFactory"]
