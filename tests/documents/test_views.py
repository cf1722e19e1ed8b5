"""Document pages through the test client: the matter page (live status, polling that stops with
286, upload of several files with per-file refusals, retry, re-index, delete, details), the
reader (cross-references, defined terms, the as-amended view, escaping), the one-provision
fragment, who may do what, and the query counts of the matter page and the reader."""

from __future__ import annotations

import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from legalnav.documents.models import CrossReference, Document, Node
from legalnav.documents.reader import Span, _render, highlight
from legalnav.documents.services import document_add, document_index
from legalnav.matters.models import AuditEvent, Matter
from tests.conftest import MatterFactory, MembershipFactory, demo_bytes

pytestmark = pytest.mark.django_db

BIOAMBER = "bioamber-development-agreement.txt"
BIOAMBER_AMENDMENT = "bioamber-development-agreement-first-amendment.txt"
HOSTILE = (
    b"SERVICES AGREEMENT\n\n"
    b'1. Definitions. "Services" means <script>alert("x")</script> and <b>bold</b> work '
    b'<img src=x onerror="alert(2)">.\n\n'
    b"2. Scope. The Services are described in Section 1 and in Section 9.\n"
)


def text_of(response) -> str:
    return response.content.decode()


def member(matter: Matter, role: str):
    return MembershipFactory(matter=matter, role=role).user


def add(matter: Matter, name: str = BIOAMBER, data: bytes | None = None, **kw) -> Document:
    doc, _ = document_add(
        matter=matter,
        filename=name,
        data=data if data is not None else demo_bytes(name),
        enqueue=False,
        **kw,
    )
    return doc


def indexed(matter: Matter, name: str = BIOAMBER, data: bytes | None = None, **kw) -> Document:
    doc = add(matter, name, data, **kw)
    assert document_index(document_id=doc.pk).status == "indexed"
    return Document.objects.get(pk=doc.pk)


@pytest.fixture
def pair(matter) -> tuple[Document, Document]:
    """The demo development agreement and its first amendment, as demo/manifest.json loads them."""
    base = add(
        matter,
        BIOAMBER,
        kind="agreement",
        title="Development Agreement",
        effective_date=date(2010, 4, 15),
    )
    amendment = add(
        matter,
        BIOAMBER_AMENDMENT,
        kind="amendment",
        amends=base,
        title="First Amendment to Development Agreement",
        effective_date=date(2011, 7, 5),
    )
    for doc in (base, amendment):
        assert document_index(document_id=doc.pk).status == "indexed"
    return Document.objects.get(pk=base.pk), Document.objects.get(pk=amendment.pk)


def stored_files(settings) -> list[Path]:
    root = Path(settings.MEDIA_ROOT)
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


# --- who may do what ---------------------------------------------------------------------------


def _requests(matter: Matter, doc: Document) -> list[tuple[str, str, dict, str]]:
    """(method, url, data, the weakest role allowed)."""
    upload = {"documents": [SimpleUploadedFile("x.txt", b"1. Term. One year.\n")]}
    return [
        ("get", reverse("matter-detail", args=[matter.pk]), {}, "viewer"),
        ("post", reverse("matter-upload", args=[matter.pk]), upload, "editor"),
        ("get", reverse("document-detail", args=[doc.pk]), {}, "viewer"),
        ("get", reverse("node-fragment", args=[doc.pk, "s1"]), {}, "viewer"),
        ("get", reverse("document-edit", args=[doc.pk]), {}, "editor"),
        (
            "post",
            reverse("document-edit", args=[doc.pk]),
            {"title": "Mine", "kind": "other"},
            "editor",
        ),
        ("post", reverse("document-reindex", args=[doc.pk]), {}, "editor"),
        ("post", reverse("document-delete", args=[doc.pk]), {}, "editor"),
    ]


def small(matter: Matter) -> Document:
    return indexed(
        matter, "lease.txt", b"1. Term. One year.\n", title="Zephyr lease", kind="agreement"
    )


def _unchanged(matter: Matter, doc: Document) -> None:
    assert list(Document.objects.filter(matter=matter)) == [doc]
    fresh = Document.objects.get(pk=doc.pk)
    assert (fresh.title, fresh.status) == (doc.title, "indexed")
    assert not AuditEvent.objects.filter(matter=matter).exists()


