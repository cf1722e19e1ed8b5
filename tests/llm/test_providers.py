"""The Claude provider through the real ``anthropic`` client against the local replay server,
and the offline ledger."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal

import pytest

from legalnav.llm.models import LLMCall
from legalnav.llm.prices import PriceCard, Usage, cost
from legalnav.llm.prompts import PromptDocument, inject_answer_prompt
from legalnav.llm.providers import (
    ClaudeProvider,
    LLMRequestError,
    LLMUnavailable,
    OfflineProvider,
    backoff_delay,
    get_provider,
)
from legalnav.llm.tokens import count_tokens
from tests.conftest import REPO
from tests.llm.conftest import API_KEY
from tests.llm.replay import Reply, error, message

pytestmark = pytest.mark.django_db

DOCS = [
    PromptDocument(
        doc_id="D1", title="Credit Agreement", text="2.05 Commitment Fee. 0.25% per annum."
    ),
    PromptDocument(
        doc_id="D2",
        title="First Amendment",
        text="Section 2.05 is amended: 0.20%.",
        kind="amendment",
    ),
]


def _ask(provider: ClaudeProvider, **kwargs):
    prompt = inject_answer_prompt(documents=DOCS, question="What is the commitment fee?")
    return provider.complete(
        system=prompt.system, messages=prompt.messages, max_tokens=512, purpose="answer", **kwargs
    )


def _key_seen(headers: dict[str, str]) -> str | None:
    """The API key as the server received it: this SDK (2.x) sends ``Authorization: Bearer``,
    older ones sent ``x-api-key``."""
    if "x-api-key" in headers:
        return headers["x-api-key"]
    auth = headers.get("authorization", "")
    return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None


def test_a_successful_call_writes_one_priced_row(replay):
    replay.queue(
        message(
            "Fee is 0.20% [D2] Clause 2.05.",
            input_tokens=1_200,
            cache_write=98_562,
            output_tokens=350,
        )
    )
    provider = get_provider()
    assert isinstance(provider, ClaudeProvider)

    completion = _ask(provider, matter_id=7, query_id=11)

    assert completion.text == "Fee is 0.20% [D2] Clause 2.05."
    assert completion.usage == Usage(
        input_tokens=1_200, cache_write_tokens=98_562, output_tokens=350
    )
    assert (completion.provider, completion.model, completion.attempts) == (
        "claude",
        "claude-sonnet-4-6",
        1,
    )
    assert completion.estimated is False and completion.stop_reason == "end_turn"
    row = LLMCall.objects.get()
    assert completion.call_id == row.pk
    assert (row.provider, row.purpose, row.status, row.attempts, row.estimated) == (
        "claude",
        "answer",
        "ok",
        1,
        False,
    )
    assert (row.input_tokens, row.cache_write_tokens, row.cache_read_tokens, row.output_tokens) == (
        1_200,
        98_562,
        0,
        350,
    )
    # 1,200 x $3 + 98,562 x $3.75 + 350 x $15 per million = $0.3784575
    assert row.dollars == Decimal("0.3784575")
    assert row.price_card == PriceCard().as_dict()
    assert row.price_card == {
        "unit": "USD per million tokens",
        "input": "3",
        "cache_write": "3.75",
        "cache_read": "0.3",
        "output": "15",
    }
    assert (row.matter_id, row.query_id) == (7, 11)
    assert row.response_id == "msg_01ReplayXq7Yx3ZkP9w2Lm4Nb"
    assert row.latency_ms == completion.latency_ms >= 0
    assert row.token_footprint == 99_762
    assert completion.dollars == row.dollars and row.user_id is None


def test_whose_spend_a_call_is_is_on_its_row_answered_or_failed(replay):
    """A call made for a user rather than a question (a review grid's) carries the user on its
    ledger row from the start, the failed call's too, so that their spending cap counts both."""
    replay.queue(message("ok", input_tokens=10, output_tokens=2), error(400))
    provider = get_provider()
    done = _ask(provider, matter_id=7, user_id=42)
    with pytest.raises(LLMRequestError):
        _ask(provider, matter_id=7, user_id=42)
    rows = list(LLMCall.objects.order_by("pk").values_list("status", "user_id", "query_id"))
    assert rows == [("ok", 42, None), ("error", 42, None)]
    assert done.dollars == LLMCall.objects.get(status="ok").dollars > 0


def test_the_request_carries_the_key_and_the_cache_control_block(replay):
    replay.queue(message("ok", input_tokens=10, output_tokens=1))
    _ask(get_provider())

    [seen] = replay.requests
    assert (seen.method, seen.path) == ("POST", "/v1/messages")
    assert _key_seen(seen.headers) == API_KEY
    assert seen.headers["authorization"] == f"Bearer {API_KEY}"  # what anthropic 2.x sends
    assert seen.headers["anthropic-version"]
    assert seen.body["model"] == "claude-sonnet-4-6"
    assert seen.body["max_tokens"] == 512
    instructions, corpus = seen.body["system"]
    assert "cache_control" not in instructions
    assert corpus["cache_control"] == {"type": "ephemeral"}
    assert '<document doc_id="D2" title="First Amendment" kind="amendment">' in corpus["text"]
    assert seen.body["messages"][0]["role"] == "user"
    assert "What is the commitment fee?" in seen.body["messages"][0]["content"]


def test_a_warm_second_call_is_priced_at_the_cache_read_rate(replay):
    replay.queue(
        message("a", input_tokens=1_200, cache_write=98_562, output_tokens=350),
        message("b", input_tokens=40, cache_read=98_562, output_tokens=120),
    )
    provider = get_provider()
    _ask(provider, query_id=1)
    second = _ask(provider, query_id=2)

    assert second.usage.cache_read_tokens == 98_562
    warm = LLMCall.objects.get(query_id=2)
    assert warm.dollars == Decimal("0.0314886")  # 40 x 3 + 98,562 x 0.30 + 120 x 15, per million
    totals = LLMCall.objects.totals()
    assert totals["dollars"] == Decimal("0.4099461")
    assert totals["token_footprint"] == 1_200 + 98_562 + 40 + 98_562
    assert totals["output_tokens"] == 470


def test_the_price_card_in_settings_prices_the_row(replay, settings):
    settings.LLM_PRICE_INPUT = 1.0
    settings.LLM_PRICE_OUTPUT = 5.0
    replay.queue(message("x", input_tokens=1_000_000, output_tokens=100_000))
    _ask(get_provider())
    row = LLMCall.objects.get()
    assert row.dollars == Decimal("1.5")
    assert row.price_card["input"] == "1"


def test_a_rate_limit_is_retried_and_the_success_is_one_row(replay):
    replay.queue(error(429, retry_after="0"), message("ok", input_tokens=10, output_tokens=2))

    completion = _ask(get_provider())

    assert completion.text == "ok" and completion.attempts == 2
    assert len(replay.requests) == 2
    row = LLMCall.objects.get()
    assert (row.status, row.attempts, row.input_tokens) == ("ok", 2, 10)


def test_a_server_error_is_retried(replay):
    replay.queue(error(500), error(529), message("ok", input_tokens=10, output_tokens=2))
    assert _ask(get_provider()).attempts == 3
    assert len(replay.requests) == 3


def test_repeated_overload_exhausts_the_attempts(replay, settings):
    settings.LLM_MAX_ATTEMPTS = 3
    replay.queue(
        error(529), error(529), error(529), message("never sent", input_tokens=1, output_tokens=1)
    )

    with pytest.raises(LLMUnavailable) as info:
        _ask(get_provider(), matter_id=3)

    assert "after 3 attempts" in str(info.value) and "529" in str(info.value)
    assert len(replay.requests) == 3
    row = LLMCall.objects.get()
    assert (row.status, row.attempts, row.matter_id) == ("error", 3, 3)
    assert row.dollars == 0 and row.token_footprint == 0
    assert "529" in row.error_message


def test_a_timeout_is_retried(replay, settings):
    settings.LLM_TIMEOUT = 0.5
    replay.queue(
        Reply(delay=2.0, body=message("too late", input_tokens=1, output_tokens=1).body),
        message("ok", input_tokens=10, output_tokens=2),
    )

    completion = _ask(get_provider())

    assert completion.text == "ok" and completion.attempts == 2
    assert len(replay.requests) == 2
    assert LLMCall.objects.get().attempts == 2


def test_timeouts_to_the_end_raise_unavailable(replay, settings):
    settings.LLM_TIMEOUT = 0.3
    settings.LLM_MAX_ATTEMPTS = 2
    replay.queue(Reply(delay=1.0), Reply(delay=1.0))
    with pytest.raises(LLMUnavailable, match="APITimeoutError"):
        _ask(get_provider())
    assert LLMCall.objects.get().status == "error"


def test_a_rejected_request_is_not_retried(replay):
    replay.queue(error(400), message("never sent", input_tokens=1, output_tokens=1))
    with pytest.raises(LLMRequestError, match="400"):
        _ask(get_provider())
    assert len(replay.requests) == 1
    row = LLMCall.objects.get()
    assert (row.status, row.attempts) == ("error", 1)


def test_an_unreachable_server_is_unavailable(settings):
    # A port nothing listens on: connection refused on every try.
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = ClaudeProvider(
        api_key="k", base_url=f"http://127.0.0.1:{port}", max_attempts=2, backoff_base=0.0
    )
    with pytest.raises(LLMUnavailable, match="APIConnectionError"):
        _ask(provider)
    assert LLMCall.objects.get().attempts == 2


def test_no_key_means_no_provider(settings):
    settings.ANTHROPIC_API_KEY = ""
    assert get_provider() is None


def test_backoff_grows_exponentially_with_jitter_and_a_cap():
    low, high = (lambda: 0.0), (lambda: 1.0)
    assert [backoff_delay(n, base=1.0, cap=30.0, rand=low) for n in (1, 2, 3, 4)] == [
        0.5,
        1.0,
        2.0,
        4.0,
    ]
    assert [backoff_delay(n, base=1.0, cap=30.0, rand=high) for n in (1, 2, 3, 4)] == [
        1.0,
        2.0,
        4.0,
        8.0,
    ]
    assert backoff_delay(10, base=1.0, cap=30.0, rand=high) == 30.0
    # The server's Retry-After is a floor, still under the cap.
    assert backoff_delay(1, base=1.0, cap=30.0, retry_after=7.0, rand=low) == 7.0
    assert backoff_delay(1, base=1.0, cap=5.0, retry_after=60.0, rand=low) == 5.0


def test_offline_rows_are_estimated_and_free():
    prompt_text = "The provided documents: 2.05 Commitment Fee. 0.25% per annum. Question: fee?"
    output_text = "The commitment fee is 0.25% per annum [D1] Clause 2.05."
    row = OfflineProvider().record(
        purpose="answer", prompt_text=prompt_text, output_text=output_text, query_id=5
    )

    assert (row.provider, row.model, row.estimated, row.status) == (
        "offline",
        "offline",
        True,
        "ok",
    )
    assert row.input_tokens == count_tokens(prompt_text) > 0
    assert row.output_tokens == count_tokens(output_text) > 0
    assert row.cache_write_tokens == row.cache_read_tokens == 0
    assert row.dollars == 0 and row.query_id == 5
    # Every row reconciles with its own price card, offline ones included.
    assert cost(row.usage, row.card) == row.dollars


def test_the_providers_module_does_not_import_the_sdk():
    script = (
        "import os, sys; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'legalnav.settings');"
        "import django; django.setup();"
        "import legalnav.llm.providers, legalnav.llm.prompts, legalnav.llm.admin;"
        "print(','.join(m for m in ('anthropic', 'tiktoken') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
