"""Query counts pinned on the API's and MCP's lists, as they are on the pages: a list costs the
same number of queries whether it holds two rows or eight.

MCP runs tools in worker threads with connections of their own, so queries are counted on every
connection (a class-level wrapper around cursor execution), not just the test's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db.backends import utils
from django.test import Client
from mcp import Client as McpClient

from legalnav.answers.models import Question
from legalnav.api.tokens import api_token_create
from legalnav.documents.services import document_add
from legalnav.llm.models import LLMCall
from legalnav.matters.models import Membership
from legalnav.mcp.server import build_server
from tests.conftest import MatterFactory, MembershipFactory, UserFactory
from tests.mcp.conftest import run


class Counter:
    def __init__(self) -> None:
        self.sql: list[str] = []

    def __len__(self) -> int:
        return len(self.sql)


@contextmanager
def counted() -> Iterator[Counter]:
    counter = Counter()
    real = utils.CursorWrapper._execute_with_wrappers  # noqa: SLF001

    def counting(self, sql, params, many, executor):  # noqa: ANN001, ANN202
        counter.sql.append(sql)
        return real(self, sql, params, many, executor)

    utils.CursorWrapper._execute_with_wrappers = counting  # noqa: SLF001
    try:
        yield counter
    finally:
        utils.CursorWrapper._execute_with_wrappers = real  # noqa: SLF001


def grow(user, size: int):  # noqa: ANN001, ANN201
    """``size`` matters of ``user``'s, the first holding ``size`` documents, questions and
    ledger rows."""
    first = None
    for i in range(size):
        matter = MatterFactory(name=f"Matter {i}")
        MembershipFactory(matter=matter, user=user, role=Membership.Role.OWNER)
        first = first or matter
    assert first is not None
    for i in range(size):
        document_add(
            matter=first,
            filename=f"d{i}.txt",
            data=f"1. Term {i}.\nText.\n".encode(),
            enqueue=False,
        )
        query = Question.objects.create(matter=first, question=f"Question {i}?", asked_by=user)
        LLMCall.objects.create(
            provider="offline",
            model="offline",
            purpose="answer",
            matter_id=first.pk,
            query_id=query.pk,
        )
    return first


def mcp_call(token: str, name: str, args: dict) -> dict:
    async def go():  # noqa: ANN202
        async with McpClient(build_server(token=token)) as client:
            return await client.call_tool(name, args)

    result = run(go)
    assert not result.is_error, result
    return result.structured_content


LISTS = [
    "/api/v1/matters",
    "/api/v1/matters/{m}/documents",
    "/api/v1/matters/{m}/queries",
    "/api/v1/matters/{m}/costs",
]


@pytest.mark.parametrize("size", [2, 8])
def test_api_and_mcp_lists_cost_a_fixed_number_of_queries(transactional_db, size):
    user = UserFactory()
    first = grow(user, size)
    _, token = api_token_create(user=user, name="counts")
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    seen: dict[str, int] = {}
    for path in LISTS:
        url = path.format(m=first.pk)
        api.get(url)  # warm: content types, settings
        with counted() as n:
            response = api.get(url)
        assert response.status_code == 200, response.content
        assert response.json()["count"] == size
        seen[path] = len(n)
    with counted() as n:
        out = mcp_call(token, "list_matters", {})
    assert out["count"] == size
    seen["mcp list_matters"] = len(n)
    with counted() as n:
        out = mcp_call(token, "list_documents", {"matter_id": first.pk})
    assert out["count"] == size
    seen["mcp list_documents"] = len(n)
    assert seen == PINNED, f"{seen}"


# The token's user and its last-used stamp, then the list's own queries (access, count, rows and
# their related rows in one query each); none grows with the rows.
PINNED = {
    "/api/v1/matters": 4,
    "/api/v1/matters/{m}/documents": 5,
    "/api/v1/matters/{m}/queries": 5,
    "/api/v1/matters/{m}/costs": 6,
    "mcp list_matters": 4,
    "mcp list_documents": 5,
}