def test_anonymous_is_sent_to_sign_in_everywhere(client, matter) -> None:
    doc = small(matter)
    for method, url, data, _ in _requests(matter, doc):
        response = getattr(client, method)(url, data)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url
    _unchanged(matter, doc)


def test_non_members_get_404_everywhere(client, matter) -> None:
    doc = small(matter)
    client.force_login(MembershipFactory(matter=MatterFactory()).user)
    for method, url, data, _ in _requests(matter, doc):
        response = getattr(client, method)(url, data)
        assert response.status_code == 404, url
        assert doc.title not in text_of(response)
    _unchanged(matter, doc)
    for url in (
        reverse("document-detail", args=[999_999]),
        reverse("node-fragment", args=[999_999, "s1"]),
        reverse("matter-detail", args=[999_999]),
    ):
        assert client.get(url).status_code == 404


def test_viewers_read_but_get_403_on_every_change(client, matter) -> None:
    doc = small(matter)
    client.force_login(member(matter, "viewer"))
    for method, url, data, weakest in _requests(matter, doc):
        expected = 200 if weakest == "viewer" else 403
        assert getattr(client, method)(url, data).status_code == expected, url
    _unchanged(matter, doc)
    page = text_of(client.get(reverse("matter-detail", args=[matter.pk])))
    assert "Add documents" not in page and "Manage" not in page


def test_unknown_node_is_404_for_a_member(client, matter, owner) -> None:
    doc = small(matter)
    client.force_login(owner)
    assert client.get(reverse("node-fragment", args=[doc.pk, "s99"])).status_code == 404


def test_changes_need_post_and_the_csrf_token(matter, owner) -> None:
    doc = small(matter)
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.get(reverse("document-delete", args=[doc.pk])).status_code == 405
    assert client.post(reverse("document-delete", args=[doc.pk])).status_code == 403
    upload = {"documents": [SimpleUploadedFile("b.txt", b"1. Price. Ten dollars.\n")]}
    assert client.post(reverse("matter-upload", args=[matter.pk]), upload).status_code == 403
    _unchanged(matter, doc)


# --- the matter page -------------------------------------------------------------------------------


def test_matter_page_lists_kind_date_amends_and_status(client, matter, owner, pair) -> None:
    base, amendment = pair
    failed = add(matter, "broken.pdf", b"%PDF-1.4 junk", title="Side letter draft")
    document_index(document_id=failed.pk)
    failed.refresh_from_db()
    client.force_login(owner)
    page = text_of(client.get(reverse("matter-detail", args=[matter.pk])))
    row = page[page.index(f'id="doc-{amendment.pk}"') :].split("</tr>")[0]
    assert "First Amendment to Development Agreement" in row and "Amendment" in row
    assert "5 Jul 2011" in row
    assert f'href="/documents/{base.pk}/"' in row and "Development Agreement" in row
    assert "Indexed" in row and f"{amendment.node_count} clauses" in row
    base_row = page[page.index(f'id="doc-{base.pk}"') :].split("</tr>")[0]
    assert "amended by" in base_row and amendment.key in base_row
    bad_row = page[page.index(f'id="doc-{failed.pk}"') :].split("</tr>")[0]
    assert "Failed" in bad_row and failed.error_message in bad_row and ">Retry<" in bad_row
    assert reverse("matter-ask", args=[matter.pk]) in page


def test_polling_continues_while_indexing_and_stops_with_286(client, matter, owner) -> None:
    doc = add(matter, "a.txt", b"1. Term. One year.\n")
    Document.objects.filter(pk=doc.pk).update(
        status="indexing",
        progress=30,
        progress_note="Finding the clause structure",
        lease_owner="celery:a-live-worker",
        lease_expires_at=timezone.now() + timedelta(minutes=2),
    )
    client.force_login(owner)
    url = reverse("matter-detail", args=[matter.pk])
    full = text_of(client.get(url))
    assert 'hx-trigger="every 2s"' in full and 'aria-valuenow="30"' in full
    busy = client.get(url, HTTP_HX_REQUEST="true")
    fragment = text_of(busy)
    assert busy.status_code == 200 and 'hx-trigger="every 2s"' in fragment
    assert "Finding the clause structure" in fragment and "<html" not in fragment
    Document.objects.filter(pk=doc.pk).update(status="queued", lease_owner="")
    assert document_index(document_id=doc.pk).status == "indexed"
    done = client.get(url, HTTP_HX_REQUEST="true")
    assert done.status_code == 286  # htmx stops polling
    assert "Indexed" in text_of(done) and "hx-trigger" not in text_of(done)
    assert "<html" not in text_of(done)


