"""Handing a matter over: one zip with every document in its folder, each answer with its
citations and PDF memo, each grid as XLSX, and the audit trail and members as CSV, read back
here (the PDF with pypdf, the XLSX with openpyxl); the same through the page, the API and
the command; owners only, audited."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import openpyxl
import pytest
from django.core.management import call_command
from django.test import Client
from pypdf import PdfReader

from legalnav.answers import actions as answer_actions
from legalnav.answers.models import Question
from legalnav.api.tokens import api_token_create
from legalnav.documents import actions as document_actions
from legalnav.matters import actions as matter_actions
from legalnav.matters.models import AuditEvent, Matter, Membership
from legalnav.review import actions as review_actions
from legalnav.review.services import ColumnSpec
from tests.conftest import MembershipFactory, UserFactory, demo_bytes

pytestmark = pytest.mark.django_db

FOLDER = "Data room / 1 Contracts"
FILE = "bioamber-development-agreement.txt"


@pytest.fixture
def built(settings, django_capture_on_commit_callbacks):
    settings.LEGALNAV_QUESTION_RATE_PER_MINUTE = 1000
    owner = UserFactory(username="olivia")
    matter = MembershipFactory(user=owner, matter__name="Atlas: acquisition").matter
    for folder in (FOLDER, ""):  # the same file name twice, in two folders
        data = demo_bytes(FILE) + (b"\n\nCopy." if not folder else b"")
        document_actions.document_upload(
            matter=matter,
            user=owner,
            filename=FILE,
            data=data,
            folder=folder,
            kind="agreement",
            here=True,
        )
    query = answer_actions.question_ask(
        matter=matter,
        user=owner,
        question="Which state's law governs the agreement?",
        mode="navembed",
        via="page",
        here=True,
    )
    query.refresh_from_db()
    assert query.status == Question.Status.ANSWERED, query.error_message
    with django_capture_on_commit_callbacks(execute=True):  # the grid is filled (inline runner)
        grid = review_actions.grid_create(
            matter=matter,
            user=owner,
            title="Key terms",
            columns=[ColumnSpec("Governing Law", "Which law governs this agreement?", "text")],
            document_ids=None,
            mode="offline",
            via="page",
        )
    grid.refresh_from_db()
    assert grid.status == "done", grid.error_message
    return matter, owner, query, grid


def _read(data: bytes, matter: Matter, query: Question, grid) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None
        files = {name: archive.read(name) for name in archive.namelist()}
    root = "Atlas_ acquisition/"  # the matter's name, made safe for every unzip tool
    assert all(name.startswith(root) for name in files), sorted(files)
    files = {name[len(root) :]: body for name, body in files.items()}
    # Documents in their folders, byte for byte.
    assert files[f"documents/Data room/1 Contracts/{FILE}"] == demo_bytes(FILE)
    assert files[f"documents/{FILE}"].endswith(b"Copy.")
    index = list(csv.DictReader(io.StringIO(files["documents/index.csv"].decode("utf-8-sig"))))
    assert {row["file in this zip"] for row in index} == {
        f"Data room/1 Contracts/{FILE}",
        FILE,
    }
    # The answer with its citations, quoted.
    answer = files[f"answers/Q{query.pk}.md"].decode()
    assert query.question in answer and query.answer.text in answer
    citation = query.answer.citations.first()
    assert f"[{citation.doc_key}:{citation.node_ref}]" in answer and "verified" in answer
    # The PDF memo, read back.
    memo = files[f"memos/Q{query.pk}.pdf"]
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(memo)).pages)
    assert "Which state's law governs the agreement?" in " ".join(text.split())
    # The grid as XLSX, opened.
    book = openpyxl.load_workbook(io.BytesIO(files[f"grids/G{grid.pk} Key terms.xlsx"]))
    values = [c.value for row in book.worksheets[0].iter_rows() for c in row]
    assert "Governing Law" in values
    assert any(isinstance(v, str) and "Minnesota" in v for v in values)
    # The audit trail (the export itself included) and the members.
    audit = files["audit.csv"].decode("utf-8-sig")
    assert "Uploaded a document" in audit or "uploaded" in audit.lower()
    assert "Exported the matter for handover" in audit
    assert "olivia,owner" in files["members.csv"].decode("utf-8-sig")
    readme = files["README.txt"].decode()
    assert "Atlas: acquisition" in readme and "grids/" in readme
    return files


def test_an_owner_downloads_the_handover_zip_from_the_page(built):
    matter, owner, query, grid = built
    client = Client()
    client.force_login(owner)
    page = client.get(f"/matters/{matter.pk}/life/")
    assert b"Download the handover zip" in page.content
    response = client.post(f"/matters/{matter.pk}/handover/")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "application/zip"
    assert 'filename="legalnav-handover-atlas-acquisition-' in response["Content-Disposition"]
    _read(b"".join(response.streaming_content), matter, query, grid)
    event = AuditEvent.objects.get(matter=matter, action=AuditEvent.Action.HANDOVER_EXPORTED)
    assert event.user == owner and event.detail["via"] == "page"


def test_only_owners_hand_over_and_a_purged_matter_has_nothing_to_hand_over(built):
    matter, owner, _, _ = built
    editor = MembershipFactory(matter=matter, role=Membership.Role.EDITOR).user
    stranger = UserFactory()
    for user, status in ((editor, 403), (stranger, 404)):
        client = Client()
        client.force_login(user)
        assert client.post(f"/matters/{matter.pk}/handover/").status_code == status
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.HANDOVER_EXPORTED).exists()
    Matter.objects.filter(pk=matter.pk).update(status=Matter.Status.PURGED)
    matter.refresh_from_db()
    with pytest.raises(matter_actions.MatterLifeError):
        matter_actions.matter_handover(matter=matter, user=owner, via="page")


def test_the_api_and_the_command_hand_over_the_same_zip(built, tmp_path: Path):
    matter, owner, query, grid = built
    _, token = api_token_create(user=owner, name="handover", scope="read")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    response = client.get(f"/api/v1/matters/{matter.pk}/handover")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    from_api = _read(b"".join(response.streaming_content), matter, query, grid)
    editor = MembershipFactory(matter=matter, role=Membership.Role.EDITOR).user
    _, weak = api_token_create(user=editor, name="editor")
    refused = Client(HTTP_AUTHORIZATION=f"Bearer {weak}").get(
        f"/api/v1/matters/{matter.pk}/handover"
    )
    assert refused.status_code == 403 and refused.json()["error"]["code"]

    out = tmp_path / "handover.zip"
    call_command("handover_matter", str(matter.pk), "--out", str(out))
    from_command = _read(out.read_bytes(), matter, query, grid)
    assert not list(tmp_path.glob("*.part"))
    same = {k for k in from_api if not k.endswith((".pdf", ".csv", ".xlsx", "README.txt"))}
    assert all(from_api[k] == from_command[k] for k in same)
    vias = list(
        AuditEvent.objects.filter(action=AuditEvent.Action.HANDOVER_EXPORTED).values_list(
            "detail__via", flat=True
        )
    )
    assert sorted(vias) == ["api", "command"]


def test_a_part_that_fails_leaves_a_whole_zip_that_says_what_is_missing(built, monkeypatch):
    matter, owner, query, _ = built
    from legalnav.answers import handover as answers_handover
    from legalnav.review import exports

    def broken(*args, **kwargs):
        raise OSError("disk went away")

    monkeypatch.setattr(exports, "grid_xlsx", broken)
    monkeypatch.setattr(answers_handover, "memo_render", broken)
    handover = matter_actions.matter_handover(matter=matter, user=owner, via="page")
    with zipfile.ZipFile(io.BytesIO(b"".join(handover.chunks))) as archive:
        assert archive.testzip() is None
        names = archive.namelist()
        readme = archive.read(next(n for n in names if n.endswith("README.txt"))).decode()
        index = archive.read(next(n for n in names if n.endswith("answers/index.csv"))).decode()
    assert any(n.endswith(f"documents/Data room/1 Contracts/{FILE}") for n in names)
    assert any(n.endswith("audit.csv") for n in names)  # the parts after it are there
    assert not any("/grids/" in n or "/memos/" in n for n in names)
    assert "NOT COMPLETE" in readme and "- review: stopped with an error (OSError)" in readme
    assert "the memo could not be made: OSError" in index
    assert any(n.endswith(f"answers/Q{query.pk}.md") for n in names)
