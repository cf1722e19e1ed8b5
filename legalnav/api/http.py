"""How the JSON API speaks HTTP, on Django Ninja: the ``api`` object the operations of ``views``
register on, bearer-token authentication, JSON bodies, the renderer, and the exception handlers
that give every refusal the one error format of ``errors``.

No session or cookie ever authenticates an API request, which is why Ninja's views may be exempt
from CSRF: a browser cannot be tricked into sending a bearer token it does not have.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
)
from django.http import Http404, HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError, ValidationErrorContext
from ninja.openapi.schema import OpenAPISchema
from ninja.operation import Operation
from ninja.parser import Parser
from ninja.renderers import JSONRenderer
from ninja.security import HttpBearer
from ninja.signature.details import is_pydantic_model
from pydantic_core import to_jsonable_python

from legalnav.api.errors import ApiError, error_response
from legalnav.api.tokens import TokenInvalid, api_token_authenticate, bearer_token
from legalnav.core.uploads import files_left_out, upload_refusal
from legalnav.matters.access import MatterClosed

TOKEN_PAGE = "/settings/api-tokens/"
UPLOAD_FIELD = "file"  # the file field of a document upload

# --- authentication ---------------------------------------------------------------------------


class ApiRequest(HttpRequest):
    """A request to an operation: Ninja sets ``auth`` to the token's user (``BearerToken``)."""

    auth: Any


class BearerToken(HttpBearer):
    """``Authorization: Bearer <API token>``: the token's user, or a 401 that tells "no token"
    from "a token that does not work".

    ``then`` runs once the token is accepted and before Ninja reads the body: Ninja parses every
    argument of a view before calling it, and its authentication is the only step in between
    (see ``upload_checks``).
    """

    def __init__(self, *, then: Callable[[HttpRequest], None] | None = None) -> None:
        super().__init__()
        self.then = then

    def __call__(self, request: HttpRequest) -> object | None:
        # tokens.bearer_token, not Ninja's splitting: "Bearer " alone is no token, and spaces
        # around the token are allowed.
        raw = bearer_token(request.headers.get("Authorization"))
        if raw is None:
            return None  # Ninja raises AuthenticationError: see _unauthenticated
        user = self.authenticate(request, raw)
        if self.then is not None:
            self.then(request)
        return user

    def authenticate(self, request: HttpRequest, token: str) -> object:
        # The user returned carries its token (tokens.acting_token): the writes (``api.writes``) hold it
        # to the token's scope (tokens.token_require_write), for this door and MCP alike.
        try:
            found = api_token_authenticate(raw=token)
        except TokenInvalid as exc:  # unknown, revoked or expired: the message says which
            raise ApiError(
                401,
                "invalid_token",
                str(exc),
                headers={"WWW-Authenticate": 'Bearer realm="legalnav", error="invalid_token"'},
            ) from None
        return found.user


def upload_checks(request: HttpRequest) -> None:
    """Refuse an upload before its form is parsed: not multipart (415), a request far past the
    size limit, by its Content-Length and before reading it (413), a file stopped past the limit
    while it streamed in (413), no file (422), a file over the limit (413)."""
    _upload_checks(request, settings.LEGALNAV_MAX_UPLOAD_BYTES)


def archive_upload_checks(request: HttpRequest) -> None:
    """As ``upload_checks``, for a data room's zip: its own size limit, and a .zip it must be."""
    _upload_checks(request, settings.LEGALNAV_MAX_ZIP_UPLOAD_BYTES)
    upload = request.FILES[UPLOAD_FIELD]
    if not (upload.name or "").lower().rstrip(". ").endswith(".zip"):
        raise ApiError(
            415,
            "unknown_type",
            f"“{upload.name}” is not a .zip; send a single document to "
            "POST /v1/matters/{matter_id}/documents.",
            field=UPLOAD_FIELD,
        )


def _upload_checks(request: HttpRequest, limit: int) -> None:
    if request.content_type != "multipart/form-data":
        raise ApiError(
            415,
            "unsupported_media_type",
            f"Upload the file as multipart/form-data, in a field named '{UPLOAD_FIELD}'.",
        )
    refused = upload_refusal(request)  # the ASGI handler stopped reading a body past its bound
    if refused is not None:
        raise ApiError(413, "too_large", refused, field=UPLOAD_FIELD)
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit + 1024 * 1024:  # the form's own overhead aside
        raise ApiError(
            413,
            "too_large",
            f"The upload is {declared:,} bytes; files are limited to {limit:,} bytes.",
            field=UPLOAD_FIELD,
        )
    upload = request.FILES.get(UPLOAD_FIELD)
    # Found too large while it streamed in (a chunked body has no Content-Length to check).
    refused = upload_refusal(request) or next(iter(files_left_out(request)), None)
    if refused is not None:
        raise ApiError(413, "too_large", refused, field=UPLOAD_FIELD)
    if upload is None:
        raise ApiError(422, "invalid", f"'{UPLOAD_FIELD}' is required.", field=UPLOAD_FIELD)
    if upload.size is not None and upload.size > limit:
        raise ApiError(
            413,
            "too_large",
            f"“{upload.name}” is {upload.size:,} bytes; files are limited to {limit:,} bytes.",
            field=UPLOAD_FIELD,
        )


