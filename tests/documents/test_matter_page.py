"""The matter page of a data room, worked out by the database: counts, folders, the filters and
the page come from queries, only the page's rows are loaded, what amends or is proposed for the
shown rows comes in a query or two, the likely copies are found once per state of the indexed
documents (then kept in the cache), and the number of queries does not grow with the documents.

Rows are made with ``bulk_create``: indexing is tested elsewhere, and a data room of hundreds of
real files would make these tests slow."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.models.signals import post_init
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from legalnav.core import jobs
from legalnav.documents import selectors
from legalnav.documents.models import Document, DocumentCopy
from legalnav.documents.selectors import PAGE_SIZE, matter_overview
from legalnav.matters.models import Matter
from tests.conftest import MatterFactory, MembershipFactory

pytestmark = pytest.mark.django_db

_serial = itertools.count(1)
# A sketch two documents share (the same text in two files) and ones nothing else has.
SHARED = list(range(1000, 1128))


def unique_sketch() -> list[int]:
    start = 10_000 * next(_serial)
    return list(range(start, start + 128))


def doc(matter: Matter, **fields: Any) -> Document:
    """A document row as indexing leaves it (indexed, with a sketch of its own), unsaved."""
    n = next(_serial)
    values: dict[str, Any] = {
        "title": f"Document {n}",
        "original_filename": f"file-{n}.txt",
        "source_file": f"documents/{matter.pk}/file-{n}.txt",
        "sha256": f"{n:064x}",
        "status": Document.Status.INDEXED,
        "kind": Document.Kind.AGREEMENT,
        "extraction": {"sketch": unique_sketch()},
    }
    values.update(fields)
    return Document(matter=matter, **values)


def make(matter: Matter, *docs: Document) -> list[Document]:
    return Document.objects.bulk_create(list(docs))


def overview(matter: Matter, **params: str) -> selectors.MatterOverview:
    return matter_overview(matter=matter, params=params)


def shown_titles(matter: Matter, **params: str) -> list[str]:
    return [d.title for d in overview(matter, **params).shown]


def page_order(docs: list[Document]) -> list[Document]:
    """The page's order, worked out in Python: folder, date (undated last), id."""
    return sorted(
        docs, key=lambda d: (d.folder, d.effective_date is None, d.effective_date or date.min, d.pk)
    )


@contextmanager
def documents_loaded() -> Iterator[list[int]]:
    """The ids of the Document rows built from the database while inside."""
    seen: list[int] = []

    def count(sender: type, instance: Document, **kwargs: Any) -> None:
        seen.append(instance.pk)

    post_init.connect(count, sender=Document)
    try:
        yield seen
    finally:
        post_init.disconnect(count, sender=Document)


# --- filters, counts and the page --------------------------------------------------------------


def test_a_folder_takes_itself_and_the_folders_below_it_only(matter) -> None:
    make(
        matter,
        doc(matter, title="in A / B", folder="A / B"),
        doc(matter, title="in A / B / C", folder="A / B / C"),
        doc(matter, title="in A / B2", folder="A / B2"),  # a prefix, not a folder below
        doc(matter, title="in A / Bx / C", folder="A / Bx / C"),
        doc(matter, title="in a / b / c", folder="a / b / c"),  # another folder: case counts
        doc(matter, title="in A", folder="A"),
        doc(matter, title="at the top", folder=""),
    )
    assert sorted(shown_titles(matter, folder="A / B")) == ["in A / B", "in A / B / C"]
    assert sorted(shown_titles(matter, folder="A / B / C")) == ["in A / B / C"]
    assert len(shown_titles(matter, folder="A")) == 5
    assert shown_titles(matter, folder="A / B / C / D") == []
    folders = {f: (name, depth, n) for f, name, depth, n in overview(matter).folders}
    assert folders["A"] == ("A", 0, 5)
    assert folders["A / B"] == ("B", 1, 2)
    assert folders["A / B2"] == ("B2", 1, 1)
    assert folders["a / b / c"] == ("c", 2, 1)
    assert "" not in folders


def test_status_kind_and_words_filter_in_the_database(matter) -> None:
    make(
        matter,
        doc(matter, title="Queued one", status="queued"),
        doc(matter, title="Indexing one", status="indexing"),
        doc(matter, title="Failed one", status="failed"),
        doc(matter, title="Supply terms", original_filename="x.pdf", kind="amendment"),
        doc(matter, title="Untitled", original_filename="MASTER-SUPPLY-agreement.PDF"),
        doc(matter, title="Lease", original_filename="lease.pdf"),
    )
    assert sorted(shown_titles(matter, status="busy")) == ["Indexing one", "Queued one"]
    assert shown_titles(matter, status="failed") == ["Failed one"]
    assert shown_titles(matter, kind="amendment") == ["Supply terms"]
    # Words of the title or the file name, whatever their case.
    found = overview(matter, q="  Supply ")
    assert sorted(d.title for d in found.shown) == ["Supply terms", "Untitled"]
    assert found.matching == 2 and found.filters == {"q": "supply"}
    assert shown_titles(matter, q="supply", kind="amendment") == ["Supply terms"]
    assert shown_titles(matter, q="100%") == []  # a LIKE wildcard is only a character
    assert overview(matter, status="indexed", q="nothing like it").shown == []


