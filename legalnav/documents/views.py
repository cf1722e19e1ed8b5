"""Pages for the matters list, a matter's documents and the document reader.

Views parse input, check access (``matter_for`` through ``document_for``: 404 for a non-member,
403 for a role too weak for the action), call one service or selector, and render. A page and its
fragments share one template; an htmx request gets the fragment. Writes are POSTs with a CSRF
token that redirect back (post/redirect/get), with what happened in a message.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from legalnav.core import jobs, uploads
from legalnav.core.jobs import QueueUnavailable
from legalnav.core.views import live_page
from legalnav.documents import actions, selectors
from legalnav.documents.forms import ACCEPT, DocumentDetailsForm, UploadForm
from legalnav.documents.models import Document
from legalnav.documents.reader import document_reader, highlight
from legalnav.matters.access import Action, can, matter_for, staff_sees_all
from legalnav.matters.models import Matter

_BUSY = (Document.Status.QUEUED, Document.Status.INDEXING)


class HtmxHttpRequest(HttpRequest):
    """What django-htmx's middleware adds to a request (for the type checker)."""

    htmx: HtmxDetails


def _matter_context(request: HtmxHttpRequest, matter: Matter, **extra: object) -> dict[str, object]:
    # A document nobody is working on is restarted now (the sweeper, for this row); one that
    # still has nobody afterwards (its attempts spent, or the queue down) says so, and the page
    # stops polling for it instead of showing a progress bar that never moves. Only the open
    # jobs that may be stale are read (usually none, of the thousands a data room may have
    # open), and before the overview, so that the counts and rows shown are the ones after it.
    spec = jobs.spec_for("document")
    stale: set[int] = set()
    for doc in selectors.matter_stale_candidates(matter=matter):
        if jobs.is_stale(spec, doc):
            doc = jobs.job_poll_check("document", doc)
            if doc.status in _BUSY and jobs.is_stale(spec, doc):
                stale.add(doc.pk)
    overview = selectors.matter_overview(
        matter=matter, params={k: str(v) for k, v in request.GET.items()}
    )
    for doc in overview.shown:
        doc.stale = doc.status in _BUSY and jobs.is_stale(spec, doc)  # type: ignore[attr-defined]
    role = matter.user_role  # type: ignore[attr-defined]
    context: dict[str, object] = {
        "matter": matter,
        "documents": overview.shown,
        "overview": overview,
        # Something is still being worked on: open jobs beyond those found stale above.
        "busy": overview.waiting > len(stale),
        "can_edit": can(user=request.user, matter=matter, action=Action.EDIT, role=role),
        "can_manage": can(user=request.user, matter=matter, action=Action.MANAGE, role=role),
        "accept": ACCEPT,
        "max_upload_bytes": settings.LEGALNAV_MAX_UPLOAD_BYTES,
        "max_zip_bytes": settings.LEGALNAV_MAX_ZIP_UPLOAD_BYTES,
        "status_choices": [("busy", "Waiting or indexing"), *Document.Status.choices],
        "max_files": actions.MAX_FILES_PER_UPLOAD,
    }
    context.update(extra)
    return context


@login_required
@require_GET
def matter_list(request: HttpRequest) -> HttpResponse:
    """The matters the user may see, each with its documents' progress."""
    context = {
        "rows": selectors.matter_rows(user=request.user),
        "staff_sees_all": staff_sees_all(request.user),
    }
    return render(request, "matters/list.html", context)


