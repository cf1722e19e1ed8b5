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


def index_demo(matter: Matter, name: str):  # type: ignore[no-untyped-def]
    """One demo document, added under its own file name and indexed now; refreshed."""
    from legalnav.documents.services import document_add, document_index

    doc, _ = document_add(matter=matter, filename=name, data=demo_bytes(name), enqueue=False)
    assert document_index(document_id=doc.pk).status == "indexed"
    doc.refresh_from_db()
    return doc


def index_bioamber_pair(matter: Matter):  # type: ignore[no-untyped-def]
    """The demo's development agreement and its first amendment, indexed into the matter:
    (base, amendment), refreshed."""
    from legalnav.documents.services import document_add, document_index

    base, _ = document_add(
        matter=matter,
        filename="bioamber-development-agreement.txt",
        data=demo_bytes("bioamber-development-agreement.txt"),
        kind="agreement",
        title="Development Agreement",
        enqueue=False,
    )
    amendment, _ = document_add(
        matter=matter,
        filename="bioamber-development-agreement-first-amendment.txt",
        data=demo_bytes("bioamber-development-agreement-first-amendment.txt"),
        kind="amendment",
        title="First Amendment",
        amends=base,
        enqueue=False,
    )
    for doc in (base, amendment):
        assert document_index(document_id=doc.pk).status == "indexed"
        doc.refresh_from_db()
    return base, amendment


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


@pytest.fixture(scope="session")
def _index_cache_dir(tmp_path_factory) -> Path:
    """One retrieval index cache for the session: entries are keyed by content hash, so tests
    share embeddings of the same demo documents instead of recomputing them."""
    return tmp_path_factory.mktemp("index-cache")


@pytest.fixture(autouse=True)
def _isolated_files(settings, tmp_path: Path, _index_cache_dir: Path) -> None:
    """Uploaded files and navindex output go to a per-test folder; embedding at indexing time is
    off unless a test turns it on (it is slow on a CPU and tested on its own)."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.NAVINDEX_DIR = tmp_path / "navindex"
    settings.EMBED_ON_INDEX = False
    settings.EMBEDDING_WARM_UP = False  # the tests of the warm-up turn it on
    settings.VECTOR_STORE = "memory"  # tests of the vector store choose and isolate their own
    settings.INDEX_CACHE_DIR = _index_cache_dir
    # Background jobs run in the caller (tests of the thread runner and of real workers set
    # their own runner).
    settings.TASK_RUNNER = "inline"


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
