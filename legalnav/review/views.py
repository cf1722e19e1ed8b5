"""The review grid's pages: a matter's grids, the new-grid form (with the cost estimate), a grid
that fills in while its job runs, a cell's quotation in the side panel, the reviewer's
confirm/correct form (which also sends the grid's cell out of band), confirming a whole column,
cancel, resume, refill and exports. Each view checks access through
``matter_for`` first (404 for a non-member), looks the grid up within that matter, calls one
action or selector and renders; an htmx request gets the fragment of the same template."""

from __future__ import annotations

import functools
from typing import cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.defaultfilters import pluralize
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from legalnav.core.views import live_page
from legalnav.matters.access import Action, matter_for
from legalnav.matters.models import Matter
from legalnav.review import actions, selectors
from legalnav.review.actions import GridRejected
from legalnav.review.columns import ANSWER_TYPES, CUAD_COLUMNS
from legalnav.review.exports import FORMATS, memo_documents
from legalnav.review.forms import GridForm, grid_form_parse
from legalnav.review.models import Grid


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


VIA = "page"


def _form_context(
    request: HttpRequest, matter: Matter, form: GridForm | None = None, **extra: object
) -> dict[str, object]:
    form = form or GridForm(preset=[c.key for c in CUAD_COLUMNS])
    return {
        "matter": matter,
        "form": form,
        "presets": CUAD_COLUMNS,
        "saved_columns": list(selectors.saved_columns(matter=matter, user=request.user)),
        "documents": list(selectors.indexed_documents(matter=matter)),
        "types": ANSWER_TYPES,
        "own_rows": form.own_rows(),
        "modes": Grid.Mode.choices,
        "chars_per_token": actions.CHARS_PER_TOKEN,
        **extra,
    }


@login_required
@require_GET
def grid_list(request: HtmxHttpRequest, matter_id: int) -> HttpResponse:
    """The matter's review grids, newest first."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.VIEW)
    grids = list(selectors.grid_list(matter=matter)[:100])
    return render(request, "review/grids.html", {"matter": matter, "grids": grids})


@login_required
@require_http_methods(["GET", "POST"])
def grid_new(request: HtmxHttpRequest, matter_id: int) -> HttpResponse:
    """The new-grid form. POST with ``estimate`` shows what it would cost and changes nothing;
    POST without it makes the grid and queues it."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.ASK)
    if request.method == "GET":
        return render(request, "review/new.html", _form_context(request, matter))
    form = grid_form_parse(request.POST)
    saved = list(selectors.saved_columns(matter=matter, user=request.user))
    columns = form.columns(saved)
    try:
        checked = actions.columns_check(columns)
        documents = actions.grid_documents_check(matter=matter, document_ids=form.document_ids)
        if "estimate" in request.POST:
            estimate = actions.grid_estimate(documents=documents, columns=checked)
            context = _form_context(request, matter, form, estimate=estimate)
            return render(request, "review/new.html", context)
        if form.save_own:
            for own in form.own:
                actions.saved_column_add(
                    matter=matter,
                    user=request.user,
                    key=own.key,
                    question=own.question,
                    type_=own.type,
                    via=VIA,
                )
        grid = actions.grid_create(
            matter=matter,
            user=request.user,
            title=form.title,
            columns=checked,
            document_ids=form.document_ids,
            mode=form.mode,
            via=VIA,
        )
    except GridRejected as exc:
        context = _form_context(request, matter, form, error=exc.message)
        return render(request, "review/new.html", context, status=400)
    except actions.RateLimited as exc:
        context = _form_context(request, matter, form, error=exc.decision.message)
        response = render(request, "review/new.html", context, status=429)
        response["Retry-After"] = str(exc.decision.retry_after)
        return response
    except actions.JobQueueDown as exc:
        grid = exc.item
    return HttpResponseRedirect(reverse("grid-detail", args=[matter.pk, grid.pk]), status=303)