def test_words_match_whatever_their_case_in_any_script(matter) -> None:
    # SQLite's own LIKE folds ASCII letters only; PostgreSQL's ILIKE folds by its locale
    make(
        matter,
        doc(matter, title="SOCIÉTÉ GÉNÉRALE facility letter"),
        doc(matter, title="Lease", original_filename="straße-mietvertrag.pdf"),
        doc(matter, title="Société anonyme side letter"),
        doc(matter, title="Societe without accents"),
    )
    assert sorted(shown_titles(matter, q="société")) == [
        "SOCIÉTÉ GÉNÉRALE facility letter",
        "Société anonyme side letter",
    ]
    assert shown_titles(matter, q="MIETVERTRÄG") == []
    assert shown_titles(matter, q="STRAßE-MIETVERTRAG") == ["Lease"]
    assert shown_titles(matter, q="É_É") == []  # a LIKE wildcard is only a character


def test_counts_by_status_kind_and_folder(matter) -> None:
    make(
        matter,
        *(doc(matter, status="indexed", kind="agreement", folder="Room / 1") for _ in range(4)),
        *(doc(matter, status="queued", kind="amendment", folder="Room / 2") for _ in range(3)),
        doc(matter, status="indexing", kind="amendment", folder="Room"),
        doc(matter, status="failed", kind="schedule"),
        doc(matter, status="cancelled", kind="schedule"),
    )
    o = overview(matter, status="failed")  # the counts are the matter's, not the filter's
    assert o.total == 10 and o.matching == 1
    assert (o.indexed, o.waiting, o.failed, o.cancelled, o.done) == (4, 4, 1, 1, 6)
    assert o.percent == 60
    assert o.by_kind == [("agreement", "Agreement", 4), ("amendment", "Amendment", 4)] + [
        ("schedule", "Schedule", 2)
    ]
    assert [(f, n) for f, _, _, n in o.folders] == [("Room", 8), ("Room / 1", 4), ("Room / 2", 3)]


def test_the_page_is_cut_by_the_database_in_the_pages_order(matter) -> None:
    start = date(2020, 1, 1)
    docs = make(
        matter,
        *(
            doc(
                matter,
                folder=f"Room / {n % 3}",
                effective_date=None if n % 4 == 0 else start + timedelta(days=(n * 37) % 200),
            )
            for n in range(2 * PAGE_SIZE + 7)
        ),
    )
    expected = [d.title for d in page_order(docs)]
    first, second, last = (overview(matter, page=p) for p in ("1", "2", "3"))
    assert [d.title for d in first.shown] == expected[:PAGE_SIZE]
    assert [d.title for d in second.shown] == expected[PAGE_SIZE : 2 * PAGE_SIZE]
    assert [d.title for d in last.shown] == expected[2 * PAGE_SIZE :]
    assert (second.page, second.pages, second.matching) == (2, 3, 2 * PAGE_SIZE + 7)
    assert overview(matter, page="99").page == 3  # past the end: the last page
    assert overview(matter, page="nine").page == 1
    assert overview(matter, page="-4").page == 1
    # Filtered, then paged.
    in_one = [d.title for d in page_order([d for d in docs if d.folder == "Room / 1"])]
    assert shown_titles(matter, folder="Room / 1") == in_one[:PAGE_SIZE]


