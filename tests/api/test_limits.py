"""Limits and spending caps through the JSON API: search is limited per user and per token, a
token's requests count against the token and its user, and a question past a spending cap is
refused with 429, "spend_capped" and the cap's message."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from legalnav.answers.models import Question
from legalnav.api.models import ApiToken
from legalnav.core import limits
from legalnav.llm.models import LLMCall
from tests.api.conftest import actor_for

pytestmark = pytest.mark.django_db

V1 = "/api/v1"


def _error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    return response.json()["error"]


def test_search_is_limited_with_429_and_retry_after(matter, owner_actor, settings):
    settings.LEGALNAV_SEARCH_RATE_PER_MINUTE = 2
    url = f"{V1}/matters/{matter.pk}/search?q=termination&mode=bm25"
    # A search of a matter the user cannot see is not found, and not counted.
    assert owner_actor.get(f"{V1}/matters/{matter.pk + 1000}/search?q=x").status_code == 404
    assert [owner_actor.get(url).status_code for _ in range(2)] == [200, 200]
    refused = owner_actor.get(url)
    error = _error(refused, 429)
    assert error["code"] == "rate_limited"
    assert error["message"].startswith("You have run 2 searches in the last minute")
    assert int(refused["Retry-After"]) >= 1
    settings.LEGALNAV_SEARCH_RATE_PER_MINUTE = 0  # 0: no limit
    assert owner_actor.get(url).status_code == 200


def test_a_tokens_requests_count_against_the_token_and_its_user(matter, owner_actor, settings):
    settings.LEGALNAV_ASK_RATE_PER_MINUTE = 3
    second = actor_for(owner_actor.user)  # another token of the same user
    url = f"{V1}/matters/{matter.pk}/queries"
    body = json.dumps({"question": "Who are the parties?"})

    def ask(actor):
        return actor.client.post(url, data=body, content_type="application/json")

    assert ask(owner_actor).status_code == 202
    assert ask(second).status_code == 202
    assert ask(owner_actor).status_code == 202
    first_token, second_token = ApiToken.objects.filter(user=owner_actor.user).order_by("pk")
    assert limits.limit_used(limits.QUESTION, subject=f"t{first_token.pk}") == 2
    assert limits.limit_used(limits.QUESTION, subject=f"t{second_token.pk}") == 1
    assert limits.limit_used(limits.QUESTION, subject=f"u{owner_actor.user.pk}") == 3
    # A new token does not bring a new allowance: the user's is spent.
    third = actor_for(owner_actor.user)
    assert _error(ask(third), 429)["code"] == "rate_limited"
    assert Question.objects.count() == 3


def test_a_question_past_the_matters_daily_cap_is_refused(matter, owner_actor, settings):
    settings.LEGALNAV_SPEND_CAP_MATTER_DAY = 1.00
    LLMCall.objects.create(
        provider="claude", model="m", purpose="answer", dollars=Decimal("0.60"), matter_id=matter.pk
    )
    url = f"{V1}/matters/{matter.pk}/queries"
    body = json.dumps({"question": "Who are the parties?"})
    assert (
        owner_actor.client.post(url, data=body, content_type="application/json").status_code == 202
    )
    LLMCall.objects.create(
        provider="claude", model="m", purpose="answer", dollars=Decimal("0.55"), matter_id=matter.pk
    )
    refused = owner_actor.client.post(url, data=body, content_type="application/json")
    error = _error(refused, 429)
    assert error["code"] == "spend_capped"
    assert error["message"].startswith(
        "This matter has spent $1.15 of its $1.00 daily cap; it resets at 00:00 UTC on "
    )
    assert 1 <= int(refused["Retry-After"]) <= 24 * 3600
    assert Question.objects.count() == 1