@login_required
@require_POST
def saved_column_add(request: HtmxHttpRequest, matter_id: int) -> HttpResponse:
    """Save one of the user's own columns for later grids."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.ASK)
    try:
        actions.saved_column_add(
            matter=matter,
            user=request.user,
            key=request.POST.get("key", ""),
            question=request.POST.get("question", ""),
            type_=request.POST.get("type", "clause"),
            via=VIA,
        )
    except GridRejected as exc:
        context = _form_context(request, matter, error=exc.message)
        return render(request, "review/new.html", context, status=400)
    return HttpResponseRedirect(reverse("grid-new", args=[matter.pk]), status=303)


def _matter_grid(
    request: HtmxHttpRequest, matter_id: int, grid_id: int, action: Action
) -> tuple[Matter, Grid]:
    """The matter, if the user may take ``action`` in it, and its grid (404 or 403 otherwise)."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=action)
    return matter, selectors.grid_get(matter=matter, grid_id=grid_id)


def _grid_context(
    matter: Matter, grid: Grid, which: str, page: object = 1, **extra: object
) -> dict[str, object]:
    table = selectors.grid_table(
        grid=grid, which=which, page=page, per_page=selectors.ROWS_PER_PAGE, page_fields=True
    )
    return {
        "matter": matter,
        "grid": grid,
        "table": table,
        "chunks": selectors.chunk_counts(grid),
        "chunk_documents": settings.GRID_CHUNK_DOCUMENTS,
        # A data room's grid fills for minutes: its page asks less often.
        "poll_seconds": 2 if table.total_rows <= selectors.ROWS_PER_PAGE * 4 else 5,
        "eta": selectors.eta_text(grid.eta_seconds),
        "filters": selectors.FILTERS,
        "formats": FORMATS,
        # the PDF memo sets out this many documents at most: said beside its button when fewer.
        # Called by the template only where the whole page is drawn: a poll's fragment never
        # reads it, so a filling data room's polls do not pay for its queries.
        "memo_documents": functools.partial(memo_documents, grid, len(table.columns)),
        **selectors.page_urls(grid),
        **extra,
    }