def test_only_the_pages_rows_are_loaded_with_what_they_amend_and_their_copies(matter) -> None:
    other = MatterFactory()
    [base] = make(matter, doc(matter, title="Base", folder="B", effective_date=date(2010, 1, 1)))
    make(
        matter,
        # In folder "A": on the first page, before the base.
        doc(matter, title="First amendment", folder="A", amends=base),
        doc(matter, title="Second amendment", folder="A", amends=base),
        doc(
            matter,
            title="Proposed",
            folder="A",
            link_proposal={"target": base.pk, "state": "proposed", "words": "amends the Base"},
        ),
        doc(
            matter,
            title="Rejected",
            folder="A",
            link_proposal={"target": base.pk, "state": "rejected"},
        ),
        doc(
            matter,
            title="Linked already",
            folder="A",
            amends=base,
            link_proposal={"target": base.pk, "state": "proposed"},
        ),
        *(doc(matter, folder="C") for _ in range(PAGE_SIZE * 2)),
    )
    [elsewhere] = make(other, doc(other, title="Another matter's"))
    [stray] = make(
        matter,
        doc(
            matter,
            title="Stray",
            folder="A",
            link_proposal={"target": elsewhere.pk, "state": "proposed"},
        ),
    )
    DocumentCopy.objects.create(document=base, folder="Old", filename="base copy.txt")
    DocumentCopy.objects.create(document=base, folder="Older", filename="base copy.txt")

    with documents_loaded() as loaded:
        o = overview(matter)
    rows = {d.title: d for d in o.shown}
    assert len(o.shown) == PAGE_SIZE and o.total == 6 + 2 * PAGE_SIZE + 1
    # The page's rows (three of them with the base, which they amend), the three that amend
    # the base and the proposed target: not the other 57 documents.
    assert len(loaded) == PAGE_SIZE + 3 + 3 + 1, len(loaded)
    assert sorted(a.key for a in rows["Base"].amended_by) == sorted(
        d.key for d in Document.objects.filter(amends=base)
    )
    assert rows["Base"].copy_count == 2 and rows["First amendment"].copy_count == 0
    assert rows["First amendment"].amends.title == "Base"
    assert rows["Proposed"].proposed_target.title == "Base"
    assert rows["Rejected"].proposed_target is None
    assert rows["Linked already"].proposed_target is None  # it amends one already
    assert rows["Stray"].proposed_target is None  # the target is in another matter
    assert stray.pk in {d.pk for d in o.shown}
    # A shown document amended by ones on another page still lists them.
    [late] = make(matter, doc(matter, title="Late amendment", folder="Z", amends=base))
    o = overview(matter)
    assert late.key in [a.key for a in {d.title: d for d in o.shown}["Base"].amended_by]


def test_likely_copies_are_found_then_kept_until_the_indexed_documents_change(matter) -> None:
    a, b, _ = make(
        matter,
        doc(matter, title="Agreement.pdf", extraction={"sketch": SHARED}),
        doc(matter, title="Agreement.docx", extraction={"sketch": SHARED}),
        doc(matter, title="Something else"),
    )
    # Queued and failed documents' sketches are not compared.
    make(
        matter,
        doc(matter, status="queued", extraction={"sketch": SHARED}),
        doc(matter, status="failed", extraction={"sketch": SHARED}),
        doc(matter, extraction={}),
    )
    copies = overview(matter).copies
    assert [(x.pk, y.pk, sim) for x, y, sim in copies] == [(a.pk, b.pk, 1.0)]
    assert copies[0][0].title == "Agreement.pdf"

    # A poll of the same data room reads no sketch: the pairs come from the cache.
    with CaptureQueriesContext(connection) as queries:
        assert [(x.pk, y.pk) for x, y, _ in overview(matter).copies] == [(a.pk, b.pk)]
    assert not [q for q in queries.captured_queries if "sketch" in q["sql"]]

    # A document indexed since: found again, with it.
    Document.objects.filter(status="queued").update(status="indexed", updated_at=timezone.now())
    pairs = overview(matter).copies
    assert len(pairs) == 3 and all(sim == 1.0 for _, _, sim in pairs)
    # One removed: its pairs go with it.
    Document.objects.filter(pk=b.pk).delete()
    assert len(overview(matter).copies) == 1


# --- the page through the client -----------------------------------------------------------------


def _page_queries(client, url: str) -> tuple[int, str]:
    client.get(url)  # finds the likely copies for this state of the data room, for the cache
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries.captured_queries), response.content.decode()


def _data_room(matter: Matter, n: int) -> None:
    """n documents with some of everything the page shows, in a folder that comes first (so on
    the first page): an amendment, a proposed link, a copy, a likely copy, one waiting and one
    being indexed; the rest in folders after it."""
    [base] = make(matter, doc(matter, title="Base", folder="Alpha", extraction={"sketch": SHARED}))
    make(
        matter,
        doc(matter, title="Amendment", folder="Alpha", amends=base),
        doc(
            matter,
            title="Proposed",
            folder="Alpha",
            link_proposal={"target": base.pk, "state": "proposed"},
        ),
        doc(matter, title="Its twin", folder="Alpha", extraction={"sketch": SHARED}),
        doc(matter, title="Waiting", folder="Alpha", status="queued"),
        doc(
            matter,
            title="Being indexed",
            folder="Alpha",
            status="indexing",
            lease_owner="celery:alive",
            lease_expires_at=timezone.now() + timedelta(minutes=5),
        ),
        *(doc(matter, folder=f"Room / {i % 4}") for i in range(n - 6)),
    )
    DocumentCopy.objects.create(document=base, filename="base again.txt")