def test_matter_page_query_count_does_not_grow_with_documents(
    client, matter, owner, django_assert_num_queries
) -> None:
    base = indexed(matter, "a.txt", b"1. Term. One year.\n")
    client.force_login(owner)
    url = reverse("matter-detail", args=[matter.pk])
    client.get(url)
    # session, user, matter, role, the open jobs that may be stale, the counts by status, kind
    # and folder, the page's ids, its documents (with what they amend), those that amend them
    with django_assert_num_queries(11):
        client.get(url)
    for i in range(9):
        indexed(matter, f"{i}.txt", f"1. Term. {i} years.\n".encode(), amends=base)
    client.get(url)  # finds the likely copies among the indexed documents, for the cache
    # the same, and the likely copies from the cache (there are two indexed documents or more)
    with django_assert_num_queries(12):
        page = text_of(client.get(url))
    assert page.count('<tr id="doc-') == 10


# --- upload ------------------------------------------------------------------------------------


def test_upload_of_a_real_agreement_indexes_it_and_is_audited(
    client, matter, owner, django_capture_on_commit_callbacks
) -> None:
    client.force_login(owner)
    upload = SimpleUploadedFile(BIOAMBER, demo_bytes(BIOAMBER), content_type="text/plain")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("matter-upload", args=[matter.pk]), {"documents": [upload]})
    assert response.status_code == 302
    doc = Document.objects.get(matter=matter)
    assert doc.status == "indexed" and doc.node_count > 50
    assert Node.objects.filter(document=doc, node_id="s2.2").exists()
    event = AuditEvent.objects.get(matter=matter)
    assert event.action == "uploaded" and event.user == owner
    assert event.target.startswith(f"{doc.key} ") and BIOAMBER in event.target
    assert event.detail["bytes"] == len(demo_bytes(BIOAMBER))
    page = text_of(client.get(response["Location"]))
    assert f"Added “{BIOAMBER}” as {doc.key}; indexing has started." in page
    assert f'href="/documents/{doc.pk}/"' in page


def test_upload_of_several_files_refuses_the_bad_ones_with_reasons_and_keeps_the_good(
    client, matter, owner, settings, django_capture_on_commit_callbacks
) -> None:
    settings.LEGALNAV_MAX_UPLOAD_BYTES = 2048
    member_editor = member(matter, "editor")
    client.force_login(member_editor)
    files = [
        SimpleUploadedFile("good.txt", b"1. Term. The term is one year.\n"),
        SimpleUploadedFile("empty.txt", b""),
        SimpleUploadedFile("blank.pdf", b"   \n"),
        SimpleUploadedFile("huge.txt", b"1. Term. " + b"x" * 4096),
        SimpleUploadedFile("song.mp3", b"ID3 not a document"),
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("matter-upload", args=[matter.pk]), {"documents": files}, follow=True
        )
    page = text_of(response)
    assert "Added “good.txt” as D" in page
    assert "Not uploaded: “empty.txt” is empty." in page
    assert "Not uploaded: “blank.pdf” is empty." in page
    assert "Not uploaded: “huge.txt” is over the 2 KB limit." in page
    assert "Not uploaded: “song.mp3” is not a supported file type" in page
    assert list(Document.objects.values_list("original_filename", flat=True)) == ["good.txt"]
    assert [p.name for p in stored_files(settings)] == ["good.txt"]
    assert list(AuditEvent.objects.values_list("action", flat=True)) == ["uploaded"]


