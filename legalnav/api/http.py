"""The API's small request machinery: a registry of operations from which both the URL patterns
and the OpenAPI document are made, token authentication, input parsing into pydantic models,
and the one error format.

Every operation is a plain function ``(request, user, **path params, query=..., body=...)``
returning a pydantic model (or None for 204); ``dispatch`` does the rest. No session or cookie
ever authenticates an API request, which is why the views are exempt from CSRF: a browser cannot
be tricked into sending a bearer token it does not have.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
)
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.urls import URLPattern, path
from django.views.decorators.csrf import csrf_exempt
from pydantic import BaseModel, ValidationError

from legalnav.api.errors import ApiError, error_response
from legalnav.api.tokens import api_token_user, bearer_token

logger = logging.getLogger(__name__)

TOKEN_PAGE = "/settings/api-tokens/"

Handler = Callable[..., BaseModel | HttpResponse | bytes | None]


@dataclass
class Operation:
    method: str  # GET, POST, DELETE
    path: str  # OpenAPI form, relative to the prefix: "/matters/{matter_id}"
    handler: Handler
    operation_id: str
    summary: str
    description: str = ""
    tag: str = ""
    query: type[BaseModel] | None = None
    body: type[BaseModel] | None = None  # JSON body, or the form fields of a multipart upload
    multipart_file: str | None = None  # the file field of a multipart upload
    body_required: bool = True
    response: type[BaseModel] | None = None
    raw_json: bool = False  # the handler returns JSON bytes (navindex files)
    status: int = 200
    errors: tuple[int, ...] = ()
    path_types: dict[str, str] = field(default_factory=dict)  # name -> "int" | "str"


class Router:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix.rstrip("/")
        self.operations: list[Operation] = []

    def operation(self, method: str, path: str, **kwargs: Any) -> Callable[[Handler], Handler]:
        def register(fn: Handler) -> Handler:
            params = [part[1:-1] for part in path.split("/") if part.startswith("{")]
            types = {p: ("str" if p == "node_id" else "int") for p in params}
            self.operations.append(
                Operation(
                    method=method,
                    path=path,
                    handler=fn,
                    operation_id=kwargs.pop("operation_id", fn.__name__),
                    path_types=types,
                    **kwargs,
                )
            )
            return fn

        return register

    def get(self, path: str, **kwargs: Any) -> Callable[[Handler], Handler]:
        return self.operation("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Callable[[Handler], Handler]:
        return self.operation("POST", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Callable[[Handler], Handler]:
        return self.operation("DELETE", path, **kwargs)

    def urlpatterns(self, *, mounted_at: str = "/") -> list[URLPattern]:
        """One Django URL per path; the method picks the operation. ``mounted_at`` is where the
        including URLconf puts these patterns ("/api/")."""
        by_path: dict[str, dict[str, Operation]] = {}
        for op in self.operations:
            by_path.setdefault(op.path, {})[op.method] = op
        patterns = []
        for api_path, ops in by_path.items():
            django_path = (self.prefix + api_path).removeprefix(mounted_at)
            for name, kind in next(iter(ops.values())).path_types.items():
                converter = "path" if kind == "str" else "str"
                django_path = django_path.replace("{" + name + "}", f"<{converter}:{name}>")
            view = csrf_exempt(_make_view(ops))
            patterns.append(path(django_path, view, name=next(iter(ops.values())).operation_id))
        return patterns


def _make_view(ops: dict[str, Operation]) -> Callable[..., HttpResponse]:
    allowed = sorted(set(ops) | ({"HEAD"} if "GET" in ops else set()))

    def view(request: HttpRequest, **kwargs: str) -> HttpResponse:
        method = "GET" if request.method == "HEAD" else (request.method or "")
        op = ops.get(method)
        if op is None:
            return error_response(
                405,
                "method_not_allowed",
                f"{request.method} is not allowed here; use {', '.join(allowed)}.",
                headers={"Allow": ", ".join(allowed)},
            )
        response = dispatch(request, op, kwargs)
        if request.method == "HEAD":
            response.content = b""
        return response

    return view


def authenticate(request: HttpRequest) -> object:
    """The user an ``Authorization: Bearer`` token acts for, or ApiError 401."""
    header = request.headers.get("Authorization")
    raw = bearer_token(header)
    challenge = {"WWW-Authenticate": 'Bearer realm="legalnav"'}
    if raw is None:
        raise ApiError(
            401,
            "unauthenticated",
            f"Send an API token as 'Authorization: Bearer <token>'; create one at {TOKEN_PAGE}.",
            headers=challenge,
        )
    found = api_token_user(raw=raw)
    if found is None:
        raise ApiError(
            401,
            "invalid_token",
            "The API token is unknown or has been revoked.",
            headers={"WWW-Authenticate": 'Bearer realm="legalnav", error="invalid_token"'},
        )
    return found.user


def _first_error(exc: ValidationError, where: str) -> tuple[str, str | None]:
    err = exc.errors()[0]
    loc = [str(part) for part in err.get("loc", ()) if not isinstance(part, int)]
    name = loc[0] if loc else None
    msg = str(err.get("msg", "is not valid")).removeprefix("Value error, ")
    if err.get("type") == "missing":
        msg = "is required"
    label = f"'{name}'" if name else where
    return f"{label} {msg[:1].lower()}{msg[1:]}".strip(), name


def _query_dict(request: HttpRequest, model: type[BaseModel]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key in request.GET:
        if key not in model.model_fields:
            continue
        values = request.GET.getlist(key)
        annotation = str(model.model_fields[key].annotation)
        data[key] = values if annotation.startswith("list") else values[-1]
    return data


def _parse_json(request: HttpRequest, op: Operation) -> Any:
    content_type = request.content_type or ""
    body = request.body
    if not body.strip():
        if op.body_required:
            raise ApiError(400, "invalid_request", "Send a JSON body.")
        return {}
    if content_type != "application/json":
        raise ApiError(
            415, "unsupported_media_type", "Send the body as JSON (Content-Type: application/json)."
        )
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise ApiError(400, "malformed_json", "The body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise ApiError(400, "malformed_json", "The body must be a JSON object.")
    return data


def _parse_multipart(request: HttpRequest, op: Operation) -> dict[str, Any]:
    if request.content_type != "multipart/form-data":
        raise ApiError(
            415,
            "unsupported_media_type",
            f"Upload the file as multipart/form-data, in a field named '{op.multipart_file}'.",
        )
    limit = settings.LEGALNAV_MAX_UPLOAD_BYTES
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    # Refuse before reading when the request alone is far past the limit (form overhead aside).
    if declared > limit + 1024 * 1024:
        raise ApiError(
            413,
            "too_large",
            f"The upload is {declared:,} bytes; files are limited to {limit:,} bytes.",
            field=op.multipart_file,
        )
    upload = request.FILES.get(op.multipart_file or "")
    if upload is None:
        raise ApiError(
            422, "invalid", f"'{op.multipart_file}' is required.", field=op.multipart_file
        )
    if upload.size is not None and upload.size > limit:
        raise ApiError(
            413,
            "too_large",
            f"“{upload.name}” is {upload.size:,} bytes; files are limited to {limit:,} bytes.",
            field=op.multipart_file,
        )
    form = {k: v for k, v in request.POST.items() if v != ""}
    return {"__file__": upload, **form}


def dispatch(request: HttpRequest, op: Operation, path_args: dict[str, str]) -> HttpResponse:
    try:
        user = authenticate(request)
        kwargs: dict[str, Any] = dict(path_args)
        if op.query is not None:
            try:
                kwargs["query"] = op.query.model_validate(_query_dict(request, op.query))
            except ValidationError as exc:
                message, name = _first_error(exc, "the query")
                raise ApiError(422, "invalid", message, field=name) from None
        if op.body is not None:
            if op.multipart_file:
                form = _parse_multipart(request, op)
                kwargs["upload"] = form.pop("__file__")
                data: Any = form
            else:
                data = _parse_json(request, op)
            try:
                kwargs["body"] = op.body.model_validate(data)
            except ValidationError as exc:
                message, name = _first_error(exc, "the body")
                raise ApiError(422, "invalid", message, field=name) from None
        result = op.handler(request, user, **kwargs)
    except ApiError as exc:
        return error_response(
            exc.status, exc.code, exc.message, field=exc.field, headers=exc.headers
        )
    except Http404 as exc:
        return error_response(404, "not_found", str(exc) or "Not found.")
    except PermissionDenied as exc:
        return error_response(
            403, "forbidden", str(exc) or "Your role does not allow this in this matter."
        )
    except RequestDataTooBig:
        return error_response(413, "too_large", "The request body is too large.")
    except (TooManyFieldsSent, MultiPartParserError, SuspiciousOperation) as exc:
        return error_response(400, "invalid_request", f"The request could not be read ({exc}).")
    return render(op, result)


def render(op: Operation, result: BaseModel | HttpResponse | bytes | None) -> HttpResponse:
    if isinstance(result, HttpResponse):
        return result
    if result is None:
        return HttpResponse(status=204)
    if isinstance(result, bytes):
        return HttpResponse(result, status=op.status, content_type="application/json")
    data = result.model_dump(mode="json")
    return JsonResponse(_finite(data), status=op.status, json_dumps_params={"ensure_ascii": False})


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: a score that is not a number is sent as 0."""
    if isinstance(value, float) and not math.isfinite(value):
        return 0.0
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