@login_required
@require_GET
def grid_detail(request: HtmxHttpRequest, matter_id: int, grid_id: int) -> HttpResponse:
    """The grid. The htmx poll gets the live fragment, and 286 once the job has ended or
    stalled (a poll of a grid nobody is working on sweeps it at once)."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.VIEW)
    grid = selectors.grid_poll(grid=selectors.grid_get(matter=matter, grid_id=grid_id))
    context = _grid_context(matter, grid, request.GET.get("show", ""), request.GET.get("page", 1))
    poll = bool(request.htmx and request.htmx.target == "grid-live")
    done = context["table"].done  # type: ignore[attr-defined]
    return live_page(request, "review/grid.html#grid_live", context, poll=poll, running=not done)


def _after_action(
    request: HtmxHttpRequest,
    matter: Matter,
    grid: Grid,
    notice: str = "",
    status: int = 200,
    message: str = "",
) -> HttpResponse:
    if not request.htmx and status == 200:
        if message:
            messages.success(request, message)
        return HttpResponseRedirect(reverse("grid-detail", args=[matter.pk, grid.pk]), status=303)
    grid.refresh_from_db()
    # The page (and filter) the action was taken on, when the form says so.
    show, page = request.GET.get("show", ""), request.GET.get("page", 1)
    context = _grid_context(matter, grid, show, page, notice=notice, message=message)
    template = "review/grid.html#grid_live" if request.htmx else "review/grid.html"
    return render(request, template, context, status=status)


@login_required
@require_POST
def grid_cancel(request: HtmxHttpRequest, matter_id: int, grid_id: int) -> HttpResponse:
    matter, grid = _matter_grid(request, matter_id, grid_id, Action.ASK)
    actions.grid_cancel(matter=matter, user=request.user, grid=grid, via=VIA)
    return _after_action(request, matter, grid)


@login_required
@require_POST
def grid_retry(request: HtmxHttpRequest, matter_id: int, grid_id: int) -> HttpResponse:
    """Resume (fill what is missing) or, with ``refill``, fill every unreviewed cell again."""
    matter, grid = _matter_grid(request, matter_id, grid_id, Action.ASK)
    try:
        actions.grid_retry(
            matter=matter,
            user=request.user,
            grid=grid,
            via=VIA,
            refill=request.POST.get("refill") == "1",
        )
    except actions.JobQueueDown as exc:
        response = _after_action(request, matter, grid, notice=exc.message, status=503)
        response["Retry-After"] = str(exc.retry_after)
        return response
    return _after_action(request, matter, grid)


def _cell_context(matter: Matter, grid: Grid, cell_id: int, **extra: object) -> dict[str, object]:
    cell = selectors.cell_get(grid=grid, cell_id=cell_id)
    return {"matter": matter, "grid": grid, "ctx": selectors.cell_context(cell=cell), **extra}


@login_required
@require_GET
def cell_detail(
    request: HtmxHttpRequest, matter_id: int, grid_id: int, cell_id: int
) -> HttpResponse:
    """A cell: its value, its quotation highlighted in its provision, a link into the reader,
    and the review form (the side panel; a page of its own without htmx)."""
    matter, grid = _matter_grid(request, matter_id, grid_id, Action.VIEW)
    context = _cell_context(matter, grid, cell_id)
    template = "review/cell.html#panel" if request.htmx else "review/cell.html"
    return render(request, template, context)


@login_required
@require_POST
def cell_review(
    request: HtmxHttpRequest, matter_id: int, grid_id: int, cell_id: int
) -> HttpResponse:
    """Confirm or correct a cell (or undo the review); audited, kept by every later run."""
    matter, grid = _matter_grid(request, matter_id, grid_id, Action.ASK)
    cell = selectors.cell_get(grid=grid, cell_id=cell_id)
    status, error = 200, ""
    try:
        actions.cell_review(
            matter=matter,
            user=request.user,
            cell=cell,
            status=request.POST.get("review", ""),
            value=request.POST.get("value", ""),
            via=VIA,
        )
    except GridRejected as exc:
        status, error = 400, exc.message
    if not request.htmx and status == 200:
        return HttpResponseRedirect(
            reverse("grid-cell", args=[matter.pk, grid.pk, cell.pk]), status=303
        )
    context = _cell_context(matter, grid, cell.pk, error=error)
    if not request.htmx:
        return render(request, "review/cell.html", context, status=status)
    response = render(request, "review/cell.html#panel", context, status=status)
    if status == 200:
        # The grid's cell and counts too, out of band: the table shows the new state at once.
        ctx = cast(selectors.CellContext, context["ctx"])
        ctx.cell.amended_by = ctx.amended_by  # type: ignore[attr-defined]
        link = render_to_string(
            "review/grid.html#cell_link",
            {"grid": grid, "cell": ctx.cell, "oob": True, **selectors.page_urls(grid)},
            request,
        )
        counts = render_to_string(
            "review/grid.html#grid_counts",
            {"counts": selectors.grid_table_counts(grid=grid), "oob": True},
            request,
        )
        response.content += (link + counts).encode()
    return response


@login_required
@require_POST
def grid_column_confirm(
    request: HtmxHttpRequest, matter_id: int, grid_id: int, column_id: int
) -> HttpResponse:
    """Confirm every found cell of one column that nobody has reviewed yet (audited)."""
    matter, grid = _matter_grid(request, matter_id, grid_id, Action.ASK)
    column = selectors.column_get(grid=grid, column_id=column_id)
    confirmed = actions.column_confirm(
        matter=matter, user=request.user, grid=grid, column=column, via=VIA
    )
    message = (
        f"Confirmed {confirmed} cell{pluralize(confirmed)} of “{column.key}”."
        if confirmed
        else f"No found cell of “{column.key}” was left to confirm."
    )
    return _after_action(request, matter, grid, message=message)


@login_required
@require_POST
def grid_export(request: HtmxHttpRequest, matter_id: int, grid_id: int, fmt: str) -> HttpResponse:
    """The grid as CSV, XLSX or a PDF memo (any member). POST, since the export is audited (a
    GET is 405 whoever asks, as for answer memos)."""
    matter, grid = _matter_grid(request, matter_id, grid_id, Action.VIEW)
    try:
        out = actions.grid_export(
            matter=matter,
            user=request.user,
            grid=grid,
            fmt=fmt,
            via=VIA,
            base_url=request.build_absolute_uri("/"),
        )
    except GridRejected as exc:
        return HttpResponse(exc.message, status=404, content_type="text/plain; charset=utf-8")
    except actions.RateLimited as exc:
        refused = HttpResponse(
            exc.decision.message, status=429, content_type="text/plain; charset=utf-8"
        )
        refused["Retry-After"] = str(exc.decision.retry_after)
        return refused
    # Sent from its spooled file in chunks, and the file closed after.
    return FileResponse(
        out.file, as_attachment=True, filename=out.filename, content_type=out.content_type
    )