def test_upload_refuses_nothing_chosen_and_too_many_files_saving_nothing(
    client, matter, owner, settings
) -> None:
    client.force_login(owner)
    url = reverse("matter-upload", args=[matter.pk])
    nothing = text_of(client.post(url, {}, follow=True))
    assert "Choose at least one file to upload." in nothing
    many = [SimpleUploadedFile(f"{i}.txt", f"1. Term. {i}.\n".encode()) for i in range(21)]
    too_many = text_of(client.post(url, {"documents": many}, follow=True))
    assert "Upload at most 20 files at a time; 21 were chosen." in too_many
    assert not Document.objects.exists() and not stored_files(settings)
    assert not AuditEvent.objects.exists()


def test_uploading_the_same_file_again_adds_nothing(client, matter, owner) -> None:
    doc = indexed(matter, "a.txt", b"1. Term. One year.\n")
    client.force_login(owner)
    again = SimpleUploadedFile("copy.txt", b"1. Term. One year.\n")
    page = text_of(
        client.post(reverse("matter-upload", args=[matter.pk]), {"documents": [again]}, follow=True)
    )
    assert f"“copy.txt” is already in this matter as {doc.key}" in page
    assert Document.objects.count() == 1 and not AuditEvent.objects.exists()


# --- retry, re-index, delete, details -------------------------------------------------------------


def test_failed_document_retried_after_its_file_is_fixed(
    client, matter, owner, django_capture_on_commit_callbacks
) -> None:
    doc = add(matter, "notes.txt", b"1. Term. One year.\n")
    Document.objects.filter(pk=doc.pk).update(
        status="failed", error_code="parse_error", error_message="The worker crashed (boom)."
    )
    client.force_login(owner)
    page = text_of(client.get(reverse("matter-detail", args=[matter.pk])))
    assert "The worker crashed (boom)." in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("document-reindex", args=[doc.pk]), follow=True)
    assert f"Retrying {doc.key}" in text_of(response)
    doc.refresh_from_db()
    assert doc.status == "indexed" and doc.error_message == ""
    event = AuditEvent.objects.get()
    assert event.action == "reindexed" and event.detail == {
        "document_id": doc.pk,
        "force": False,
        "retry": True,
        "status_before": "failed",
        "via": "page",
    }


def test_reindex_rebuilds_an_indexed_document_and_is_audited(
    client, matter, django_capture_on_commit_callbacks
) -> None:
    doc = indexed(matter, "a.txt", b"1. Term. One year.\n")
    client.force_login(member(matter, "editor"))
    first_indexed_at = doc.indexed_at
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("document-reindex", args=[doc.pk]))
    doc.refresh_from_db()
    assert doc.status == "indexed" and doc.indexed_at > first_indexed_at  # really rebuilt
    assert AuditEvent.objects.get().detail == {
        "document_id": doc.pk,
        "force": True,
        "retry": False,
        "status_before": "indexed",
        "via": "page",
    }


def test_a_document_being_indexed_is_not_queued_twice(client, matter, owner) -> None:
    doc = add(matter, "a.txt", b"1. Term. One year.\n")
    Document.objects.filter(pk=doc.pk).update(
        status="indexing",
        lease_owner="celery:a-live-worker",
        lease_expires_at=timezone.now() + timedelta(minutes=2),
    )
    client.force_login(owner)
    page = text_of(client.post(reverse("document-reindex", args=[doc.pk]), follow=True))
    assert f"{doc.key} is already being indexed." in page
    assert not AuditEvent.objects.exists()


def test_delete_removes_the_document_its_clauses_and_file_and_is_audited(
    client, matter, settings
) -> None:
    doc = indexed(matter, "a.txt", b"1. Term. One year.\n")
    editor = member(matter, "editor")
    client.force_login(editor)
    page = text_of(client.get(reverse("matter-detail", args=[matter.pk])))
    assert f"Delete {doc.key} “{doc.title}”?" in page  # the confirmation step
    response = client.post(reverse("document-delete", args=[doc.pk]), follow=True)
    assert f"Deleted {doc.key} “a”" in text_of(response)
    assert not Document.objects.exists() and not Node.objects.exists()
    assert not stored_files(settings)
    event = AuditEvent.objects.get()
    assert (event.action, event.user, event.detail["filename"]) == ("deleted", editor, "a.txt")


