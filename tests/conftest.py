"""Shared fixtures: users and matters, real demo documents, files kept out of the repository."""

from __future__ import annotations

from pathlib import Path

import factory
import pytest
from django.contrib.auth import get_user_model

from legalnav.celery import app as celery_app
from legalnav.matters.models import Matter, Membership

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "demo" / "documents"


def demo_bytes(name: str) -> bytes:
    """A real public agreement committed under demo/documents (sources in demo/SOURCES.md)."""
    return (DEMO / name).read_bytes()


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw-for-tests")


class MatterFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Matter

    name = factory.Sequence(lambda n: f"Matter {n}")


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    matter = factory.SubFactory(MatterFactory)
    user = factory.SubFactory(UserFactory)
    role = Membership.Role.OWNER


@pytest.fixture(autouse=True)
def _isolated_files(settings, tmp_path: Path) -> None:
    """Uploaded files and navindex output go to a per-test folder."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.NAVINDEX_DIR = tmp_path / "navindex"


@pytest.fixture(autouse=True)
def _eager_celery():
    """Tasks run in-process unless a test starts a real worker (see test_worker.py)."""
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = before


@pytest.fixture
def matter(db) -> Matter:
    return MatterFactory()


@pytest.fixture
def owner(matter: Matter):
    return MembershipFactory(matter=matter).user
