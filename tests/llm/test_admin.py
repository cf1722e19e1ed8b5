from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from legalnav.llm.models import LLMCall
from legalnav.llm.prices import PriceCard, Usage
from legalnav.llm.services import llm_call_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    user = get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-tests")
    client.force_login(user)
    return client


def _row(**kwargs) -> LLMCall:
    defaults = dict(
        provider="claude",
        model="claude-sonnet-4-6",
        purpose="answer",
        usage=Usage(input_tokens=1_000, output_tokens=100),
        card=PriceCard(),
        latency_ms=900,
    )
    return llm_call_record(**{**defaults, **kwargs})


def test_the_ledger_lists_with_filters(admin_client):
    _row(query_id=1)
    _row(provider="offline", purpose="navindex_scan", card=PriceCard.zero(), estimated=True)
    response = admin_client.get("/admin/llm/llmcall/")
    assert response.status_code == 200
    assert b"0.00450000" in response.content  # 1,000 x $3 + 100 x $15 per million

    filtered = admin_client.get("/admin/llm/llmcall/", {"provider__exact": "offline"})
    assert filtered.status_code == 200
    assert filtered.context["cl"].result_count == 1


def test_the_ledger_is_read_only(admin_client):
    row = _row()
    assert admin_client.get("/admin/llm/llmcall/add/").status_code == 403
    assert admin_client.get(f"/admin/llm/llmcall/{row.pk}/delete/").status_code == 403
    page = admin_client.get(f"/admin/llm/llmcall/{row.pk}/change/")
    assert page.status_code == 200  # viewable
    before = LLMCall.objects.get(pk=row.pk).dollars
    admin_client.post(f"/admin/llm/llmcall/{row.pk}/change/", {"dollars": "99"})
    assert LLMCall.objects.get(pk=row.pk).dollars == before == Decimal("0.0045")
