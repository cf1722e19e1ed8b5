"""The embedded default under load, as ``make demo`` runs it: ``manage.py runserver`` on the test's
database with no broker, so background work goes to the web process's own job queues. Before,
ten questions at once left nine "running" for good (SQLite "database is locked", then a retry
that gave up on its own claim)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from legalnav.answers.models import Question
from legalnav.api.tokens import api_token_create
from legalnav.documents.models import Document
from legalnav.matters.models import Membership
from tests.conftest import MembershipFactory, demo_bytes, index_bioamber_pair
from tests.procs import child_env, start_web, wait_until

QUESTIONS = [
    "What is the term of the agreement?",
    "Which law governs the agreement?",
    "How can the agreement be terminated?",
    "What does the first amendment change?",
    "Who are the parties?",
]
# Uploaded alongside the questions (changed copies of the demo pair, so they are new files).
UPLOADS = [
    "bioamber-development-agreement.txt",
    "bioamber-development-agreement-first-amendment.txt",
]


@pytest.fixture
def served(transactional_db, matter, tmp_path):
    index_bioamber_pair(matter)
    user = MembershipFactory(matter=matter, role=Membership.Role.EDITOR).user
    _, token = api_token_create(user=user, name="load")
    web, url = start_web(tmp_path, child_env(JOB_SWEEP_SECONDS="5"))
    yield url, {"Authorization": f"Bearer {token}"}, web
    web.stop()


@pytest.mark.parametrize("n", [2, 20])
def test_many_questions_and_uploads_at_once_all_finish(served, matter, n):
    url, auth, web = served

    def ask(i: int) -> httpx.Response:
        return httpx.post(
            f"{url}/api/v1/matters/{matter.pk}/queries",
            json={"question": QUESTIONS[i % len(QUESTIONS)], "mode": "navembed"},
            headers=auth,
            timeout=60,
        )

    def upload(name: str) -> httpx.Response:
        return httpx.post(
            f"{url}/api/v1/matters/{matter.pk}/documents",
            files={"file": (f"copy-{name}", demo_bytes(name) + b"\n\nAnnex.\n")},
            headers=auth,
            timeout=60,
        )

    with ThreadPoolExecutor(max_workers=n + len(UPLOADS)) as pool:
        asked = list(pool.map(ask, range(n)))
        uploaded = list(pool.map(upload, UPLOADS))
    # Every request is answered at once (202, 201): the work happens after the response.
    assert [r.status_code for r in asked] == [202] * n, [r.text for r in asked]
    assert [r.status_code for r in uploaded] == [201] * len(UPLOADS), [r.text for r in uploaded]
    ids = [r.json()["id"] for r in asked]
    doc_ids = [r.json()["document"]["id"] for r in uploaded]

    def settled() -> bool:
        open_q = Question.objects.filter(pk__in=ids, status__in=["queued", "running"]).count()
        open_d = Document.objects.filter(pk__in=doc_ids, status__in=["queued", "indexing"])
        return open_q == 0 and not open_d.exists()

    wait_until(settled, timeout=240, what=f"{n} questions and 2 uploads to finish", logs=[web])
    statuses = dict(Question.objects.filter(pk__in=ids).values_list("pk", "status"))
    assert set(statuses.values()) == {"answered"}, (
        statuses,
        list(Question.objects.filter(pk__in=ids).values_list("error_message", flat=True)),
    )
    assert set(Document.objects.filter(pk__in=doc_ids).values_list("status", flat=True)) == {
        "indexed"
    }
    # Polling the API shows the same, and nothing is reported stalled.
    polled = httpx.get(f"{url}/api/v1/matters/{matter.pk}/queries/{ids[-1]}", headers=auth).json()
    assert polled["status"] == "answered" and polled["answer"]["citations"]
    assert "database is locked" not in web.log_path.read_text(errors="replace")
