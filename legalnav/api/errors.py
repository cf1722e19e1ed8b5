"""The one error shape of the API: ``{"error": {"code", "message", "field"}}``.

Services and selectors raise ``ApiError`` (or Django's ``Http404`` / ``PermissionDenied`` from
``matters.access``); the API turns each into a response with a fitting status, and the MCP server
into a tool error with the same message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import JsonResponse

if TYPE_CHECKING:
    from legalnav.answers.spend import SpendDecision
    from legalnav.core.limits import RateDecision


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers or {}


def error_body(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "field": field}}


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    field: str | None = None,
    headers: dict[str, str] | None = None,
) -> JsonResponse:
    response = JsonResponse(error_body(code, message, field), status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def not_found(what: str = "resource") -> ApiError:
    return ApiError(404, "not_found", f"No such {what}.")


def rate_limited(decision: RateDecision | SpendDecision) -> ApiError:
    """A rate limit ("rate_limited") or a spending cap ("spend_capped"): 429, Retry-After."""
    return ApiError(
        429,
        decision.code,
        decision.message,
        headers={"Retry-After": str(decision.retry_after)},
    )


# The largest primary key any supported database stores (a signed 64-bit integer). A larger id in
# a URL is simply not found: passed on, SQLite would raise OverflowError (a server error).
MAX_ID = 2**63 - 1


def parse_id(value: object, what: str) -> int:
    """A primary key from a URL or argument, or ApiError 404 when it cannot be one."""
    text = str(value)
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        raise not_found(what)
    number = int(text)
    if not 1 <= number <= MAX_ID:
        raise not_found(what)
    return number