@pytest.mark.parametrize("params", ["", "?folder=Alpha&q=a", "?status=busy", "?page=2"])
def test_the_pages_queries_do_not_grow_with_the_documents(client, owner, params) -> None:
    small, large = MatterFactory(), MatterFactory()
    # 60 documents and 240: both have a second page.
    for m, n in ((small, PAGE_SIZE + 10), (large, 4 * PAGE_SIZE + 40)):
        MembershipFactory(matter=m, user=owner)
        _data_room(m, n)
    client.force_login(owner)
    few, page = _page_queries(client, reverse("matter-detail", args=[small.pk]) + params)
    many, big_page = _page_queries(client, reverse("matter-detail", args=[large.pk]) + params)
    assert few == many, (few, many)
    if not params:
        for html in (page, big_page):
            assert 'hx-trigger="every 2s"' in html and "1 likely copy" in html
            assert "Proposed:" in html and "amended by" in html and "1 copy" in html


def test_the_page_loads_only_the_shown_rows(client, matter, owner) -> None:
    _data_room(matter, 3 * PAGE_SIZE)
    client.force_login(owner)
    url = reverse("matter-detail", args=[matter.pk])
    client.get(url)
    with documents_loaded() as loaded:
        page = client.get(url, {"page": "2"}).content.decode()
    assert page.count('<tr id="doc-') == PAGE_SIZE
    # The page's rows and the likely copies' pair (the base's amendment and proposal are on
    # page 1, so nothing else).
    assert len(loaded) <= PAGE_SIZE + 2, len(loaded)


def test_only_jobs_that_may_be_stale_are_checked_and_polling_stops_without_live_ones(
    client, matter, owner, settings, monkeypatch
) -> None:
    settings.JOB_QUEUED_STALE_SECONDS = 60
    make(matter, *(doc(matter, status="queued") for _ in range(30)))
    [stuck] = make(
        matter,
        doc(
            matter,
            title="Stuck",
            status="indexing",
            lease_owner="celery:gone",
            lease_expires_at=timezone.now() - timedelta(minutes=1),
        ),
    )
    assert [d.pk for d in selectors.matter_stale_candidates(matter=matter)] == [stuck.pk]
    checked: list[int] = []

    def nobody_takes_it(kind: str, row: Document) -> Document:
        checked.append(row.pk)  # as if the sweep could not restart it (the queue down)
        return row

    monkeypatch.setattr(jobs, "job_poll_check", nobody_takes_it)
    client.force_login(owner)
    url = reverse("matter-detail", args=[matter.pk])
    poll = client.get(url, {"status": "busy"}, HTTP_HX_REQUEST="true")
    assert checked == [stuck.pk]
    assert poll.status_code == 200  # 30 others are waiting for a worker
    row = poll.content.decode().split(f'id="doc-{stuck.pk}"')[1].split("</tr>")[0]
    assert "Stalled" in row and "stopped responding" in row

    Document.objects.filter(status="queued").update(status="indexed")
    poll = client.get(url, HTTP_HX_REQUEST="true")
    assert poll.status_code == 286  # only the stalled one is open: polling stops
    assert 'data-stale="1"' in poll.content.decode()


def test_while_documents_index_the_last_likely_copies_are_shown_for_a_while(
    matter, monkeypatch
) -> None:
    """Each document indexed changes the key; while others still index, a poll shows the pairs
    found up to COPIES_WHILE_INDEXING_S ago instead of reading every sketch again, and once
    nothing is indexing the pairs are exact."""
    a, b = make(
        matter,
        doc(matter, extraction={"sketch": SHARED}),
        doc(matter, extraction={"sketch": SHARED}),
    )
    [waiting] = make(matter, doc(matter, status="indexing", extraction={"sketch": SHARED}))
    assert len(overview(matter).copies) == 1

    def reads_sketches() -> tuple[bool, int]:
        with CaptureQueriesContext(connection) as queries:
            pairs = overview(matter).copies
        return any("sketch" in q["sql"] for q in queries.captured_queries), len(pairs)

    # one more indexed (a third copy) while another still indexes: the pairs of a moment ago
    make(matter, doc(matter, extraction={"sketch": SHARED}))
    assert reads_sketches() == (False, 1)
    # ... until they are older than the while
    clock = time.time() + selectors.COPIES_WHILE_INDEXING_S + 1
    monkeypatch.setattr(selectors.time, "time", lambda: clock)
    assert reads_sketches() == (True, 3)
    # once nothing is indexing, exact at once
    make(matter, doc(matter, extraction={"sketch": SHARED}))
    Document.objects.filter(pk=waiting.pk).update(status="failed")
    assert reads_sketches() == (True, 6)