def test_editing_details_links_an_amendment_to_its_base_and_re_resolves_its_references(
    client, matter, owner, django_capture_on_commit_callbacks
) -> None:
    base = indexed(matter, BIOAMBER)
    amendment = indexed(matter, BIOAMBER_AMENDMENT)
    ref = CrossReference.objects.filter(source__document=amendment, text="Section 2.2").first()
    assert ref is not None and ref.target is None  # nothing to resolve into yet
    client.force_login(owner)
    form = text_of(client.get(reverse("document-edit", args=[amendment.pk])))
    assert f"{base.key} · {base.title}" in form
    assert f'<option value="{amendment.pk}"' not in form  # not itself
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("document-edit", args=[amendment.pk]),
            {
                "title": "First Amendment",
                "kind": "amendment",
                "effective_date": "2011-07-05",
                "amends": base.pk,
            },
            follow=True,
        )
    assert "It is being re-indexed so its references follow." in text_of(response)
    amendment.refresh_from_db()
    assert (amendment.title, amendment.kind, amendment.amends_id) == (
        "First Amendment",
        "amendment",
        base.pk,
    )
    assert amendment.effective_date == date(2011, 7, 5) and amendment.status == "indexed"
    ref = CrossReference.objects.filter(source__document=amendment, text="Section 2.2").first()
    assert ref.target.document_id == base.pk and ref.target.node_id == "s2.2"
    assert AuditEvent.objects.get().detail["reason"] == "amends changed"
    # A document of another matter cannot be chosen.
    foreign = indexed(MatterFactory(), "z.txt", b"1. Term.\n")
    refused = client.post(
        reverse("document-edit", args=[amendment.pk]),
        {"title": "X", "kind": "amendment", "amends": foreign.pk},
    )
    assert refused.status_code == 400 and "Select a valid choice" in text_of(refused)


# --- the reader ----------------------------------------------------------------------------------


def test_reader_links_cross_references_and_shows_the_outline(client, matter, owner, pair) -> None:
    base, amendment = pair
    client.force_login(owner)
    page = text_of(client.get(reverse("document-detail", args=[base.pk])))
    # Every node is an anchor, and the outline links to them.
    assert 'id="s2.2"' in page and '<a href="#s2.2">' in page
    # A resolved reference inside the document is a link to its target.
    internal = (
        CrossReference.objects.filter(source__document=base, target__document=base)
        .select_related("target")
        .first()
    )
    assert internal is not None
    assert re.search(
        rf'<a class="xref" href="#{re.escape(internal.target.node_id)}"[^>]*>{re.escape(internal.text)}</a>',
        page,
    )
    # The amendment's references into the agreement link across documents.
    other = text_of(client.get(reverse("document-detail", args=[amendment.pk])))
    assert f'<a class="xref-doc" href="/documents/{base.pk}/#s2.2"' in other
    assert f'amends <a href="/documents/{base.pk}/">' in other


def test_reader_shows_the_as_amended_view_beside_the_changed_clause(
    client, matter, owner, pair
) -> None:
    base, amendment = pair
    client.force_login(owner)
    page = text_of(client.get(reverse("document-detail", args=[base.pk])))
    assert "As amended." in page
    section = page[page.index('id="s2.2"') :].split("</section>")[0]
    assert "Amended by" in section and amendment.title in section
    assert '<time datetime="2011-07-05">5 Jul 2011</time>' in section
    assert f'href="/documents/{amendment.pk}/#' in section
    assert "Section 2.2 of the Development Agreement is hereby amended" in section
    # The outline marks the amended clause; an untouched clause has no note.
    outline_item = page[page.index('<a href="#s2.2">') :].split("</li>")[0]
    assert "amended" in outline_item
    untouched = page[page.index('id="s2.3"') :].split("</section>")[0]
    assert "Amended by" not in untouched
    assert f'amended by <a href="/documents/{amendment.pk}/">' in page


