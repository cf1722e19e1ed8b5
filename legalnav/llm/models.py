from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.db import models
from django.db.models import Sum

from legalnav.llm.prices import PriceCard, Usage

SUMMED = ("input_tokens", "cache_write_tokens", "cache_read_tokens", "output_tokens", "dollars")


def _with_footprint(sums: dict[str, Any]) -> dict[str, Any]:
    totals: dict[str, Any] = {key: sums.get(key) or 0 for key in SUMMED}
    totals["dollars"] = Decimal(totals["dollars"])
    totals["token_footprint"] = (
        totals["input_tokens"] + totals["cache_write_tokens"] + totals["cache_read_tokens"]
    )
    return totals


def totals_of(calls: Iterable[LLMCall]) -> dict[str, Any]:
    """``LLMCallQuerySet.totals`` of rows already loaded (a cost panel lists them too)."""
    calls = list(calls)
    return _with_footprint({key: sum(getattr(c, key) for c in calls) for key in SUMMED})


class LLMCallQuerySet(models.QuerySet["LLMCall"]):
    def totals(self) -> dict[str, Any]:
        """Summed tokens and dollars of these rows (what a cost panel shows), zeros when empty."""
        return _with_footprint(self.aggregate(**{key: Sum(key) for key in SUMMED}))


class LLMCall(models.Model):
    """One row per LLM call, written where the call happens from the response's ``usage``.

    ``matter_id``, ``query_id`` and ``user_id`` are plain indexed integers rather than foreign keys: the
    ledger must outlive (and must not be cascaded away with) the rows it is charged to, and
    the answering app's Question model is not a dependency of this app.
    """

    class Provider(models.TextChoices):
        CLAUDE = "claude", "Claude"
        OFFLINE = "offline", "Offline"

    class Purpose(models.TextChoices):
        ANSWER = "answer", "Answer"
        NAVINDEX_SCAN = "navindex_scan", "Navindex scan (S1)"
        ENRICHMENT = "enrichment", "Enrichment"
        JUDGE = "judge", "Judge"
        ROUTE = "route", "Route"
        GRID = "grid", "Review grid"
        OTHER = "other", "Other"

    class Status(models.TextChoices):
        OK = "ok", "OK"
        ERROR = "error", "Error"

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    provider = models.CharField(max_length=20, choices=Provider.choices)
    model = models.CharField(max_length=100)
    purpose = models.CharField(max_length=30, choices=Purpose.choices, db_index=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OK)
    error_message = models.TextField(blank=True)
    # Tries made for this one logical call; a retried 429 is one row with attempts=2.
    attempts = models.PositiveSmallIntegerField(default=1)

    input_tokens = models.PositiveIntegerField(default=0)  # uncached input only
    cache_write_tokens = models.PositiveIntegerField(default=0)
    cache_read_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    # True when the counts are offline tokenizer estimates, not the provider's own usage.
    estimated = models.BooleanField(default=False)

    # Wall time of the whole call, retries and back-off included: what the caller waited.
    latency_ms = models.PositiveIntegerField(default=0)
    dollars = models.DecimalField(max_digits=16, decimal_places=8, default=Decimal(0))
    price_card = models.JSONField(default=dict, blank=True)  # the prices the dollars used
    response_id = models.CharField(max_length=100, blank=True)  # the provider's message id

    matter_id = models.PositiveBigIntegerField(null=True, blank=True, db_index=True)
    query_id = models.PositiveBigIntegerField(null=True, blank=True, db_index=True)
    # Whose spend a call is when no question is (a review grid's calls: the user who made it).
    user_id = models.PositiveBigIntegerField(null=True, blank=True, db_index=True)

    objects = LLMCallQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "LLM call"

    def __str__(self) -> str:
        return f"{self.provider}/{self.purpose} {self.status} ${self.dollars}"

    @property
    def usage(self) -> Usage:
        return Usage(
            input_tokens=self.input_tokens,
            cache_write_tokens=self.cache_write_tokens,
            cache_read_tokens=self.cache_read_tokens,
            output_tokens=self.output_tokens,
        )

    @property
    def token_footprint(self) -> int:
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens

    @property
    def card(self) -> PriceCard | None:
        return PriceCard.from_dict(self.price_card) if self.price_card else None