@login_required
@require_GET
def matter_detail(request: HtmxHttpRequest, matter_id: int) -> HttpResponse:
    """A matter's documents with live status. While anything is indexing the table polls this
    view (htmx) for its fragment; the answer is HTTP 286, which stops the polling, once nothing
    is left to index."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.VIEW)
    context = _matter_context(request, matter)
    poll, running = bool(request.htmx), bool(context["busy"])
    return live_page(request, "matters/detail.html#documents", context, poll=poll, running=running)


@login_required
@require_POST
def matter_upload(request: HtmxHttpRequest, matter_id: int) -> HttpResponse:
    """Several files at once; each is accepted or refused with its own message."""
    matter = matter_for(user=request.user, matter_id=matter_id, action=Action.EDIT)
    form = UploadForm(request.POST, request.FILES)
    # Too large, found while the body streamed in: the whole upload, or files left out of it.
    refused = uploads.upload_refusal(request)
    if refused is not None:
        messages.error(request, f"Not uploaded: {refused} No file of this upload was added.")
        return redirect("matter-detail", matter_id=matter.pk)
    left_out = uploads.files_left_out(request)
    for reason in left_out:
        messages.error(request, f"Not uploaded: {reason}")
    if left_out and not request.FILES:
        return redirect("matter-detail", matter_id=matter.pk)
    if not form.is_valid():
        for error in form.errors.get("documents", ["The upload could not be read."]):
            messages.error(request, str(error))
        return redirect("matter-detail", matter_id=matter.pk)
    outcomes = actions.document_upload_many(
        matter=matter, user=request.user, files=form.cleaned_data["documents"]
    )
    for o in outcomes:
        if o.archive:
            continue  # a zip's files are told in one message below
        if o.code == "queue_unavailable":
            messages.error(request, o.error)
        elif o.error:
            messages.error(request, f"Not uploaded: {o.error}")
        elif o.created and o.document is not None:
            messages.success(
                request, f"Added “{o.filename}” as {o.document.key}; indexing has started."
            )
        elif o.document is not None:
            messages.info(
                request,
                f"“{o.filename}” is already in this matter as {o.document.key} "
                f"({o.document.title}); nothing was added.",
            )
    for archive in dict.fromkeys(o.archive for o in outcomes if o.archive):
        _archive_messages(request, archive, [o for o in outcomes if o.archive == archive])
    if any(o.code == "queue_unavailable" for o in outcomes):
        return _queue_down(request, matter)
    return redirect("matter-detail", matter_id=matter.pk)


ARCHIVE_ERRORS_SHOWN = 25


def _archive_messages(
    request: HttpRequest, archive: str, outcomes: list[actions.UploadOutcome]
) -> None:
    """One summary of what a zip brought in, and each file left out with its reason (the first
    few dozen; the rest counted)."""
    added = sum(1 for o in outcomes if o.created and not o.error)
    copies = sum(1 for o in outcomes if o.document is not None and not o.created)
    refused = [o for o in outcomes if o.error and o.code != "queue_unavailable"]
    parts = [f"{added} document{pluralize(added)} added, indexing has started"]
    if copies:
        parts.append(
            f"{copies} file{pluralize(copies)} already in this matter, recorded as "
            f"cop{pluralize(copies, 'y,ies')}"
        )
    if refused:
        parts.append(f"{len(refused)} file{pluralize(len(refused))} left out")
    level = messages.warning if refused else messages.success
    level(request, f"“{archive}”: " + "; ".join(parts) + ".")
    for o in refused[:ARCHIVE_ERRORS_SHOWN]:
        messages.error(request, f"Left out of “{archive}”: {o.path}: {o.error}")
    if len(refused) > ARCHIVE_ERRORS_SHOWN:
        messages.error(
            request,
            f"… and {len(refused) - ARCHIVE_ERRORS_SHOWN} more files left out of “{archive}”.",
        )
    for o in outcomes:
        if o.code == "queue_unavailable":
            messages.error(request, o.error)


def _queue_down(request: HtmxHttpRequest, matter: Matter) -> HttpResponse:
    """The matter page with the messages, as a 503 with Retry-After: what was saved is kept
    (marked failed, with Retry), and the user knows to try again shortly."""
    response = render(request, "matters/detail.html", _matter_context(request, matter), status=503)
    response["Retry-After"] = str(QueueUnavailable.retry_after)
    return response


def _document_queue_down(request: HtmxHttpRequest, document: Document) -> HttpResponse:
    """``_queue_down`` for a change to one document that needed it indexed again."""
    messages.error(request, f"{document.key}: {QueueUnavailable.message}")
    return _queue_down(request, document.matter)


def _for_edit(request: HtmxHttpRequest, document_id: int) -> Document:
    """The document, if the user may edit in its matter (404 or 403 otherwise)."""
    return selectors.document_for(user=request.user, document_id=document_id, action=Action.EDIT)


@login_required
@require_POST
def document_reindex(request: HtmxHttpRequest, document_id: int) -> HttpResponse:
    """Retry a failed, cancelled or stalled document, or rebuild an indexed one from its file."""
    document = _for_edit(request, document_id)
    retry = document.status != Document.Status.INDEXED
    try:
        queued = actions.document_retry(document=document, user=request.user, force=not retry)
    except QueueUnavailable:
        return _document_queue_down(request, document)
    if queued:
        messages.success(
            request,
            f"{'Retrying' if retry else 'Re-indexing'} {document.key} “{document.title}”.",
        )
    else:
        messages.info(request, f"{document.key} is already being indexed.")
    return redirect("matter-detail", matter_id=document.matter_id)


@login_required
@require_POST
def document_link(request: HtmxHttpRequest, document_id: int) -> HttpResponse:
    """Accept or reject the amendment link proposed for a document."""
    document = _for_edit(request, document_id)
    accept = request.POST.get("accept") == "1"
    try:
        target = actions.document_link_review(document=document, user=request.user, accept=accept)
    except ValueError as exc:
        messages.error(request, str(exc))
    except QueueUnavailable:
        return _document_queue_down(request, document)
    else:
        if target is not None:
            messages.success(
                request,
                f"{document.key} now amends {target.key} “{target.title}”; it is being re-indexed "
                "so that its references resolve there.",
            )
        else:
            messages.info(request, f"The proposed link of {document.key} was rejected.")
    next_page = request.POST.get("next")
    if next_page == "document" and document.status == Document.Status.INDEXED:
        return redirect("document-detail", document_id=document.pk)
    return redirect("matter-detail", matter_id=document.matter_id)


@login_required
@require_POST
def document_cancel(request: HtmxHttpRequest, document_id: int) -> HttpResponse:
    """Cancel indexing a document (a queued, running or stalled job)."""
    document = _for_edit(request, document_id)
    if actions.document_cancel(document=document, user=request.user):
        document.refresh_from_db()
        kept = (
            " Its clauses from the last completed run are kept."
            if document.status == "indexed"
            else ""
        )
        messages.success(request, f"Cancelled indexing {document.key} “{document.title}”.{kept}")
    else:
        messages.info(request, f"{document.key} was not being indexed.")
    return redirect("matter-detail", matter_id=document.matter_id)


@login_required
@require_POST
def document_delete(request: HtmxHttpRequest, document_id: int) -> HttpResponse:
    document = _for_edit(request, document_id)
    matter_id, key, title = document.matter_id, document.key, document.title
    actions.document_remove(document=document, user=request.user)
    messages.success(request, f"Deleted {key} “{title}” with its clauses and files.")
    return redirect("matter-detail", matter_id=matter_id)


@login_required
@require_http_methods(["GET", "POST"])
def document_edit(request: HtmxHttpRequest, document_id: int) -> HttpResponse:
    """Title, kind, date and which document this one amends."""
    document = _for_edit(request, document_id)
    initial = {
        "title": document.title,
        "kind": document.kind,
        "effective_date": document.effective_date,
        "amends": document.amends_id,
    }
    form = DocumentDetailsForm(request.POST or None, initial=initial, document=document)
    if request.method == "POST" and form.is_valid():
        try:
            requeued = actions.document_update_details(
                document=document, user=request.user, **form.cleaned_data
            )
        except QueueUnavailable:
            # The details are saved; the document is failed with the reason and has Retry.
            return _document_queue_down(request, document)
        note = " It is being re-indexed so its references follow." if requeued else ""
        messages.success(request, f"Saved the details of {document.key}.{note}")
        return redirect("matter-detail", matter_id=document.matter_id)
    context = {"document": document, "matter": document.matter, "form": form}
    return render(request, "documents/edit.html", context, status=400 if form.errors else 200)


@login_required
@require_GET
def document_detail(request: HtmxHttpRequest, document_id: int) -> HttpResponse:
    """The reader: the clause outline beside the text, references as links, defined terms with
    their definitions, amendments beside the clauses they change."""
    document = selectors.document_for(user=request.user, document_id=document_id)
    page = document_reader(document=document)
    proposal = document.link_proposal or {}
    link_target = None
    if document.amends_id is None and proposal.get("state") == "proposed":
        link_target = Document.objects.filter(
            pk=proposal.get("target") or 0, matter_id=document.matter_id
        ).first()
    return render(
        request,
        "documents/detail.html",
        {
            "document": document,
            "matter": document.matter,
            "page": page,
            "link_target": link_target,
            "can_edit": can(
                user=request.user,
                matter=document.matter,
                action=Action.EDIT,
                role=document.matter.user_role,  # type: ignore[attr-defined]
            ),
        },
    )


@login_required
@require_GET
def node_fragment(request: HtmxHttpRequest, document_id: int, node_id: str) -> HttpResponse:
    """One provision verbatim, the quoted phrase ``?q=`` highlighted. An htmx request (or
    ``?fragment=1``) gets the bare fragment, for a side panel; otherwise a page around it."""
    document = selectors.document_for(user=request.user, document_id=document_id)
    node = selectors.node_get(document=document, node_id=node_id)
    quote = request.GET.get("q", "")[:2000]
    html, found = highlight(node.text, quote)
    found = found or not quote.strip()  # nothing asked for, nothing missing
    context = {
        "document": document,
        "matter": document.matter,
        "node": node,
        "html": html,
        "quote": quote,
        "found": found,
    }
    if request.htmx or request.GET.get("fragment"):
        return render(request, "documents/node.html#provision", context)
    return render(request, "documents/node.html", context)
