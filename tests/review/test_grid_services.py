"""The review grid's job and actions against the real database: a small grid filled inline over
the demo development agreement and its amendment (real documents, really indexed), its cells'
quotations checked verbatim against their provisions, a reviewed cell kept through a refill,
cancel and resume, the estimate, limits and the audit trail."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404

from legalnav.answers.citations import quote_in
from legalnav.answers.snapshots import provision_text
from legalnav.core import jobs
from legalnav.llm.prices import PriceCard, Usage, cost
from legalnav.llm.tokens import count_tokens
from legalnav.matters.models import AuditEvent, Membership
from legalnav.review import actions, services
from legalnav.review.models import Cell, Grid, SavedColumn
from legalnav.review.services import ColumnSpec, GridRejected
from legalnav.review.verbs import Verb as ReviewVerb
from tests.conftest import MembershipFactory, UserFactory, index_bioamber_pair

COLUMNS = [
    ColumnSpec("Governing Law", "Which law governs this agreement?", "text"),
    ColumnSpec("Parties", "Who are the parties?", "party"),
    ColumnSpec("Agreement Date", "When was it made?", "date"),
    ColumnSpec("Source Code Escrow", "Is source code put in escrow?", "yes_no"),
]


@pytest.fixture
def pair(matter):
    return index_bioamber_pair(matter)


def _create(matter, user, *, columns=COLUMNS, ids=None, capture=None, **kw):
    def make():
        return actions.grid_create(
            matter=matter,
            user=user,
            title=kw.get("title", "Diligence"),
            columns=columns,
            document_ids=ids,
            mode=kw.get("mode", "offline"),
            via=kw.get("via", "page"),
        )

    if capture is None:
        return make()
    with capture(execute=True):
        grid = make()
    grid.refresh_from_db()
    return grid


@pytest.mark.django_db
def test_grid_fills_every_cell_with_verified_quotations(
    matter, owner, pair, django_capture_on_commit_callbacks
):
    base, amendment = pair
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks)
    assert grid.status == Grid.Status.DONE, grid.error_message
    assert grid.cells_total == grid.cells_done == 8
    assert grid.percent == 100
    cells = list(Cell.objects.filter(grid=grid).select_related("column", "document", "node"))
    assert len(cells) == 8
    law = next(c for c in cells if c.document == base and c.column.key == "Governing Law")
    assert law.found and law.status == Cell.Status.FOUND
    assert law.value and law.quotation and law.citation.startswith(f"[{base.key}:")
    found = [c for c in cells if c.found]
    assert found, "the filler found nothing in a real agreement"
    for cell in found:
        # Each quotation names its provision as answers do and is verbatim in it.
        assert cell.citation == f"[{cell.document.key}:{cell.node_ref}]"
        assert cell.node is not None and cell.node.node_id == cell.node_ref
        assert cell.verdict == "verified", (cell.column.key, cell.quotation)
        assert quote_in(cell.quotation, provision_text(cell.document, cell.node))
        start, end = cell.spans[0]
        assert " ".join(cell.document.text[start:end].split())[:40] == cell.quotation[:40]
        assert 0 <= cell.confidence <= 1
    for cell in cells:
        if cell.found:
            continue
        assert cell.searched and not cell.quotation and not cell.citation
        if cell.column.key == "Source Code Escrow":
            # A yes/no column its document model decides says No with nothing near enough to
            # quote, and how sure that No is (P(No), not the quotation's confidence).
            assert cell.value == cell.shown_value == "No", cell.reason
            assert cell.reason.startswith("No: no provision reads as Source Code Escrow")
            assert cell.value_confidence is not None and cell.value_confidence > 0.5
            assert cell.value_confidence != cell.confidence
        else:
            assert cell.value == "" and cell.shown_value == "not found"
    assert any(c.column.key == "Source Code Escrow" and not c.found for c in cells)
    event = AuditEvent.objects.get(action=ReviewVerb.GRID_CREATED)
    assert event.detail["via"] == "page" and event.detail["grid_id"] == grid.pk
    assert event.user == owner and event.matter == matter


@pytest.mark.django_db
def test_a_reviewed_cell_survives_a_refill(matter, owner, pair, django_capture_on_commit_callbacks):
    base, _ = pair
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks, ids=[base.pk])
    assert grid.status == Grid.Status.DONE
    cell = Cell.objects.filter(grid=grid, column__key="Governing Law").get()
    other = Cell.objects.filter(grid=grid, column__key="Parties").get()
    actions.cell_review(
        matter=matter, user=owner, cell=cell, status="corrected", value="Delaware", via="page"
    )
    # The unreviewed cell is tampered with, so that a refill visibly replaces it.
    Cell.objects.filter(pk=other.pk).update(value="tampered")
    with django_capture_on_commit_callbacks(execute=True):
        assert actions.grid_retry(matter=matter, user=owner, grid=grid, via="api", refill=True)
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE and grid.cells_done == 4
    kept = Cell.objects.get(pk=cell.pk)
    assert kept.reviewed_status == "corrected" and kept.corrected_value == "Delaware"
    assert kept.shown_value == "Delaware" and kept.reviewed_by == owner
    refilled = Cell.objects.get(grid=grid, column__key="Parties")
    assert refilled.pk != other.pk and refilled.value != "tampered"
    assert AuditEvent.objects.filter(action=ReviewVerb.CELL_REVIEWED).count() == 1
    assert AuditEvent.objects.filter(action=AuditEvent.Action.RETRIED).get().detail["refill"]
    # A done grid is not resumed (nothing missing) without a refill.
    assert not actions.grid_retry(matter=matter, user=owner, grid=grid, via="page")


@pytest.mark.django_db
def test_cancel_then_resume_fills_only_the_missing_cells(matter, owner, pair):
    base, amendment = pair
    grid = _create(matter, owner)  # queued: on_commit never runs inside the test transaction
    assert grid.status == Grid.Status.QUEUED
    # A first run that fills the base agreement only, then stops (cancelled by the user).
    spec = jobs.spec_for("grid")
    lease = jobs.job_claim(spec, grid.pk, owner="test-worker")
    assert isinstance(lease, jobs.Lease)
    cols = list(grid.columns.order_by("position"))
    from legalnav.review.columns import column_from_request
    from legalnav.review.fill import fill_document

    filled = fill_document(
        text=base.text,
        retriever=services.document_retriever(base),
        columns=[column_from_request(c.key, c.question, c.type) for c in cols],
    )
    provisions = services._Provisions(base)
    rows = [
        services.cell_row(grid=grid, column=c, document=base, filled=f, provisions=provisions)
        for c, f in zip(cols, filled, strict=True)
    ]
    services._write_cells(grid, lease, base.pk, rows)
    grid.refresh_from_db()
    assert grid.cells_done == 4 and grid.percent == 50
    assert actions.grid_cancel(matter=matter, user=owner, grid=grid, via="page")
    grid.refresh_from_db()
    assert grid.status == Grid.Status.CANCELLED
    # The cancelled worker can no longer write.
    with pytest.raises(jobs.JobLost):
        services._write_cells(grid, lease, amendment.pk, [])
    first_ids = set(Cell.objects.filter(grid=grid).values_list("pk", flat=True))
    assert not actions.grid_cancel(matter=matter, user=owner, grid=grid, via="page")

    assert actions.grid_retry(matter=matter, user=owner, grid=grid, via="page")
    grid.refresh_from_db()
    assert grid.status == Grid.Status.QUEUED
    services.grid_fill_job(grid.pk, "another-worker")
    grid.refresh_from_db()
    assert grid.status == Grid.Status.DONE and grid.cells_done == 8
    # The base's cells are the ones written before the cancel; the amendment's are new.
    assert first_ids <= set(Cell.objects.filter(grid=grid).values_list("pk", flat=True))
    assert Cell.objects.filter(grid=grid, document=amendment).count() == 4
    actions_seen = set(AuditEvent.objects.filter(matter=matter).values_list("action", flat=True))
    assert {"grid_created", "cancelled", "retried"} <= actions_seen


@pytest.mark.django_db
def test_non_members_and_weak_roles_are_refused(matter, owner, pair):
    stranger = UserFactory()
    with pytest.raises(Http404):
        _create(matter, stranger)
    assert not Grid.objects.exists()
    grid = _create(matter, owner)
    viewer = MembershipFactory(matter=matter, role=Membership.Role.VIEWER).user
    with pytest.raises(PermissionDenied):  # not the creator, not an editor
        actions.grid_cancel(matter=matter, user=viewer, grid=grid, via="page")
    with pytest.raises(Http404):
        actions.grid_retry(matter=matter, user=stranger, grid=grid, via="page")
    # A grid of another matter does not exist in this one.
    other = MembershipFactory(user=owner).matter
    with pytest.raises(Http404):
        actions.grid_cancel(matter=other, user=owner, grid=grid, via="page")


@pytest.mark.django_db
def test_what_a_grid_may_hold(matter, owner, pair, settings):
    base, _ = pair
    foreign = MembershipFactory(user=owner).matter
    with pytest.raises(GridRejected, match="at least one column"):
        _create(matter, owner, columns=[])
    with pytest.raises(GridRejected, match="appears twice"):
        _create(matter, owner, columns=[COLUMNS[0], COLUMNS[0]])
    with pytest.raises(GridRejected, match="type must be"):
        _create(matter, owner, columns=[ColumnSpec("X", "x?", "colour")])
    with pytest.raises(GridRejected, match="Not an indexed document"):
        _create(matter, owner, ids=[base.pk + 1000])
    with pytest.raises(GridRejected, match="at least one indexed document"):
        _create(foreign, owner)
    settings.ANTHROPIC_API_KEY = ""
    with pytest.raises(GridRejected, match="ANTHROPIC_API_KEY"):
        _create(matter, owner, mode="claude")
    assert not Grid.objects.exists()


@pytest.mark.django_db
def test_estimate_offline_is_free_and_claude_is_priced(matter, owner, pair, settings):
    base, amendment = pair
    settings.LLM_PRICE_INPUT = "3"
    settings.LLM_PRICE_CACHE_WRITE = "3.75"
    settings.LLM_PRICE_CACHE_READ = "0.3"
    settings.LLM_PRICE_OUTPUT = "15"
    columns = [ColumnSpec(f"C{i}", f"Question {i}?", "clause") for i in range(20)]
    est = services.grid_estimate(documents=[base, amendment], columns=columns)
    assert est["cells"] == 40 and est["calls"] == 2 * 3  # 20 columns in batches of 8
    assert est["offline"]["dollars"] == "0"
    for mode in ("navigated", "inject"):
        assert float(est["claude"][mode]["dollars"]) > 0
        assert est["claude"][mode]["tokens"]["output"] == 40 * services.OUTPUT_TOKENS_PER_COLUMN
        t = est["claude"][mode]["tokens"]
        usage = Usage(
            input_tokens=t["input"],
            cache_write_tokens=t["cache_write"],
            cache_read_tokens=t["cache_read"],
            output_tokens=t["output"],
        )
        assert Decimal(est["claude"][mode]["dollars"]) == cost(usage, PriceCard.from_settings())
    # Injecting puts every token of both documents before the model, once written to the cache.
    doc_tokens = count_tokens(base.text) + count_tokens(amendment.text)
    assert est["claude"]["inject"]["tokens"]["cache_write"] >= doc_tokens
    assert (
        est["claude"]["inject"]["tokens"]["total"] > est["claude"]["navigated"]["tokens"]["total"]
    )
    grid = _create(matter, owner)
    assert grid.estimate["cells"] == 8 and grid.estimate["offline"]["dollars"] == "0"


@pytest.mark.django_db
def test_saved_columns_are_per_user_and_audited(matter, owner):
    col = actions.saved_column_add(
        matter=matter, user=owner, key="Notice address", question="Where do notices go?",
        type_="text", via="page",
    )  # fmt: skip
    again = actions.saved_column_add(
        matter=matter, user=owner, key="Notice address", question="Notices to?", type_="text",
        via="api",
    )  # fmt: skip
    assert again.pk == col.pk and SavedColumn.objects.get().question == "Notices to?"
    with pytest.raises(GridRejected):
        actions.saved_column_add(
            matter=matter, user=owner, key="Bad", question="?", type_="nope", via="page"
        )
    with pytest.raises(Http404):
        actions.saved_column_add(
            matter=matter, user=UserFactory(), key="K", question="Q", type_="text", via="page"
        )
    assert AuditEvent.objects.filter(action=ReviewVerb.COLUMN_SAVED).count() == 2


@pytest.mark.django_db(transaction=True)  # autocommit, as in production: sent at once
def test_a_grid_refused_by_a_down_queue_is_kept_failed_and_audited(
    matter, owner, pair, monkeypatch
):
    def down(spec, pk):
        raise jobs.QueueUnavailable("connection refused")

    monkeypatch.setattr("legalnav.core.jobs.dispatch._send", down)
    with pytest.raises(actions.JobQueueDown) as refused:
        _create(matter, owner, title="Outage")
    grid = refused.value.item
    assert refused.value.retry_after == 30 and "task queue is unavailable" in str(refused.value)
    grid.refresh_from_db()
    assert grid.status == "failed" and grid.error_code == "queue_unavailable"
    event = AuditEvent.objects.filter(matter=matter).order_by("-id").first()
    assert event.action == "queue_down" and event.target == f"review grid G{grid.pk} Outage"
    assert event.detail["grid_id"] == grid.pk and event.detail["via"] == "page"
    assert "queue" in event.detail["error"]


@pytest.mark.django_db
def test_a_grid_embeds_each_column_question_once_not_once_per_document(pair):
    from legalnav.retrieval.embeddings import get_embedder
    from legalnav.review import fill

    embedder = get_embedder()
    encoded: list[str] = []
    real = embedder.encode

    def counting(texts, *args, **kw):
        encoded.extend(texts)
        return real(texts, *args, **kw)

    fill._QUESTION_VECTORS.clear()
    questions = [c.question for c in COLUMNS]
    views = [fill.DocumentView(d.text, services.document_retriever(d)) for d in pair]
    for view in views:
        view.embed_units(range(len(view.units)))  # their own vectors, before counting starts
    embedder.encode = counting  # type: ignore[method-assign]
    try:
        first = views[0].question_vectors(questions)
        second = views[1].question_vectors(questions)
    finally:
        embedder.encode = real  # type: ignore[method-assign]
    assert encoded == questions  # one batch, each question once
    assert first.shape == (len(questions), first.shape[1]) and (first == second).all()


@pytest.mark.django_db
def test_a_cell_an_amendment_changes_shows_the_amending_provision(
    matter, owner, pair, client, django_capture_on_commit_callbacks
):
    from legalnav.review import selectors

    base, amendment = pair
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks)
    cells = {
        (c.document_id, c.column.key): c
        for c in Cell.objects.filter(grid=grid).select_related("column")
    }
    law_base = cells[(base.pk, "Governing Law")]
    law_amend = cells[(amendment.pk, "Governing Law")]
    parties_base = cells[(base.pk, "Parties")]
    parties_amend = cells[(amendment.pk, "Parties")]
    assert law_base.found and parties_base.found
    # The amendment answers two columns: one with another value, one with the same.
    Cell.objects.filter(pk=law_amend.pk).update(
        found=True,
        status="found",
        value="Delaware",
        quotation="the laws of the State of Delaware",
        confidence=0.2,
    )
    Cell.objects.filter(pk=parties_amend.pk).update(
        found=True, status="found", value=parties_base.value + ".", confidence=0.9
    )
    # A weak guess in the amendment flags nothing.
    assert selectors.grid_table(grid=grid).counts["amended"] == 0
    Cell.objects.filter(pk=law_amend.pk).update(confidence=0.9)
    table = selectors.grid_table(grid=grid)
    by_doc = {row.document.pk: row for row in table.rows}
    changed = [c for c in by_doc[base.pk].cells if getattr(c, "amended_by", None)]
    assert [c.pk for c in changed] == [law_base.pk]
    assert changed[0].amended_by.pk == law_amend.pk and table.counts["amended"] == 1
    only = selectors.grid_table(grid=grid, which="amended")
    shown = [c for row in only.rows for c in row.cells if c is not None]
    assert [c.pk for c in shown] == [law_base.pk]
    # The page and the side panel say what changed it, and where.
    client.force_login(owner)
    page = client.get(f"/matters/{matter.pk}/grids/{grid.pk}/").content.decode()
    assert f"changed by {amendment.key}: Delaware" in page
    panel = client.get(
        f"/matters/{matter.pk}/grids/{grid.pk}/cells/{law_base.pk}/"
    ).content.decode()
    assert f"Changed by {amendment.key} {amendment.title}:</strong> Delaware" in panel
    assert "the laws of the State of Delaware" in panel
    # The API says the same, and filters by it.
    from legalnav.api.grids import CellListParams, cell_page

    page = cell_page(
        user=owner, matter_id=matter.pk, grid_id=grid.pk, params=CellListParams(show="amended")
    )
    assert [c.id for c in page.items] == [law_base.pk] and page.count == 1
    assert page.items[0].amended_by.value == "Delaware"
    assert page.items[0].amended_by.document.key == amendment.key


@pytest.mark.django_db
def test_a_cells_panel_shows_its_provision_as_it_was_when_filled(
    matter, owner, pair, client, django_capture_on_commit_callbacks
):
    from legalnav.documents.models import Document, Node

    base, _ = pair
    grid = _create(matter, owner, capture=django_capture_on_commit_callbacks, ids=[base.pk])
    law = Cell.objects.get(grid=grid, document=base, column__key="Governing Law")
    assert law.snapshot["node"]["node_id"] == law.node_ref
    assert any("Minnesota" in line["text"] for line in law.snapshot["lines"])
    url = f"/matters/{matter.pk}/grids/{grid.pk}/cells/{law.pk}/"
    client.force_login(owner)
    assert 'data-testid="provision-note"' not in client.get(url).content.decode()
    # The document is changed under the cell (as a re-index of a new version would).
    text = Document.objects.get(pk=base.pk).text
    Document.objects.filter(pk=base.pk).update(
        text=text.replace("State of Minnesota", "State of Delaware"), indexed_sha256="changed"
    )
    panel = client.get(url).content.decode()
    assert "The provision reads differently now" in panel and "State of Minnesota" in panel
    # The provision is gone: the panel still shows what the cell quoted.
    Node.objects.filter(document=base, node_id=law.node_ref).delete()
    panel = client.get(url).content.decode()
    assert "This provision is no longer in the document" in panel
    assert "State of Minnesota" in panel


@pytest.mark.django_db
def test_a_data_rooms_estimate_reckons_tokens_from_length(matter, owner, pair, monkeypatch):
    """Past EXACT_TOKENS_UP_TO documents the tokens are reckoned from each text's length (one
    query), and the estimate says so; below it they are counted, and the two agree roughly."""
    documents = list(pair)
    counted = services.grid_estimate(documents=documents, columns=COLUMNS)
    monkeypatch.setattr(services, "EXACT_TOKENS_UP_TO", 1)
    reckoned = services.grid_estimate(documents=documents, columns=COLUMNS)
    assert counted["token_basis"] == "counted" and reckoned["token_basis"] == "length"
    exact = services.document_tokens(documents[:1])  # still counted: one document
    length = {d.pk: round(len(d.text) / services.CHARS_PER_TOKEN) for d in documents}
    assert services.document_tokens(documents) == length
    base = documents[0].pk
    assert abs(length[base] - exact[base]) / exact[base] < 0.25
    a = reckoned["claude"]["inject"]["tokens"]["total"]
    b = counted["claude"]["inject"]["tokens"]["total"]
    assert abs(a - b) / b < 0.25


@pytest.mark.django_db
def test_a_quotation_that_runs_into_a_page_break_keeps_its_verbatim_head(matter):
    """The Phillips 66 amendment's interest-rate clause is broken by a page footer ("72 / HOU
    3974255" and a rule); a cell's span that ends inside the footer is quoted up to the break,
    verbatim in the provision, not flagged "not verbatim"."""
    from legalnav.documents.models import Node
    from tests.conftest import index_demo

    doc = index_demo(matter, "phillips66-second-amendment-credit-agreement.txt")
    node = Node.objects.get(document=doc, heading="Interest Rate Limitation")
    provision = provision_text(doc, node)
    footer = doc.text.index("HOU 3974255", node.start)
    start = doc.text.index("Notwithstanding anything herein", node.start)
    end = footer + len("HOU")  # the span stops inside the footer
    whole = " ".join(doc.text[start:end].split())
    assert not quote_in(whole, provision)  # as quoted before: "… in respect 72 HOU"
    cut = services._verbatim_head(doc.text, start, end, provision)
    assert cut is not None
    stop, quotation = cut
    assert quote_in(quotation, provision)
    assert quotation.endswith("payable in respect") and stop < footer
    # A span with nothing verbatim in the provision is left to be flagged.
    assert services._verbatim_head(doc.text, start, end, "an unrelated provision") is None