# --- bodies in, JSON out ----------------------------------------------------------------------


class JsonBody(Parser):
    """A JSON body is an object sent as application/json. A blank body is None: valid where the
    body is optional, "Send a JSON body." where it is required (see _invalid)."""

    def parse_body(self, request: HttpRequest) -> Any:
        # Ninja turns what this raises into HttpError(400) with it as the cause: see _http_error.
        body = request.body
        if not body.strip():
            return None
        if request.content_type != "application/json":
            raise ApiError(
                415,
                "unsupported_media_type",
                "Send the body as JSON (Content-Type: application/json).",
            )
        try:
            data = json.loads(body)
        except (UnicodeDecodeError, ValueError):
            raise ApiError(400, "malformed_json", "The body is not valid JSON.") from None
        if not isinstance(data, dict):
            raise ApiError(400, "malformed_json", "The body must be a JSON object.")
        return data


class JsonOut(JSONRenderer):
    """Ninja dumps response models in Python mode: serialise what is left (datetimes, decimals)
    the way pydantic does in JSON mode, not Django's way (which cuts microseconds), and keep
    non-ASCII text as it is."""

    def render(self, request: HttpRequest, data: Any, *, response_status: int) -> str:
        return json.dumps(_finite(to_jsonable_python(data)), ensure_ascii=False)


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: a score that is not a number is sent as 0."""
    if isinstance(value, float) and not math.isfinite(value):
        return 0.0
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


# --- errors -----------------------------------------------------------------------------------


def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return error_response(exc.status, exc.code, exc.message, field=exc.field, headers=exc.headers)


def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return error_response(
        401,
        "unauthenticated",
        f"Send an API token as 'Authorization: Bearer <token>'; create one at {TOKEN_PAGE}.",
        headers={"WWW-Authenticate": 'Bearer realm="legalnav"'},
    )


def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    if isinstance(exc.__cause__, ApiError):  # JsonBody refused the body
        return _api_error(request, exc.__cause__)
    return error_response(exc.status_code, "invalid_request", str(exc))


def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """The first error, as '<field>' <pydantic's message>, naming the field."""
    err = exc.errors[0]
    source, *path = err["loc"]
    if source == "body" and not path:  # no body at all (JsonBody read it as None)
        return error_response(400, "invalid_request", "Send a JSON body.")
    names = [str(part) for part in path if not isinstance(part, int)]
    name = names[0] if names else None
    msg = str(err.get("msg") or "is not valid").removeprefix("Value error, ")
    if err.get("type") == "missing":
        msg = "is required"
    label = f"'{name}'" if name else ("the query" if source in ("query", "path") else "the body")
    message = f"{label} {msg[:1].lower()}{msg[1:]}".strip()
    return error_response(422, "invalid", message, field=name)


def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return error_response(404, "not_found", str(exc) or "Not found.")


