"""The JSON API's operations, registered on Ninja's ``api`` (``http``). Each takes what Ninja
parsed into the models of ``schemas``, calls one selector or service with the token's user
(``request.auth``), and returns its model; the OpenAPI document at /api/openapi.json is generated
from these registrations.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from django.http import HttpResponse, StreamingHttpResponse
from django.urls import reverse
from ninja import File, Form, Query, Status, UploadedFile
from pydantic import Field, WithJsonSchema

from legalnav.api import grids, playbooks, schemas, selectors, writes
from legalnav.api.errors import MAX_ID
from legalnav.api.http import ApiRequest, BearerToken, api, archive_upload_checks, upload_checks
from legalnav.api.search import matter_search

__all__ = ["api"]

VIA = "api"
Err = schemas.ErrorBody
E_READ = (401, 404, 422)  # a read: no token, unknown id / not a member, bad query

# An id in a path is taken as text: one that cannot be an id ("abc", 0, past 64 bits) is not
# found (selectors.parse_id), like an id that names nothing, rather than a validation error.
PathId = Annotated[str, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_ID})]
NodeId = Annotated[str, Field(min_length=1)]
NavindexFile = Annotated[dict[str, Any], WithJsonSchema({"type": "object"})]


def _with_next(request: ApiRequest, page: schemas.Paged) -> schemas.Paged:
    """The page with the absolute URL of the next one (same filters, next offset)."""
    if page.next_offset is not None:
        params = request.GET.copy()
        params["offset"] = str(page.next_offset)
        params["limit"] = str(page.limit)
        page.next = request.build_absolute_uri(f"{request.path}?{urlencode(params, doseq=True)}")
    return page


# --- matters ----------------------------------------------------------------------------------


@api.get(
    "/v1/matters",
    summary="List the matters you can see",
    tags=["matters"],
    response={200: schemas.MatterPage, (401, 422): Err},
)
def matters_list(request: ApiRequest, query: Query[schemas.PageParams]) -> schemas.Paged:
    return _with_next(request, selectors.matter_page(user=request.auth, params=query))


@api.get(
    "/v1/matters/{matter_id}",
    summary="One matter",
    tags=["matters"],
    response={200: schemas.MatterOut, (401, 404): Err},
)
def matters_detail(request: ApiRequest, matter_id: PathId) -> schemas.MatterOut:
    return selectors.matter_detail(user=request.auth, matter_id=matter_id)


@api.post(
    "/v1/matters/{matter_id}/close",
    summary="Close the matter: read-only for everyone (owners; 409 while work still runs)",
    tags=["matters"],
    response={200: schemas.MatterOut, (401, 403, 404, 409): Err},
)
def matters_close(request: ApiRequest, matter_id: PathId) -> schemas.MatterOut:
    return writes.matter_close(user=request.auth, matter_id=matter_id, via=VIA)


@api.get(
    "/v1/matters/{matter_id}/handover",
    summary="The whole matter as one zip, streamed: documents in their folders, answers with "
    "citations and PDF memos, grids as XLSX, the audit trail and members as CSV (owners; "
    "audited; 409 once purged)",
    tags=["matters"],
    response={(401, 403, 404, 409): Err},
    openapi_extra={
        "responses": {
            "200": {
                "description": "OK",
                "content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}},
            }
        }
    },
)
def matters_handover(request: ApiRequest, matter_id: PathId) -> StreamingHttpResponse:
    handover = writes.matter_handover(user=request.auth, matter_id=matter_id, via=VIA)
    response = StreamingHttpResponse(handover.chunks, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{handover.filename}"'
    return response


@api.post(
    "/v1/matters/{matter_id}/reopen",
    summary="Reopen a closed matter (owners)",
    tags=["matters"],
    response={200: schemas.MatterOut, (401, 403, 404, 409): Err},
)
def matters_reopen(request: ApiRequest, matter_id: PathId) -> schemas.MatterOut:
    return writes.matter_reopen(user=request.auth, matter_id=matter_id, via=VIA)


@api.put(
    "/v1/matters/{matter_id}/retention",
    summary="Set or clear the day from which the matter is due for purge (owners)",
    tags=["matters"],
    response={200: schemas.MatterOut, (400, 401, 403, 404, 409, 422): Err},
)
def matters_retention(
    request: ApiRequest, matter_id: PathId, body: schemas.RetentionIn
) -> schemas.MatterOut:
    return writes.matter_retention(user=request.auth, matter_id=matter_id, body=body, via=VIA)


@api.post(
    "/v1/matters/{matter_id}/purge-request",
    summary="Ask for a closed matter's purge, typing its name (owners); staff confirm it",
    tags=["matters"],
    response={200: schemas.MatterOut, (400, 401, 403, 404, 409, 422): Err},
)
def matters_purge_request(
    request: ApiRequest, matter_id: PathId, body: schemas.TypedNameIn
) -> schemas.MatterOut:
    return writes.matter_purge_request(user=request.auth, matter_id=matter_id, body=body, via=VIA)


@api.delete(
    "/v1/matters/{matter_id}/purge-request",
    summary="Withdraw a purge request (owners)",
    tags=["matters"],
    response={200: schemas.MatterOut, (401, 403, 404, 409): Err},
)
def matters_purge_withdraw(request: ApiRequest, matter_id: PathId) -> schemas.MatterOut:
    return writes.matter_purge_withdraw(user=request.auth, matter_id=matter_id, via=VIA)


@api.post(
    "/v1/matters/{matter_id}/purge",
    summary="Purge the matter, confirming an owner's request and typing its name (staff): every "
    "document, file, index, vector, answer, grid and memo of it is destroyed; the audit keeps "
    "who and when",
    tags=["matters"],
    response={200: schemas.PurgeOut, (400, 401, 403, 404, 409, 422, 503): Err},
)
def matters_purge(
    request: ApiRequest, matter_id: PathId, body: schemas.TypedNameIn
) -> schemas.PurgeOut:
    return writes.matter_purge(user=request.auth, matter_id=matter_id, body=body, via=VIA)


# --- documents --------------------------------------------------------------------------------


@api.get(
    "/v1/matters/{matter_id}/documents",
    summary="List a matter's documents with their indexing status",
    tags=["documents"],
    response={200: schemas.DocumentPage, E_READ: Err},
)
def documents_list(
    request: ApiRequest, matter_id: PathId, query: Query[schemas.DocumentListParams]
) -> schemas.Paged:
    page = selectors.document_page(user=request.auth, matter_id=matter_id, params=query)
    return _with_next(request, page)


@api.post(
    "/v1/matters/{matter_id}/documents",
    summary="Upload a document (multipart/form-data) and queue it for indexing",
    description="The file goes in the field 'file' (.txt, .htm, .html, .pdf or .docx, up to "
    "LEGALNAV_MAX_UPLOAD_BYTES). Editors and owners only. Uploading the same bytes again "
    "returns the existing document with created=false. Poll the document for its status.",
    tags=["documents"],
    auth=BearerToken(then=upload_checks),
    response={(201, 200): schemas.UploadOut, (400, 401, 403, 404, 409, 413, 415, 422, 503): Err},
)
def documents_upload(
    request: ApiRequest,
    response: HttpResponse,
    matter_id: PathId,
    file: File[UploadedFile],
    form: Form[schemas.UploadForm],
) -> Status[schemas.UploadOut]:
    result = writes.document_upload(
        user=request.auth,
        matter_id=matter_id,
        filename=file.name or "document",
        data=file.read(),
        form=form,
        via=VIA,
    )
    response["Location"] = reverse("api:documents_detail", args=[result.document.id])
    return Status(201 if result.created else 200, result)


@api.post(
    "/v1/matters/{matter_id}/archives",
    summary="Upload a data room as one .zip: every file in it becomes a document, folders kept",
    description="The zip goes in the field 'file' (up to LEGALNAV_MAX_ZIP_UPLOAD_BYTES; "
    "LEGALNAV_MAX_ZIP_FILES files and LEGALNAV_MAX_ZIP_EXPANDED_BYTES expanded, zips inside it "
    "opened). Each file is reported: added and queued for indexing, already in the matter "
    "(recorded as a copy of that document), or left out with the reason. Editors and owners.",
    tags=["documents"],
    auth=BearerToken(then=archive_upload_checks),
    response={201: schemas.ArchiveOut, (400, 401, 403, 404, 409, 413, 415, 422, 503): Err},
)
def archives_upload(
    request: ApiRequest, matter_id: PathId, file: File[UploadedFile]
) -> Status[schemas.ArchiveOut]:
    result = writes.archive_upload(
        user=request.auth,
        matter_id=matter_id,
        filename=file.name or "upload.zip",
        source=file,
        via=VIA,
    )
    return Status(201, result)


@api.get(
    "/v1/documents/{document_id}",
    summary="One document: metadata and indexing status (poll this after an upload)",
    tags=["documents"],
    response={200: schemas.DocumentOut, (401, 404): Err},
)
def documents_detail(request: ApiRequest, document_id: PathId) -> schemas.DocumentOut:
    return selectors.document_detail(user=request.auth, document_id=document_id)


@api.delete(
    "/v1/documents/{document_id}",
    summary="Delete a document with its nodes, vectors and navindex files",
    tags=["documents"],
    response={204: None, (401, 403, 404, 409): Err},
)
def documents_delete(request: ApiRequest, document_id: PathId) -> HttpResponse:
    writes.document_remove(user=request.auth, document_id=document_id, via=VIA)
    return HttpResponse(status=204)


@api.post(
    "/v1/documents/{document_id}/reindex",
    summary="Queue a document for indexing again",
    description='The body is optional; {"force": true} rebuilds an unchanged document.',
    tags=["documents"],
    response={202: schemas.ReindexOut, (400, 401, 403, 404, 409, 415, 422, 503): Err},
)
def documents_reindex(
    request: ApiRequest, document_id: PathId, body: schemas.ReindexBody | None = None
) -> Status[schemas.ReindexOut]:
    force = body is not None and body.force
    result = writes.document_retry(user=request.auth, document_id=document_id, force=force, via=VIA)
    return Status(202, result)


@api.post(
    "/v1/documents/{document_id}/link",
    summary="Accept or reject the amendment link proposed for a document",
    description='{"accept": true} makes the document amend the proposed one (it is re-indexed '
    "so that its references resolve there); false rejects the proposal. 409 when nothing is "
    "proposed. The proposal is the document's link_proposal.",
    tags=["documents"],
    response={200: schemas.DocumentOut, (400, 401, 403, 404, 409, 415, 422, 503): Err},
)
def documents_link(
    request: ApiRequest, document_id: PathId, body: schemas.LinkBody
) -> schemas.DocumentOut:
    return writes.document_link(
        user=request.auth, document_id=document_id, accept=body.accept, via=VIA
    )


@api.post(
    "/v1/documents/{document_id}/cancel",
    summary="Cancel indexing a document (queued, indexing or stalled)",
    description="A document indexed before keeps the clauses of its last completed run.",
    tags=["documents"],
    response={200: schemas.DocumentOut, (401, 403, 404, 409): Err},
)
def documents_cancel(request: ApiRequest, document_id: PathId) -> schemas.DocumentOut:
    return writes.document_cancel(user=request.auth, document_id=document_id, via=VIA)


@api.get(
    "/v1/documents/{document_id}/nodes",
    summary="The document's clause tree (no text)",
    tags=["nodes"],
    response={200: schemas.NodeTree, (401, 404): Err},
)
def nodes_tree(request: ApiRequest, document_id: PathId) -> schemas.NodeTree:
    return selectors.node_tree(user=request.auth, document_id=document_id)


@api.get(
    # path: a node id may hold a slash; it then names no node (a 404), not another endpoint.
    "/v1/documents/{document_id}/nodes/{path:node_id}",
    summary="One node, verbatim, optionally with what it cross-references and its definitions",
    tags=["nodes"],
    response={200: schemas.Provisions, E_READ: Err},
)
def nodes_detail(
    request: ApiRequest,
    document_id: PathId,
    node_id: NodeId,
    query: Query[schemas.NodeParams],
) -> schemas.Provisions:
    return selectors.node_detail(
        user=request.auth, document_id=document_id, node_id=node_id, params=query
    )


@api.get(
    "/v1/documents/{document_id}/navindex",
    summary="A navindex file of the document (index or full; readable or token-optimised)",
    tags=["nodes"],
    response={200: NavindexFile, (401, 404, 409, 422): Err},
)
def navindex_file(
    request: ApiRequest, document_id: PathId, query: Query[schemas.NavindexParams]
) -> HttpResponse:
    # The file's bytes as stored: the min form's exact layout is the point of it.
    data = selectors.navindex_bytes(user=request.auth, document_id=document_id, params=query)
    return HttpResponse(data, content_type="application/json")


# --- search, questions, cost ------------------------------------------------------------------


@api.get(
    "/v1/matters/{matter_id}/search",
    summary="Search the matter's provisions (hybrid by default), with flags as filters",
    description="Example: ?q=termination fee&flags=hasMoney,hasDate. Returns one hit per "
    "provision: its node id, document, a snippet and the score.",
    tags=["search"],
    response={200: schemas.SearchResult, (*E_READ, 429): Err},
)
def search(
    request: ApiRequest, matter_id: PathId, query: Query[schemas.SearchParams]
) -> schemas.SearchResult:
    return matter_search(user=request.auth, matter_id=matter_id, params=query)


@api.post(
    "/v1/matters/{matter_id}/queries",
    summary="Ask a question; returns its id at once (poll GET .../queries/{query_id})",
    tags=["questions"],
    response={202: schemas.QuestionOut, (400, 401, 403, 404, 409, 415, 422, 429, 503): Err},
)
def queries_create(
    request: ApiRequest, response: HttpResponse, matter_id: PathId, body: schemas.AskBody
) -> Status[schemas.QuestionOut]:
    result = writes.question_ask(user=request.auth, matter_id=matter_id, body=body, via=VIA)
    response["Location"] = reverse("api:queries_detail", args=[result.matter_id, result.id])
    return Status(202, result)


@api.get(
    "/v1/matters/{matter_id}/queries",
    summary="The matter's questions, newest first (without answers)",
    tags=["questions"],
    response={200: schemas.QuestionPage, E_READ: Err},
)
def queries_list(
    request: ApiRequest, matter_id: PathId, query: Query[schemas.QuestionListParams]
) -> schemas.Paged:
    page = selectors.query_page(user=request.auth, matter_id=matter_id, params=query)
    return _with_next(request, page)


@api.get(
    "/v1/matters/{matter_id}/queries/{query_id}",
    summary="A question and, once answered, its answer, citations, evidence, validation and cost",
    tags=["questions"],
    response={200: schemas.QuestionOut, (401, 404): Err},
)
def queries_detail(request: ApiRequest, matter_id: PathId, query_id: PathId) -> schemas.QuestionOut:
    return selectors.query_detail(user=request.auth, matter_id=matter_id, query_id=query_id)


@api.post(
    "/v1/matters/{matter_id}/queries/{query_id}/retry",
    summary="Ask a failed, cancelled or stalled question again (counts against the rate limit)",
    tags=["questions"],
    response={202: schemas.QuestionOut, (401, 403, 404, 409, 429, 503): Err},
)
def queries_retry(
    request: ApiRequest, matter_id: PathId, query_id: PathId
) -> Status[schemas.QuestionOut]:
    result = writes.question_retry(
        user=request.auth, matter_id=matter_id, query_id=query_id, via=VIA
    )
    return Status(202, result)


@api.post(
    "/v1/matters/{matter_id}/queries/{query_id}/cancel",
    summary="Cancel a queued or running question",
    tags=["questions"],
    response={200: schemas.QuestionOut, (401, 403, 404, 409): Err},
)
def queries_cancel(request: ApiRequest, matter_id: PathId, query_id: PathId) -> schemas.QuestionOut:
    return writes.question_cancel(
        user=request.auth, matter_id=matter_id, query_id=query_id, via=VIA
    )


# --- review grids ----------------------------------------------------------------------------


@api.post(
    "/v1/matters/{matter_id}/grids",
    summary="Make a review grid (documents x questions) and fill it in the background; poll it",
    tags=["grids"],
    response={202: grids.GridOut, (400, 401, 403, 404, 409, 422, 429, 503): Err},
)
def grids_create(
    request: ApiRequest, response: HttpResponse, matter_id: PathId, body: grids.GridCreateBody
) -> Status[grids.GridOut]:
    result = grids.grid_create(user=request.auth, matter_id=matter_id, body=body, via=VIA)
    response["Location"] = reverse("api:grids_detail", args=[result.matter_id, result.id])
    return Status(202, result)


@api.get(
    "/v1/matters/{matter_id}/grids",
    summary="The matter's review grids, newest first (without documents, columns or cells)",
    tags=["grids"],
    response={200: grids.GridPage, E_READ: Err},
)
def grids_list(
    request: ApiRequest, matter_id: PathId, query: Query[schemas.PageParams]
) -> schemas.Paged:
    page = grids.grid_page(user=request.auth, matter_id=matter_id, params=query)
    return _with_next(request, page)


@api.get(
    "/v1/matters/{matter_id}/grids/{grid_id}",
    summary="A review grid: its job's status and progress (cells done of total), documents, "
    "columns and cost estimate",
    tags=["grids"],
    response={200: grids.GridOut, (401, 404): Err},
)
def grids_detail(request: ApiRequest, matter_id: PathId, grid_id: PathId) -> grids.GridOut:
    return grids.grid_detail(user=request.auth, matter_id=matter_id, grid_id=grid_id)


@api.get(
    "/v1/matters/{matter_id}/grids/{grid_id}/cells",
    summary="A grid's cells: value, quotations with citations and verdicts, confidence, review",
    tags=["grids"],
    response={200: grids.CellPage, E_READ: Err},
)
def grids_cells(
    request: ApiRequest, matter_id: PathId, grid_id: PathId, query: Query[grids.CellListParams]
) -> schemas.Paged:
    page = grids.cell_page(user=request.auth, matter_id=matter_id, grid_id=grid_id, params=query)
    return _with_next(request, page)


@api.post(
    "/v1/matters/{matter_id}/grids/{grid_id}/retry",
    summary="Resume a failed, cancelled or stalled grid: only the missing cells are filled",
    tags=["grids"],
    response={202: grids.GridOut, (401, 403, 404, 409, 503): Err},
)
def grids_retry(request: ApiRequest, matter_id: PathId, grid_id: PathId) -> Status[grids.GridOut]:
    result = grids.grid_retry(user=request.auth, matter_id=matter_id, grid_id=grid_id, via=VIA)
    return Status(202, result)


@api.post(
    "/v1/matters/{matter_id}/grids/{grid_id}/cancel",
    summary="Cancel a queued or running grid (the cells filled so far are kept)",
    tags=["grids"],
    response={200: grids.GridOut, (401, 403, 404, 409): Err},
)
def grids_cancel(request: ApiRequest, matter_id: PathId, grid_id: PathId) -> grids.GridOut:
    return grids.grid_cancel(user=request.auth, matter_id=matter_id, grid_id=grid_id, via=VIA)


# --- playbooks -------------------------------------------------------------------------------


@api.get(
    "/v1/playbooks",
    summary="The firm's playbooks: positions (column, rule, severity, note) and version",
    tags=["playbooks"],
    response={200: playbooks.PlaybookPage, (401, 422): Err},
)
def playbooks_list(request: ApiRequest, query: Query[schemas.PageParams]) -> schemas.Paged:
    return _with_next(request, playbooks.playbook_page(user=request.auth, params=query))


@api.post(
    "/v1/playbooks",
    summary="Write a playbook (staff only)",
    tags=["playbooks"],
    response={201: playbooks.PlaybookOut, (400, 401, 403, 422): Err},
)
def playbooks_create(
    request: ApiRequest, body: playbooks.PlaybookBody
) -> Status[playbooks.PlaybookOut]:
    return Status(201, playbooks.playbook_save(user=request.auth, body=body, via=VIA))


@api.get(
    "/v1/playbooks/{playbook_id}",
    summary="One playbook",
    tags=["playbooks"],
    response={200: playbooks.PlaybookOut, (401, 404): Err},
)
def playbooks_detail(request: ApiRequest, playbook_id: PathId) -> playbooks.PlaybookOut:
    return playbooks.playbook_detail(user=request.auth, playbook_id=playbook_id)


@api.put(
    "/v1/playbooks/{playbook_id}",
    summary="Save a new version of a playbook (staff only)",
    tags=["playbooks"],
    response={200: playbooks.PlaybookOut, (400, 401, 403, 404, 422): Err},
)
def playbooks_update(
    request: ApiRequest, playbook_id: PathId, body: playbooks.PlaybookBody
) -> playbooks.PlaybookOut:
    return playbooks.playbook_save(user=request.auth, body=body, via=VIA, playbook_id=playbook_id)


@api.post(
    "/v1/matters/{matter_id}/playbook-runs",
    summary="Apply a playbook to documents of the matter; poll the run for its deviations",
    tags=["playbooks"],
    response={202: playbooks.RunOut, (400, 401, 403, 404, 409, 422, 429, 503): Err},
)
def playbook_runs_create(
    request: ApiRequest, response: HttpResponse, matter_id: PathId, body: playbooks.ApplyBody
) -> Status[playbooks.RunOut]:
    result = playbooks.playbook_apply(user=request.auth, matter_id=matter_id, body=body, via=VIA)
    response["Location"] = reverse("api:playbook_runs_detail", args=[result.matter_id, result.id])
    return Status(202, result)


@api.get(
    "/v1/matters/{matter_id}/playbook-runs/{run_id}",
    summary="A playbook run: its grid's progress and per position how many documents deviate",
    tags=["playbooks"],
    response={200: playbooks.RunOut, (401, 404): Err},
)
def playbook_runs_detail(
    request: ApiRequest, matter_id: PathId, run_id: PathId
) -> playbooks.RunOut:
    return playbooks.run_detail(user=request.auth, matter_id=matter_id, run_id=run_id)


@api.get(
    "/v1/matters/{matter_id}/playbook-runs/{run_id}/deviations",
    summary="A run's verdicts (meets, deviates, missing, review), high severity first, "
    "each with why and its verbatim quotation",
    tags=["playbooks"],
    response={200: playbooks.VerdictPage, E_READ: Err},
)
def playbook_runs_deviations(
    request: ApiRequest,
    matter_id: PathId,
    run_id: PathId,
    query: Query[playbooks.VerdictParams],
) -> schemas.Paged:
    page = playbooks.deviations(user=request.auth, matter_id=matter_id, run_id=run_id, params=query)
    return _with_next(request, page)


# --- evaluation runs --------------------------------------------------------------------------


@api.get(
    "/v1/evaluation/runs/{run_id}",
    summary="An evaluation run's status (staff, or the user who started it)",
    tags=["evaluation"],
    response={200: schemas.EvaluationRunOut, (401, 404): Err},
)
def evaluation_detail(request: ApiRequest, run_id: PathId) -> schemas.EvaluationRunOut:
    return writes.evaluation_detail(user=request.auth, run_id=run_id)


@api.post(
    "/v1/evaluation/runs/{run_id}/retry",
    summary="Resume an interrupted, failed, cancelled or stalled evaluation run in the background",
    tags=["evaluation"],
    response={202: schemas.EvaluationRunOut, (401, 404, 409, 503): Err},
)
def evaluation_retry(request: ApiRequest, run_id: PathId) -> Status[schemas.EvaluationRunOut]:
    return Status(202, writes.evaluation_retry(user=request.auth, run_id=run_id, via=VIA))


@api.post(
    "/v1/evaluation/runs/{run_id}/cancel",
    summary="Cancel a queued or running evaluation run (what it finished is kept)",
    tags=["evaluation"],
    response={200: schemas.EvaluationRunOut, (401, 404, 409): Err},
)
def evaluation_cancel(request: ApiRequest, run_id: PathId) -> schemas.EvaluationRunOut:
    return writes.evaluation_cancel(user=request.auth, run_id=run_id, via=VIA)


@api.get(
    "/v1/matters/{matter_id}/costs",
    summary="The matter's LLM cost ledger: one row per call, with totals",
    tags=["cost"],
    response={200: schemas.CostLedger, E_READ: Err},
)
def costs(
    request: ApiRequest, matter_id: PathId, query: Query[schemas.LedgerParams]
) -> schemas.Paged:
    page = selectors.cost_ledger(user=request.auth, matter_id=matter_id, params=query)
    return _with_next(request, page)
