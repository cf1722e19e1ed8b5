"""Writing the call ledger. Providers call this where the call happens (Zulip's
``do_summarize_narrow`` records its cost next to the request, not in a later report)."""

from __future__ import annotations

from legalnav.llm.models import LLMCall
from legalnav.llm.prices import PriceCard, Usage, cost


def llm_call_record(
    *,
    provider: str,
    model: str,
    purpose: str,
    usage: Usage,
    card: PriceCard,
    latency_ms: int,
    status: str = LLMCall.Status.OK,
    error_message: str = "",
    attempts: int = 1,
    estimated: bool = False,
    response_id: str = "",
    matter_id: int | None = None,
    query_id: int | None = None,
    user_id: int | None = None,
) -> LLMCall:
    """Write one ledger row, pricing ``usage`` by ``card`` and keeping a snapshot of the card.

    A single INSERT in autocommit: it must never sit inside a transaction that also waited on
    the LLM, and a failed call is recorded too (with whatever usage it reported, usually none).
    """
    return LLMCall.objects.create(
        provider=provider,
        model=model[:100],
        purpose=purpose,
        status=status,
        error_message=error_message,
        attempts=attempts,
        input_tokens=usage.input_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        output_tokens=usage.output_tokens,
        estimated=estimated,
        latency_ms=max(0, latency_ms),
        dollars=cost(usage, card),
        price_card=card.as_dict(),
        response_id=response_id[:100],
        matter_id=matter_id,
        query_id=query_id,
        user_id=user_id,
    )