def test_reader_marks_defined_terms_with_their_definitions_and_flags(
    client, matter, owner, pair
) -> None:
    base, _ = pair
    client.force_login(owner)
    page = text_of(client.get(reverse("document-detail", args=[base.pk])))
    term = re.search(
        r'<a class="term" href="#([^"]+)" aria-describedby="def-(\d+)"[^>]*>([^<]+)</a>', page
    )
    assert term is not None
    defining, term_id, word = term.groups()
    definition = re.search(rf'<span id="def-{term_id}">(.*?)</span>', page)
    assert definition is not None and definition.group(1).startswith(f"“{word}”: ")
    assert f'id="{defining}"' in page  # the link goes to the defining clause
    assert '<dfn class="term-def">' in page
    assert 'role="tooltip"' in page
    assert '<span class="badge" title="Mentions an amount of money">money</span>' in page


def test_reader_query_count_is_fixed(
    client, matter, owner, pair, django_assert_num_queries
) -> None:
    base, _ = pair
    client.force_login(owner)
    url = reverse("document-detail", args=[base.pk])
    client.get(url)
    # session, user, document, matter, role, nodes, references out, terms, term uses,
    # references in, amending documents, copies of the file
    with django_assert_num_queries(12):
        client.get(url)


def test_document_text_with_script_and_html_renders_as_text(client, matter, owner) -> None:
    doc = indexed(matter, "hostile.txt", HOSTILE, title='<i>T</i><script>alert("t")</script>')
    client.force_login(owner)
    for url in (
        reverse("document-detail", args=[doc.pk]),
        reverse("matter-detail", args=[matter.pk]),
        reverse("node-fragment", args=[doc.pk, "s1"]) + "?q=script",
    ):
        page = text_of(client.get(url))
        assert "<script>alert" not in page and "<img src=x" not in page and "<b>bold" not in page, (
            url
        )
        assert "<i>T</i>" not in page, url
    page = text_of(client.get(reverse("document-detail", args=[doc.pk])))
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in page
    # The definition tooltip text is escaped too.
    assert re.search(r'<span id="def-\d+">“Services”: [^<]*&lt;script&gt;', page)


# --- one provision, for the citation panel ----------------------------------------------------------


def test_node_fragment_returns_the_verbatim_provision_with_the_quote_highlighted(
    client, matter, owner, pair
) -> None:
    base, _ = pair
    client.force_login(owner)
    url = reverse("node-fragment", args=[base.pk, "s2.2"])
    node = Node.objects.get(document=base, node_id="s2.2")
    # Across a line break and in another case, curly or straight quotes alike.
    response = client.get(url, {"q": "BIOAMBER shall   pay Cargill"}, HTTP_HX_REQUEST="true")
    fragment = text_of(response)
    assert response.status_code == 200 and "<html" not in fragment
    assert "<mark>Bioamber shall pay Cargill</mark>" in fragment
    assert f'href="/documents/{base.pk}/#s2.2"' in fragment
    assert "not all found verbatim" not in fragment
    # Parts of a quotation split by an ellipsis are each marked.
    both = text_of(
        client.get(url, {"q": "In addition to the payment … including travel", "fragment": 1})
    )
    assert (
        "<mark>In addition to the payment</mark>" in both
        and "<mark>including travel</mark>" in both
    )
    # A quotation that is not in the provision is said to be missing.
    missing = text_of(client.get(url, {"q": "Cargill shall pay a billion dollars", "fragment": 1}))
    assert "<mark>" not in missing and "not all found verbatim" in missing
    # Without htmx it is a page of its own, with the provision's text in full.
    page = text_of(client.get(url))
    assert "<html" in page and node.text[:60].replace("'", "&#x27;") in page


def test_reader_escapes_attribute_values_taken_from_documents() -> None:
    # Titles and node ids come from documents too: a quote must not end the attribute.
    hostile = '"><script>alert(1)</script><a x="'
    html = _render(
        "See Section 9 and Term.",
        [
            Span(4, 13, "xref-doc", href=f"/documents/1/#{hostile}", title=hostile),
            Span(18, 22, "term", href=f"#{hostile}", term_id=7),
        ],
    )
    assert "<script>" not in html and '"><' not in html
    assert "&quot;&gt;&lt;script&gt;" in html
    assert html.count("<a ") == 2 and html.count("</a>") == 2
    # The quotation marks around a quotation are not part of it.
    assert highlight('<b>"Net" & co</b>', '"Net" & co')[0] == (
        "&lt;b&gt;&quot;<mark>Net&quot; &amp; co</mark>&lt;/b&gt;"
    )
