"""Adding and indexing documents against the database: success, failure, retry, no-op, amendments."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pypdf import PdfWriter

from legalnav.documents import services
from legalnav.documents.models import CrossReference, DefinedTerm, Document, Node
from legalnav.documents.services import DocumentRejected, document_add, document_index
from tests.conftest import demo_bytes

pytestmark = pytest.mark.django_db

BIOAMBER = "bioamber-development-agreement.txt"
BIOAMBER_AMENDMENT = "bioamber-development-agreement-first-amendment.txt"


def encrypted_pdf() -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    writer.encrypt(user_password="secret", owner_password="owner")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def add(matter, name=BIOAMBER, **kw):
    doc, _ = document_add(matter=matter, filename=name, data=demo_bytes(name), enqueue=False, **kw)
    return doc


def test_index_a_real_agreement(matter, settings):
    doc = add(matter)
    outcome = document_index(document_id=doc.pk)
    doc.refresh_from_db()
    assert outcome.status == "indexed" and doc.status == Document.Status.INDEXED
    assert doc.node_count == Node.objects.filter(document=doc).count() == outcome.nodes > 20
    assert doc.progress == 100 and doc.indexed_sha256 == doc.sha256
    s22 = Node.objects.get(document=doc, node_id="s2.2")
    assert doc.text[s22.start : s22.end].startswith("2.2")
    assert s22.parent.node_id == "s2"
    # Metadata guessed from the text when the uploader gave none.
    assert doc.kind == "agreement" and doc.effective_date.isoformat() == "2010-04-15"
    assert DefinedTerm.objects.filter(document=doc, term="Cargill").exists()
    folder = Path(settings.NAVINDEX_DIR) / f"matter-{matter.pk}"
    index = json.loads((folder / f"{doc.key}.index.json").read_text())
    assert index["documentId"] == doc.key and index["documentIndex"]
    small = json.loads((folder / f"{doc.key}.index.min.json").read_text())
    assert small["di"] == doc.key
    full = json.loads((folder / f"{doc.key}.full.json").read_text())
    assert full["provisions"]["s2.2"] == s22.text


def test_reindexing_an_unchanged_file_is_a_no_op(matter):
    doc = add(matter)
    document_index(document_id=doc.pk)
    ids = list(Node.objects.filter(document=doc).values_list("pk", flat=True))
    with CaptureQueriesContext(connection) as queries:
        outcome = document_index(document_id=doc.pk)
    assert outcome.status == "unchanged"
    assert len(queries) == 1  # one read, no writes
    assert list(Node.objects.filter(document=doc).values_list("pk", flat=True)) == ids


def test_same_bytes_twice_give_the_same_document(matter):
    first = add(matter)
    second, created = document_add(
        matter=matter, filename="copy.txt", data=demo_bytes(BIOAMBER), enqueue=False
    )
    assert second.pk == first.pk and not created
    assert Document.objects.filter(matter=matter).count() == 1


@pytest.mark.parametrize(
    ("filename", "data", "code"),
    [
        ("empty.txt", b"", "empty"),
        ("blank.txt", b"  \n\t", "empty"),
        ("notes.xyz", b"hello", "unknown_type"),
    ],
)
def test_files_that_cannot_be_documents_are_refused_and_nothing_is_stored(
    matter, filename, data, code
):
    with pytest.raises(DocumentRejected) as err:
        document_add(matter=matter, filename=filename, data=data, enqueue=False)
    assert err.value.code == code and filename in err.value.message
    assert not Document.objects.exists()


def test_oversized_upload_is_refused(matter, settings):
    settings.LEGALNAV_MAX_UPLOAD_BYTES = 1000
    with pytest.raises(DocumentRejected) as err:
        document_add(matter=matter, filename="big.txt", data=b"x" * 5000, enqueue=False)
    assert err.value.code == "too_large" and "limit" in err.value.message
    assert not Document.objects.exists()


@pytest.mark.parametrize(
    ("filename", "data", "code"),
    [
        ("broken.pdf", b"%PDF-1.7\n this is not a real pdf \n%%EOF", "corrupt"),
        ("locked.pdf", encrypted_pdf(), "encrypted"),
        ("fake.pdf", b"just text pretending to be a pdf", "corrupt"),
        ("broken.docx", b"PK\x03\x04 not a zip at all", "corrupt"),
    ],
)
def test_unreadable_files_fail_with_a_reason_and_no_nodes(
    matter, filename, data, code, django_capture_on_commit_callbacks
):
    doc, _ = document_add(matter=matter, filename=filename, data=data, enqueue=False)
    outcome = document_index(document_id=doc.pk)
    doc.refresh_from_db()
    assert outcome.status == "failed"
    assert doc.status == Document.Status.FAILED and doc.error_code == code
    assert doc.error_message and doc.progress == 0
    assert not Node.objects.filter(document=doc).exists()
    # A retry runs again (it is not mistaken for "unchanged") and fails the same clear way.
    with django_capture_on_commit_callbacks(execute=True):
        services.document_reindex(document=doc)
    doc.refresh_from_db()
    assert (
        doc.status == Document.Status.FAILED and doc.attempts == 1
    )  # a retry starts a fresh count of attempts


def test_a_parser_crash_keeps_the_previous_nodes_and_can_be_retried(matter, monkeypatch):
    doc = add(matter)
    document_index(document_id=doc.pk)
    before = list(Node.objects.filter(document=doc).values_list("node_id", flat=True))

    def boom(text):
        raise RuntimeError("parser bug")

    monkeypatch.setattr(services, "parse_document", boom)
    Document.objects.filter(pk=doc.pk).update(indexed_sha256="")  # force a rebuild
    outcome = document_index(document_id=doc.pk)
    doc.refresh_from_db()
    assert outcome.status == "failed" and doc.error_code == "parse_error"
    assert list(Node.objects.filter(document=doc).values_list("node_id", flat=True)) == before

    monkeypatch.undo()
    assert document_index(document_id=doc.pk).status == "indexed"
    doc.refresh_from_db()
    assert doc.status == Document.Status.INDEXED and doc.error_message == ""


def test_a_document_claimed_by_another_worker_is_left_alone(matter):
    doc = add(matter)
    from datetime import timedelta

    from django.utils import timezone

    Document.objects.filter(pk=doc.pk).update(
        status=Document.Status.INDEXING,
        lease_owner="celery:another-task",
        lease_expires_at=timezone.now() + timedelta(seconds=60),
    )
    assert document_index(document_id=doc.pk).status == "busy"
    assert not Node.objects.filter(document=doc).exists()
    # Once that worker's lease has expired (it died), the document is taken over.
    Document.objects.filter(pk=doc.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert document_index(document_id=doc.pk).status == "indexed"
    doc.refresh_from_db()
    assert doc.lease_owner == "" and doc.lease_expires_at is None and doc.node_count > 20


def test_unknown_document_id():
    assert document_index(document_id=987654).status == "gone"


@pytest.mark.parametrize("base_first", [True, False])
def test_amendment_references_resolve_into_the_base_document(matter, base_first):
    base = add(matter, kind="agreement", title="Development Agreement")
    amendment = add(
        matter, BIOAMBER_AMENDMENT, kind="amendment", title="First Amendment", amends=base
    )
    order = [base, amendment] if base_first else [amendment, base]
    for doc in order:
        assert document_index(document_id=doc.pk).status == "indexed"
    ref = (
        CrossReference.objects.filter(source__document=amendment, text="Section 2.2")
        .select_related("target")
        .first()
    )
    assert ref is not None and ref.target is not None
    assert ref.target.document_id == base.pk and ref.target.node_id == "s2.2"
    # The amendment's navindex names the base node with its document key.
    built = services.document_navindex(document=Document.objects.get(pk=amendment.pk))
    xrefs = [x for root in built.roots for x in root.cross_refs]
    assert f"{base.key}:s2.2" in xrefs
    # A reference to another instrument that is not in the matter stays unresolved, with a reason.
    other = CrossReference.objects.filter(
        source__document=amendment, qualifier="Commercial License"
    ).first()
    assert other.target is None and other.unresolved_reason == "external"


def test_deleting_a_document_removes_its_files(matter, settings):
    doc = add(matter)
    document_index(document_id=doc.pk)
    folder = Path(settings.NAVINDEX_DIR) / f"matter-{matter.pk}"
    stored = Path(doc.source_file.path)
    assert stored.exists() and any(folder.iterdir())
    services.document_delete(document=doc)
    assert not stored.exists() and not any(folder.iterdir())
    assert not Node.objects.exists()


def test_enqueue_runs_after_commit(matter, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        doc, _ = document_add(matter=matter, filename=BIOAMBER, data=demo_bytes(BIOAMBER))
    assert len(callbacks) == 1
    doc.refresh_from_db()
    assert doc.status == Document.Status.INDEXED


def _docx_bytes() -> bytes:
    from docx import Document as Docx

    d = Docx()
    for line in (
        "SUPPLY AGREEMENT",
        "ARTICLE I",
        "DEFINITIONS",
        "Section 1.01. Definitions. In this Agreement:",
        "“Products” means the goods listed in Schedule A.",
        "ARTICLE II",
        "SUPPLY",
        "Section 2.01. Orders. Buyer shall order Products under Section 1.01.",
    ):
        d.add_paragraph(line)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def _pdf_bytes() -> bytes:
    import weasyprint

    html = (
        "<p>SUPPLY AGREEMENT</p><p>ARTICLE I</p><p>DEFINITIONS</p>"
        "<p>Section 1.01. Definitions. In this Agreement:</p>"
        "<p>“Products” means the goods listed in Schedule A.</p><p>ARTICLE II</p><p>SUPPLY</p>"
        "<p>Section 2.01. Orders. Buyer shall order Products under Section 1.01.</p>"
    )
    return weasyprint.HTML(string=html).write_pdf()


HTML_EXHIBIT = (
    b"<html><body><p align=center><b>SUPPLY AGREEMENT</b></p><p>ARTICLE I</p><p>DEFINITIONS</p>"
    b"<p>Section&nbsp;1.01. Definitions. In this Agreement:</p>"
    b"<p>&#8220;Products&#8221; means the goods listed in Schedule A.</p>"
    b"<hr style='page-break-after:always'><p>ARTICLE II</p><p>SUPPLY</p>"
    b"<p>Section 2.01. Orders. Buyer shall order Products under Section 1.01.</p></body></html>"
)


@pytest.mark.parametrize(
    ("filename", "make"),
    [
        ("supply.docx", _docx_bytes),
        ("supply.pdf", _pdf_bytes),
        ("supply.htm", lambda: HTML_EXHIBIT),
    ],
)
def test_docx_pdf_and_html_become_clause_trees(matter, filename, make):
    doc, _ = document_add(matter=matter, filename=filename, data=make(), enqueue=False)
    assert document_index(document_id=doc.pk).status == "indexed"
    ids = set(Node.objects.filter(document=doc).values_list("node_id", flat=True))
    assert {"art1", "s1.01", "def:products", "art2", "s2.01"} <= ids
    ref = CrossReference.objects.get(source__document=doc, source__node_id="s2.01")
    assert ref.target.node_id == "s1.01"
    assert (
        DefinedTerm.objects.get(document=doc, term="Products")
        .used_in.filter(node_id="s2.01")
        .exists()
    )


def test_document_is_indexed_only_once_its_navindex_files_are_written(matter, settings, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the navindex folder should be")
    settings.NAVINDEX_DIR = blocker
    doc = add(matter)
    outcome = document_index(document_id=doc.pk)
    doc.refresh_from_db()
    assert outcome.status == "failed" and doc.status == Document.Status.FAILED
    assert doc.error_code == "navindex_write"
    settings.NAVINDEX_DIR = tmp_path / "navindex-ok"
    assert document_index(document_id=doc.pk).status == "indexed"
    assert (tmp_path / "navindex-ok" / f"matter-{matter.pk}" / f"{doc.key}.index.json").exists()
