"""The OpenAPI 3.1 document, built from the registered operations and their pydantic models, so
that it describes exactly what the views accept and return."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from legalnav.api.errors import MAX_ID
from legalnav.api.http import Operation, Router
from legalnav.api.schemas import ErrorBody

REF = "#/components/schemas/{model}"

STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "Accepted",
    204: "No content",
    400: "Malformed request (not JSON, unreadable form)",
    401: "No token, or an unknown or revoked token",
    403: "Your role in the matter does not allow this",
    404: "No such item, or not in a matter you are a member of",
    409: "Not in a state for this (not indexed yet; nothing to retry or cancel)",
    413: "The upload is over the size limit",
    415: "Unsupported content type or file type",
    422: "A parameter or field is not valid (the error names it)",
    429: "Too many questions in the last minute (see Retry-After)",
    503: "The task queue is unavailable; what was sent is kept as failed (see Retry-After)",
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


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    """A field schema for a query or form parameter: ``X | None`` as X (absent means none)."""
    schema = copy.deepcopy(schema)
    options = schema.pop("anyOf", None)
    if options:
        kept = [o for o in options if o.get("type") != "null"]
        if len(kept) == 1:
            schema.update(kept[0])
        else:
            schema["anyOf"] = kept
    if schema.get("default", 0) is None:
        del schema["default"]
    schema.pop("title", None)
    return schema


def _fields(model: type[BaseModel]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    schema = model.model_json_schema(ref_template=REF, mode="validation")
    props = {name: _plain(s) for name, s in schema.get("properties", {}).items()}
    return props, list(schema.get("required", []))


def _parameters(op: Operation) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = []
    for name, kind in op.path_types.items():
        schema: dict[str, Any] = (
            {"type": "string", "minLength": 1}
            if kind == "str"
            else {"type": "integer", "minimum": 1, "maximum": MAX_ID}
        )
        params.append({"name": name, "in": "path", "required": True, "schema": schema})
    if op.query is not None:
        props, required = _fields(op.query)
        for name, schema in props.items():
            param: dict[str, Any] = {
                "name": name,
                "in": "query",
                "required": name in required,
                "schema": schema,
            }
            if description := schema.pop("description", None):
                param["description"] = description
            if schema.get("type") == "array":
                param["style"] = "form"
                param["explode"] = False  # flags=hasMoney,hasDate
            params.append(param)
    return params


def _request_body(op: Operation, refs: dict[Any, dict[str, Any]]) -> dict[str, Any] | None:
    if op.body is None:
        return None
    if op.multipart_file:
        props, required = _fields(op.body)
        schema = {
            "type": "object",
            "properties": {op.multipart_file: {"type": "string", "format": "binary"}, **props},
            "required": [op.multipart_file, *required],
        }
        return {"required": True, "content": {"multipart/form-data": {"schema": schema}}}
    return {
        "required": op.body_required,
        "content": {"application/json": {"schema": refs[(op.body, "validation")]}},
    }


def _responses(op: Operation, refs: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    statuses = [op.status]
    if op.multipart_file:
        statuses.append(200)  # the same file again: the existing document
    for status in statuses:
        entry: dict[str, Any] = {"description": STATUS_TEXT.get(status, "OK")}
        if op.response is not None:
            entry["content"] = {
                "application/json": {"schema": refs[(op.response, "serialization")]}
            }
        elif op.raw_json:
            entry["content"] = {"application/json": {"schema": {"type": "object"}}}
        responses[str(status)] = entry
    error = {"application/json": {"schema": refs[(ErrorBody, "serialization")]}}
    for status in op.errors:
        responses[str(status)] = {"description": STATUS_TEXT[status], "content": error}
    return responses


def build_openapi(router: Router) -> dict[str, Any]:
    keys: list[tuple[type[BaseModel], Any]] = [(ErrorBody, "serialization")]
    for op in router.operations:
        if op.body is not None and not op.multipart_file:
            keys.append((op.body, "validation"))
        if op.response is not None:
            keys.append((op.response, "serialization"))
    keys = list(dict.fromkeys(keys))
    refs, top = models_json_schema(keys, ref_template=REF)
    paths: dict[str, dict[str, Any]] = {}
    for op in router.operations:
        operation: dict[str, Any] = {
            "operationId": op.operation_id,
            "summary": op.summary,
            "tags": [op.tag] if op.tag else [],
            "parameters": _parameters(op),
            "responses": _responses(op, refs),
        }
        if op.description:
            operation["description"] = op.description
        body = _request_body(op, refs)
        if body is not None:
            operation["requestBody"] = body
        paths.setdefault(router.prefix + op.path, {})[op.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "legalnav API",
            "version": "1",
            "description": "Matters, documents, the clause index, search, questions and cost, "
            "for the matters the token's user is a member of. Authenticate with "
            "'Authorization: Bearer <token>' (tokens: /settings/api-tokens/). Errors are "
            '{"error": {"code", "message", "field"}}.',
        },
        "tags": [{"name": name, "description": text} for name, text in TAGS],
        "paths": paths,
        "components": {
            "schemas": top.get("$defs", {}),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }


@cache
def openapi_document() -> dict[str, Any]:
    from legalnav.api.views import api

    return build_openapi(api)
