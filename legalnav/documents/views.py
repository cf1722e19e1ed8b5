"""Pages for matters and documents. Views parse input, check access, call one selector, render.

The full reviewer's desk (upload, ask, citations, memos) arrives with later work; these pages let
a reader see a matter's documents, their indexing status and each document's clause tree.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django_htmx.http import HttpResponseStopPolling

from legalnav.documents import selectors
from legalnav.documents.models import Document


@login_required
def matter_list(request: HttpRequest) -> HttpResponse:
    return render(
        request, "matters/list.html", {"matters": selectors.matter_list(user=request.user)}
    )


@login_required
def matter_detail(request: HttpRequest, matter_id: int) -> HttpResponse:
    matter = selectors.matter_get(user=request.user, matter_id=matter_id)
    documents = list(selectors.document_list(matter=matter))
    busy = any(d.status in (Document.Status.QUEUED, Document.Status.INDEXING) for d in documents)
    context = {"matter": matter, "documents": documents, "busy": busy}
    if request.htmx:
        response = render(request, "matters/detail.html#documents", context)
        # Polling stops (HTTP 286) once nothing is left to index.
        return response if busy else HttpResponseStopPolling(response.content)
    return render(request, "matters/detail.html", context)


@login_required
def document_detail(request: HttpRequest, document_id: int) -> HttpResponse:
    document = selectors.document_get(user=request.user, document_id=document_id)
    nodes = list(selectors.node_outline(document=document))
    return render(request, "documents/detail.html", {"document": document, "nodes": nodes})
