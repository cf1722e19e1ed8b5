"""Purging a matter leaves nothing of its content behind, whichever door it comes through.

A unique marker is written into a real agreement (the demo development agreement, its governing
law and its title), the document is uploaded and indexed with its vectors in a real store, a
question about it is answered, a grid is filled and a memo exported; then the matter is closed
and purged through the page (an owner asks, staff confirm), the API (the same, with tokens) or the
command. Afterwards no file under the data folders, no row of any table (read with raw SQL), no
vector of the matter and, on SQLite, not even the database file's bytes hold the marker; the audit
keeps "purged" with who and when, outside the matter.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from legalnav.answers import actions as answer_actions
from legalnav.answers.models import Question
from legalnav.api.tokens import api_token_create
from legalnav.documents import actions as document_actions
from legalnav.documents.models import Document
from legalnav.matters.models import AuditEvent, Matter
from legalnav.retrieval import services as retrieval_services
from legalnav.retrieval.vectors import EdgeVectorStore, ServerVectorStore
from legalnav.review import actions as review_actions
from legalnav.review.models import Cell, Grid
from legalnav.review.services import ColumnSpec
from tests.conftest import MembershipFactory, UserFactory, demo_bytes

pytestmark = pytest.mark.django_db(transaction=True)

MARKER = "Quorvath-58213"


def _marked_agreement() -> bytes:
    text = demo_bytes("bioamber-development-agreement.txt").decode("utf-8")
    assert "State of Minnesota" in text and "DEVELOPMENT AGREEMENT" in text
    text = text.replace("State of Minnesota", f"State of {MARKER}")
    text = text.replace("DEVELOPMENT AGREEMENT", f"DEVELOPMENT AGREEMENT ({MARKER})", 1)
    return text.encode("utf-8")


@pytest.fixture(params=["edge", "server"])
def store(request, settings, tmp_path: Path, monkeypatch):
    if request.param == "edge":
        made = EdgeVectorStore(tmp_path / "edge")
    else:
        from qdrant_client import QdrantClient

        made = ServerVectorStore(client=QdrantClient(location=":memory:"))
        settings.QDRANT_URL = "http://qdrant.invalid:6333"  # never dialled: the client is given
    settings.VECTOR_STORE = request.param
    settings.EMBED_ON_INDEX = True
    monkeypatch.setattr(retrieval_services, "get_vector_store", lambda: made)
    yield made
    made.close()


def _matter_points(store, collection: str, matter_id: int) -> int:
    """The matter's points in the store (the Edge test store holds this matter's only)."""
    if isinstance(store, ServerVectorStore):
        from qdrant_client import models as qm

        found, _ = store.client.scroll(
            collection,
            scroll_filter=qm.Filter(
                must=[qm.FieldCondition(key="matter_id", match=qm.MatchValue(value=matter_id))]
            ),
            limit=10_000,
        )
        return len(found)
    return store.count(collection)


def _build(owner) -> tuple[Matter, str]:
    """A matter with the marked agreement indexed (vectors stored), a question answered about
    it, a grid filled over it and a memo exported: the marker is everywhere a matter keeps text."""
    membership = MembershipFactory(user=owner, matter__name="Atlas acquisition")
    matter = membership.matter
    outcome = document_actions.document_upload(
        matter=matter,
        user=owner,
        filename=f"{MARKER} development agreement.txt",
        data=_marked_agreement(),
        via="page",
        kind="agreement",
    )
    document = Document.objects.get(pk=outcome.document.pk)
    assert document.status == Document.Status.INDEXED, document.error_message
    assert document.vector_collection
    query = answer_actions.question_ask(
        matter=matter,
        user=owner,
        question=f"Which state's law governs the {MARKER} agreement?",
        mode="navembed",
        via="page",
        here=True,
    )
    query.refresh_from_db()
    assert query.status == Question.Status.ANSWERED, query.error_message
    assert MARKER in query.answer.text  # the governing-law clause is quoted
    grid = review_actions.grid_create(
        matter=matter,
        user=owner,
        title="Key terms",
        columns=[
            ColumnSpec("Governing Law", "Which law governs this agreement?", "text"),
            ColumnSpec("Document Name", "What is the agreement called?", "text"),
        ],
        document_ids=None,
        mode="offline",
        via="page",
    )
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE, grid.error_message
    assert any(MARKER in (c.value + c.quotation) for c in Cell.objects.filter(grid=grid))
    return matter, document.vector_collection


def _holders_in_tables(marker: str) -> list[str]:
    """Every table of the database, read whole with raw SQL: which rows hold the marker."""
    found = []
    needle = marker.lower()
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            for row in cursor.fetchall():
                if needle in repr(row).lower():
                    found.append(f"{table}: {repr(row)[:120]}")
    return found


def _holders_in_files(marker: str) -> list[str]:
    needle = marker.lower().encode()
    found = []
    for root in (
        django_settings.MEDIA_ROOT,
        django_settings.NAVINDEX_DIR,
        django_settings.INDEX_CACHE_DIR,
    ):
        for path in Path(root).rglob("*"):
            if path.is_file() and needle in path.read_bytes().lower():
                found.append(str(path))
    if connection.vendor == "sqlite":  # the database file itself, and its write-ahead log
        name = connection.settings_dict["NAME"]
        for path in (Path(name), Path(f"{name}-wal")):
            if path.exists() and needle in path.read_bytes().lower():
                found.append(str(path))
    return found


def _purge_by_page(client, matter: Matter, owner, staff) -> None:
    client.force_login(owner)
    assert client.post(reverse("matter-close", args=[matter.pk])).status_code == 302
    response = client.post(
        reverse("matter-purge-request", args=[matter.pk]), {"typed_name": matter.name}
    )
    assert response.status_code == 302
    client.force_login(staff)
    page = client.get(reverse("matter-retention"))
    assert page.status_code == 200 and matter.name in page.content.decode()
    response = client.post(reverse("matter-purge", args=[matter.pk]), {"typed_name": matter.name})
    assert response.status_code == 302


def _purge_by_api(client, matter: Matter, owner, staff) -> None:
    own = {"HTTP_AUTHORIZATION": f"Bearer {api_token_create(user=owner, name='t')[1]}"}
    staffs = {"HTTP_AUTHORIZATION": f"Bearer {api_token_create(user=staff, name='t')[1]}"}
    base = f"/api/v1/matters/{matter.pk}"
    closed = client.post(f"{base}/close", **own)
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    asked = client.post(
        f"{base}/purge-request", {"name": matter.name}, content_type="application/json", **own
    )
    assert asked.status_code == 200 and asked.json()["purge_requested_at"]
    purged = client.post(
        f"{base}/purge", {"name": matter.name}, content_type="application/json", **staffs
    )
    assert purged.status_code == 200, purged.content
    body = purged.json()
    assert body["status"] == "purged" and body["removed"]["documents"] == 1
    assert body["removed"]["questions"] == 1 and body["removed"]["grids"] == 1


def _purge_by_command(client, matter: Matter, owner, staff) -> None:
    call_command("purge_matter", str(matter.pk), "--yes")


DOORS = {"page": _purge_by_page, "api": _purge_by_api, "command": _purge_by_command}


@pytest.mark.parametrize("door", list(DOORS))
def test_a_purge_leaves_no_trace_of_the_matters_text(door, store, client):
    owner = UserFactory()
    staff = UserFactory(is_staff=True)
    matter, collection = _build(owner)
    client.force_login(owner)
    query = Question.objects.get(matter=matter)
    pdf = client.post(reverse("answer-memo", args=[matter.pk, query.pk]))
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    # The marker is where a matter keeps text, so that finding none afterwards means something.
    before = _holders_in_tables(MARKER)
    assert {h.split(":")[0] for h in before} >= {
        "documents_document",
        "documents_node",
        "answers_answer",
        "answers_citation",
        "review_cell",
        "matters_auditevent",
    }
    assert _holders_in_files(MARKER)
    assert _matter_points(store, collection, matter.pk) > 0

    DOORS[door](client, matter, owner, staff)

    matter.refresh_from_db()
    assert matter.status == Matter.Status.PURGED and matter.purged_at is not None
    assert _holders_in_tables(MARKER) == []
    assert _holders_in_files(MARKER) == []
    assert _matter_points(store, collection, matter.pk) == 0
    event = AuditEvent.objects.get(
        matter=None, action=AuditEvent.Action.PURGED, detail__matter_id=matter.pk
    )
    assert event.user == (None if door == "command" else staff)
    assert event.detail["via"] == door and event.detail["documents"] == 1
    assert event.target == "Atlas acquisition"
    # The matter's own trail keeps who did what and when, without the words it quoted.
    kept = set(AuditEvent.objects.filter(matter=matter).values_list("action", flat=True))
    assert {"uploaded", "asked", "grid_created", "exported", "closed"} <= kept
    assert not os.path.exists(Path(django_settings.NAVINDEX_DIR) / f"matter-{matter.pk}")
