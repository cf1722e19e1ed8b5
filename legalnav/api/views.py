"""The JSON API's operations. Each parses nothing itself (``http.dispatch`` validated the input into
pydantic models), calls one selector or service, and returns its model. The OpenAPI document at
/api/openapi.json is generated from these registrations.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse

from legalnav.api import schemas, selectors, services
from legalnav.api.http import Router
from legalnav.api.search import matter_search

api = Router(prefix="/api/v1")

VIA = "api"
E_READ = (401, 404, 422)  # a read: no token, unknown id / not a member, bad query


def _with_next(request: HttpRequest, page: schemas.Paged) -> schemas.Paged:
    """The page with the absolute URL of the next one (same filters, next offset)."""
    if page.next_offset is not None:
        params = request.GET.copy()
        params["offset"] = str(page.next_offset)
        params["limit"] = str(page.limit)
        page.next = request.build_absolute_uri(f"{request.path}?{urlencode(params, doseq=True)}")
    return page


# --- matters ----------------------------------------------------------------------------------


@api.get(
    "/matters",
    summary="List the matters you can see",
    tag="matters",
    query=schemas.PageParams,
    response=schemas.MatterPage,
    errors=(401, 422),
)
def matters_list(request: HttpRequest, user: object, query: schemas.PageParams) -> schemas.Paged:
    return _with_next(request, selectors.matter_page(user=user, params=query))


@api.get(
    "/matters/{matter_id}",
    summary="One matter",
    tag="matters",
    response=schemas.MatterOut,
    errors=(401, 404),
)
def matters_detail(request: HttpRequest, user: object, matter_id: str) -> schemas.MatterOut:
    return selectors.matter_detail(user=user, matter_id=matter_id)


# --- documents --------------------------------------------------------------------------------


@api.get(
    "/matters/{matter_id}/documents",
    summary="List a matter's documents with their indexing status",
    tag="documents",
    query=schemas.DocumentListParams,
    response=schemas.DocumentPage,
    errors=E_READ,
)
def documents_list(
    request: HttpRequest, user: object, matter_id: str, query: schemas.DocumentListParams
) -> schemas.Paged:
    return _with_next(
        request, selectors.document_page(user=user, matter_id=matter_id, params=query)
    )


@api.post(
    "/matters/{matter_id}/documents",
    summary="Upload a document (multipart/form-data) and queue it for indexing",
    description="The file goes in the field 'file' (.txt, .htm, .html, .pdf or .docx, up to "
    "LEGALNAV_MAX_UPLOAD_BYTES). Editors and owners only. Uploading the same bytes again "
    "returns the existing document with created=false. Poll the document for its status.",
    tag="documents",
    body=schemas.UploadForm,
    multipart_file="file",
    response=schemas.UploadOut,
    status=201,
    errors=(400, 401, 403, 404, 413, 415, 422, 503),
)
def documents_upload(
    request: HttpRequest,
    user: object,
    matter_id: str,
    body: schemas.UploadForm,
    upload: object,
) -> HttpResponse:
    data = upload.read()  # type: ignore[attr-defined]
    result = services.document_upload(
        user=user,
        matter_id=matter_id,
        filename=upload.name or "document",  # type: ignore[attr-defined]
        data=data,
        form=body,
        via=VIA,
    )
    response = JsonResponse(result.model_dump(mode="json"), status=201 if result.created else 200)
    response["Location"] = reverse("api:documents_detail", args=[result.document.id])
    return response


@api.get(
    "/documents/{document_id}",
    summary="One document: metadata and indexing status (poll this after an upload)",
    tag="documents",
    response=schemas.DocumentOut,
    errors=(401, 404),
)
def documents_detail(request: HttpRequest, user: object, document_id: str) -> schemas.DocumentOut:
    return selectors.document_detail(user=user, document_id=document_id)


@api.delete(
    "/documents/{document_id}",
    summary="Delete a document with its nodes, vectors and navindex files",
    tag="documents",
    status=204,
    errors=(401, 403, 404),
)
def documents_delete(request: HttpRequest, user: object, document_id: str) -> None:
    services.document_remove(user=user, document_id=document_id, via=VIA)


@api.post(
    "/documents/{document_id}/reindex",
    summary="Queue a document for indexing again",
    description='The body is optional; {"force": true} rebuilds an unchanged document.',
    tag="documents",
    body=schemas.ReindexBody,
    body_required=False,
    response=schemas.ReindexOut,
    status=202,
    errors=(400, 401, 403, 404, 415, 422, 503),
)
def documents_reindex(
    request: HttpRequest, user: object, document_id: str, body: schemas.ReindexBody
) -> schemas.ReindexOut:
    return services.document_requeue(user=user, document_id=document_id, force=body.force, via=VIA)


@api.post(
    "/documents/{document_id}/cancel",
    summary="Stop indexing a document (queued, indexing or stalled)",
    description="A document indexed before keeps the clauses of its last completed run.",
    tag="documents",
    response=schemas.DocumentOut,
    errors=(401, 403, 404, 409),
)
def documents_cancel(request: HttpRequest, user: object, document_id: str) -> schemas.DocumentOut:
    return services.document_stop(user=user, document_id=document_id, via=VIA)


@api.get(
    "/documents/{document_id}/nodes",
    summary="The document's clause tree (no text)",
    tag="nodes",
    response=schemas.NodeTree,
    errors=(401, 404),
)
def nodes_tree(request: HttpRequest, user: object, document_id: str) -> schemas.NodeTree:
    return selectors.node_tree(user=user, document_id=document_id)


@api.get(
    "/documents/{document_id}/nodes/{node_id}",
    summary="One node, verbatim, optionally with what it cross-references and its definitions",
    tag="nodes",
    query=schemas.NodeParams,
    response=schemas.Provisions,
    errors=E_READ,
)
def nodes_detail(
    request: HttpRequest,
    user: object,
    document_id: str,
    node_id: str,
    query: schemas.NodeParams,
) -> schemas.Provisions:
    return selectors.node_detail(user=user, document_id=document_id, node_id=node_id, params=query)


@api.get(
    "/documents/{document_id}/navindex",
    summary="A navindex file of the document (index or full; readable or token-optimised)",
    tag="nodes",
    query=schemas.NavindexParams,
    raw_json=True,
    errors=(401, 404, 409, 422),
)
def navindex_file(
    request: HttpRequest, user: object, document_id: str, query: schemas.NavindexParams
) -> bytes:
    return selectors.navindex_bytes(user=user, document_id=document_id, params=query)


# --- search, questions, cost ------------------------------------------------------------------


@api.get(
    "/matters/{matter_id}/search",
    summary="Search the matter's provisions (hybrid by default), with flags as filters",
    description="Example: ?q=termination fee&flags=hasMoney,hasDate. Returns one hit per "
    "provision: its node id, document, a snippet and the score.",
    tag="search",
    query=schemas.SearchParams,
    response=schemas.SearchResult,
    errors=E_READ,
)
def search(
    request: HttpRequest, user: object, matter_id: str, query: schemas.SearchParams
) -> schemas.SearchResult:
    return matter_search(user=user, matter_id=matter_id, params=query)


@api.post(
    "/matters/{matter_id}/queries",
    summary="Ask a question; returns its id at once (poll GET .../queries/{query_id})",
    tag="questions",
    body=schemas.AskBody,
    response=schemas.QueryOut,
    status=202,
    errors=(400, 401, 403, 404, 415, 422, 429, 503),
)
def queries_create(
    request: HttpRequest, user: object, matter_id: str, body: schemas.AskBody
) -> HttpResponse:
    result = services.question_ask(user=user, matter_id=matter_id, body=body, via=VIA)
    response = JsonResponse(result.model_dump(mode="json"), status=202)
    response["Location"] = reverse("api:queries_detail", args=[result.matter_id, result.id])
    return response


@api.get(
    "/matters/{matter_id}/queries",
    summary="The matter's questions, newest first (without answers)",
    tag="questions",
    query=schemas.QueryListParams,
    response=schemas.QueryPage,
    errors=E_READ,
)
def queries_list(
    request: HttpRequest, user: object, matter_id: str, query: schemas.QueryListParams
) -> schemas.Paged:
    return _with_next(request, selectors.query_page(user=user, matter_id=matter_id, params=query))


@api.get(
    "/matters/{matter_id}/queries/{query_id}",
    summary="A question and, once answered, its answer, citations, evidence, validation and cost",
    tag="questions",
    response=schemas.QueryOut,
    errors=(401, 404),
)
def queries_detail(
    request: HttpRequest, user: object, matter_id: str, query_id: str
) -> schemas.QueryOut:
    return selectors.query_detail(user=user, matter_id=matter_id, query_id=query_id)


@api.post(
    "/matters/{matter_id}/queries/{query_id}/retry",
    summary="Ask a failed, cancelled or stalled question again (counts against the rate limit)",
    tag="questions",
    response=schemas.QueryOut,
    status=202,
    errors=(401, 403, 404, 409, 429, 503),
)
def queries_retry(
    request: HttpRequest, user: object, matter_id: str, query_id: str
) -> schemas.QueryOut:
    return services.question_retry(user=user, matter_id=matter_id, query_id=query_id, via=VIA)


@api.post(
    "/matters/{matter_id}/queries/{query_id}/cancel",
    summary="Stop a queued or running question",
    tag="questions",
    response=schemas.QueryOut,
    errors=(401, 403, 404, 409),
)
def queries_cancel(
    request: HttpRequest, user: object, matter_id: str, query_id: str
) -> schemas.QueryOut:
    return services.question_stop(user=user, matter_id=matter_id, query_id=query_id, via=VIA)


# --- evaluation runs --------------------------------------------------------------------------


@api.get(
    "/evaluation/runs/{run_id}",
    summary="An evaluation run's status (staff, or the user who started it)",
    tag="evaluation",
    response=schemas.EvaluationRunOut,
    errors=(401, 404),
)
def evaluation_detail(request: HttpRequest, user: object, run_id: str) -> schemas.EvaluationRunOut:
    return services.evaluation_detail(user=user, run_id=run_id)


@api.post(
    "/evaluation/runs/{run_id}/retry",
    summary="Resume an interrupted, failed, cancelled or stalled evaluation run in the background",
    tag="evaluation",
    response=schemas.EvaluationRunOut,
    status=202,
    errors=(401, 404, 409, 503),
)
def evaluation_retry(request: HttpRequest, user: object, run_id: str) -> schemas.EvaluationRunOut:
    return services.evaluation_retry(user=user, run_id=run_id, via=VIA)


@api.post(
    "/evaluation/runs/{run_id}/cancel",
    summary="Stop a queued or running evaluation run (what it finished is kept)",
    tag="evaluation",
    response=schemas.EvaluationRunOut,
    errors=(401, 404, 409),
)
def evaluation_cancel(request: HttpRequest, user: object, run_id: str) -> schemas.EvaluationRunOut:
    return services.evaluation_stop(user=user, run_id=run_id, via=VIA)


@api.get(
    "/matters/{matter_id}/costs",
    summary="The matter's LLM cost ledger: one row per call, with totals",
    tag="cost",
    query=schemas.LedgerParams,
    response=schemas.CostLedger,
    errors=E_READ,
)
def costs(
    request: HttpRequest, user: object, matter_id: str, query: schemas.LedgerParams
) -> schemas.Paged:
    return _with_next(request, selectors.cost_ledger(user=user, matter_id=matter_id, params=query))