def _forbidden(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    message = str(exc) or "Your role does not allow this in this matter."
    return error_response(403, "forbidden", message)


def _closed(request: HttpRequest, exc: MatterClosed) -> HttpResponse:
    return error_response(409, "matter_closed", str(exc))


def _too_large(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return error_response(413, "too_large", "The request body is too large.")


def _unreadable(request: HttpRequest, exc: Exception) -> HttpResponse:
    return error_response(400, "invalid_request", f"The request could not be read ({exc}).")


# Looked up by the exception's class and then its bases (RequestDataTooBig and TooManyFieldsSent
# are SuspiciousOperations; AuthenticationError is an HttpError).
HANDLERS: dict[type[Exception], Callable[[HttpRequest, Any], HttpResponse]] = {
    ApiError: _api_error,
    AuthenticationError: _unauthenticated,
    HttpError: _http_error,
    ValidationError: _invalid,
    Http404: _not_found,
    MatterClosed: _closed,
    PermissionDenied: _forbidden,
    RequestDataTooBig: _too_large,
    TooManyFieldsSent: _unreadable,
    MultiPartParserError: _unreadable,
    SuspiciousOperation: _unreadable,
}

# --- the OpenAPI document ---------------------------------------------------------------------

STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "Accepted",
    204: "No content",
    400: "Malformed request (not JSON, unreadable form)",
    401: "No token, or an unknown, revoked or expired token",
    403: "Your role in the matter does not allow this, or the token is read-only",
    404: "No such item, or not in a matter you are a member of",
    409: "Not in a state for this (not indexed yet; nothing to retry or cancel; the matter is closed)",
    413: "The upload is over the size limit",
    415: "Unsupported content type or file type",
    422: "A parameter or field is not valid (the error names it)",
    429: "Over a rate limit or a spending cap; the error says which (see Retry-After)",
    503: "A service is unavailable: the task queue (what was sent is kept as failed; see Retry-After), or a store a purge must reach (run it again)",
}

TAGS = [
    ("matters", "Matters you are a member of"),
    ("documents", "Uploading, indexing status, re-indexing and deleting documents"),
    ("nodes", "The clause tree, single provisions verbatim, and the navindex files"),
    ("search", "Hybrid search over a matter's provisions"),
    ("questions", "Asking questions; answers with citations, evidence, validation and cost"),
    ("evaluation", "Evaluation runs: status, resume and cancel"),
    ("cost", "The LLM call ledger"),
]


def _plain(schema: dict[str, Any]) -> None:
    """A parameter, form field or optional body ``X | None`` is documented as X: absent means
    none (and a JSON null is not what to send)."""
    options = schema.pop("anyOf", None)
    if options:
        kept = [o for o in options if o.get("type") != "null"]
        if len(kept) == 1:
            schema.update(kept[0])
        else:
            schema["anyOf"] = kept
    schema.pop("title", None)


class LegalnavAPI(NinjaAPI):
    def get_content_type(self) -> str:
        return "application/json"  # without Ninja's "; charset=utf-8": JSON is UTF-8

    def get_openapi_operation_id(self, operation: Operation) -> str:
        return operation.view_func.__name__

    def set_default_exception_handlers(self) -> None:
        # Ours instead of Ninja's {"detail": ...} ones. Any other exception is a server error
        # that Django reports, rather than Ninja's plain-text traceback under DEBUG.
        for exc_class, handler in HANDLERS.items():
            self.add_exception_handler(exc_class, handler)

    def validation_error_from_error_contexts(
        self, error_contexts: list[ValidationErrorContext]
    ) -> ValidationError:
        # Each error located as (source, field, ...). Ninja also puts the view argument's name
        # after the source, except for the fields of query and form models it flattened.
        errors = []
        for context in error_contexts:
            model = context.model
            for err in context.pydantic_validation_error.errors(include_url=False):
                loc = err["loc"]
                argument = model.model_fields.get(str(loc[0])) if loc else None
                if argument is not None and is_pydantic_model(argument.annotation):
                    loc = loc[1:]
                source = model.__ninja_param_source__
                errors.append({"loc": (source, *loc), "msg": err["msg"], "type": err["type"]})
        return ValidationError(errors)

    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> OpenAPISchema:
        """Ninja's document, plus what it cannot say: one bearer scheme for every operation, what
        each status means here, comma-separated lists, parameters, form fields and bodies that
        are optional rather than "X or null", and no schemas of the parameter models it took
        apart."""
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        for operations in schema["paths"].values():
            for operation in operations.values():
                operation.pop("security", None)
                for status, response in operation["responses"].items():
                    response["description"] = STATUS_TEXT.get(int(status), "OK")
                for param in operation["parameters"]:
                    _plain(param["schema"])
                    if "description" in param:
                        del param["schema"]["description"]
                    if param["schema"].get("type") == "array":
                        param["style"] = "form"
                        param["explode"] = False  # flags=hasMoney,hasDate
                for content in operation.get("requestBody", {}).get("content", {}).values():
                    _plain(content["schema"])
                    for field in content["schema"].get("properties", {}).values():
                        _plain(field)
        if not schema.get("servers"):
            schema.pop("servers", None)
        components = schema["components"]
        components["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        used = _refs(schema["paths"])
        while more := _refs([components["schemas"][name] for name in used]) - used:
            used |= more
        components["schemas"] = {k: v for k, v in components["schemas"].items() if k in used}
        return schema


def _refs(value: Any) -> set[str]:
    """The names of the component schemas that ``value`` refers to."""
    if isinstance(value, dict):
        found = {value["$ref"].rsplit("/", 1)[-1]} if isinstance(value.get("$ref"), str) else set()
        return found.union(*(_refs(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_refs(v) for v in value))
    return set()


def get_or_head(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The OpenAPI document is read with GET (or HEAD); anything else is a 405 in our format."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return error_response(
                405, "method_not_allowed", "Use GET.", headers={"Allow": "GET, HEAD"}
            )
        return view(request, *args, **kwargs)

    return wrapper


api = LegalnavAPI(
    title="legalnav API",
    version="1",
    description="Matters, documents, the clause index, search, questions and cost, for the "
    "matters the token's user is a member of. Authenticate with 'Authorization: Bearer <token>' "
    f"(tokens: {TOKEN_PAGE}). Errors are "
    '{"error": {"code", "message", "field"}}.',
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url=None,  # Ninja's docs page loads Swagger UI from a CDN
    docs_decorator=get_or_head,
    auth=BearerToken(),
    parser=JsonBody(),
    renderer=JsonOut(),
    openapi_extra={
        "tags": [{"name": name, "description": text} for name, text in TAGS],
        "security": [{"bearer": []}],
    },
)
