"""The price card, what a call costs, and the study's caching-crossover rule.

Pure functions over plain numbers (no ORM, no SDK), so the cost panel, the auto mode and the
evaluation harness can all reason about cost the same way the ledger records it.

Two quantities are kept apart on purpose. *Dollars* are what the provider bills: cache reads are
discounted, cache writes carry a premium. *Token footprint* is every input token the model had to
attend to, cached or not: caching makes a large prefix cheap to re-read but not small to read.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

MILLION = Decimal(1_000_000)
# The ledger stores dollars to 8 places: one cache-read token at $0.30/M is $0.0000003.
DOLLAR_PLACES = Decimal("0.00000001")


@dataclass(frozen=True, slots=True)
class Usage:
    """The four token counts of one call, as the Messages API reports them in ``usage``.

    ``input_tokens`` are the uncached input tokens only; the cached prefix is counted in
    ``cache_write_tokens`` (written this call) or ``cache_read_tokens`` (read from the cache).
    """

    input_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    output_tokens: int = 0

    def __post_init__(self) -> None:
        for name in ("input_tokens", "cache_write_tokens", "cache_read_tokens", "output_tokens"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} cannot be negative")


def _dollars(value: Decimal | float | int | str) -> Decimal:
    # str() first: Decimal(0.3) is 0.299999999999999988897769753748...
    return value if isinstance(value, Decimal) else Decimal(str(value))


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


@dataclass(frozen=True, slots=True)
class PriceCard:
    """Dollars per million tokens for each kind of token (the study's Sonnet card by default)."""

    input: Decimal = Decimal("3.00")
    cache_write: Decimal = Decimal("3.75")
    cache_read: Decimal = Decimal("0.30")
    output: Decimal = Decimal("15.00")

    def __post_init__(self) -> None:
        for name in ("input", "cache_write", "cache_read", "output"):
            value = _dollars(getattr(self, name))
            if value < 0:
                raise ValueError(f"the {name} price cannot be negative, got {value}")
            # A frozen dataclass: assign through object.__setattr__ to normalise floats/strings.
            object.__setattr__(self, name, value)

    @classmethod
    def from_settings(cls) -> PriceCard:
        """The card in force, from the ``LLM_PRICE_*`` settings (input, cache write, cache read,
        output)."""
        from django.conf import settings

        return cls(
            input=_dollars(settings.LLM_PRICE_INPUT),
            cache_write=_dollars(settings.LLM_PRICE_CACHE_WRITE),
            cache_read=_dollars(settings.LLM_PRICE_CACHE_READ),
            output=_dollars(settings.LLM_PRICE_OUTPUT),
        )

    @classmethod
    def zero(cls) -> PriceCard:
        """The card of work that no provider bills (the offline answerer)."""
        return cls(
            input=Decimal(0), cache_write=Decimal(0), cache_read=Decimal(0), output=Decimal(0)
        )

    def as_dict(self) -> dict[str, Any]:
        """A JSON snapshot for the ledger row, so old rows keep the prices they were billed at."""
        # Canonical strings ("3", "0.3"), so that 3.0 from the environment and 3.00 here
        # snapshot alike.
        return {
            "unit": "USD per million tokens",
            "input": _plain(self.input),
            "cache_write": _plain(self.cache_write),
            "cache_read": _plain(self.cache_read),
            "output": _plain(self.output),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PriceCard:
        return cls(
            input=_dollars(data["input"]),
            cache_write=_dollars(data["cache_write"]),
            cache_read=_dollars(data["cache_read"]),
            output=_dollars(data["output"]),
        )


def cost(usage: Usage, card: PriceCard) -> Decimal:
    """The dollars a call costs under ``card``, rounded half-up to 8 decimal places."""
    total = (
        usage.input_tokens * card.input
        + usage.cache_write_tokens * card.cache_write
        + usage.cache_read_tokens * card.cache_read
        + usage.output_tokens * card.output
    ) / MILLION
    return total.quantize(DOLLAR_PLACES, rounding=ROUND_HALF_UP)


def token_footprint(usage: Usage) -> int:
    """Every input token the model attended to: uncached input plus the cached prefix, whether
    this call wrote it or read it. Output tokens are not part of the footprint."""
    return usage.input_tokens + usage.cache_write_tokens + usage.cache_read_tokens


def _read_discount(card: PriceCard) -> Decimal:
    if card.cache_read <= 0:
        raise ValueError("the crossover needs a positive cache-read price")
    return card.input / card.cache_read


def inject_crossover(payload_tokens: int, card: PriceCard | None = None) -> Decimal:
    """The corpus size below which a warm, cached inject beats a navigate mode whose answering
    call carries ``payload_tokens`` of uncached retrieved text: R·p_in/p_r (10·R on the
    default card, where a cache read costs a tenth of fresh input)."""
    return payload_tokens * _read_discount(card or PriceCard())


def inject_is_cheaper(
    corpus_tokens: int, payload_tokens: int, card: PriceCard | None = None
) -> bool:
    """Whether injecting the whole corpus is cheaper per question than navigating to a payload.

    Once the cache is warm, inject pays the cache-read price for all C corpus tokens on every
    question, while a navigate mode pays the full input price for only the R tokens it
    retrieved. Inject therefore wins only while C·p_r < R·p_in, i.e. C < R·p_in/p_r. Output is
    left out, as in the study, because answer length does not depend on the mode. This is the
    steady state of one warm session: the cache lives about five minutes, so a cold session
    also pays the cache write (p_w per corpus token), which only moves the balance further
    towards navigating; and a corpus larger than the context window cannot be injected at all.
    """
    return Decimal(corpus_tokens) < inject_crossover(payload_tokens, card)


def navindex_crossover(
    index_tokens: int, provision_tokens: int, card: PriceCard | None = None
) -> Decimal:
    """The corpus size below which a warm, cached inject beats navindex: C < I + S·p_in/p_r,
    which is I + 10·S on the default card.

    navindex also caches a prefix, its compact index of I tokens that the planner re-reads on
    every question, and pays full price only for the S tokens of fetched provisions its
    answering call carries. Per question that is I·p_r + S·p_in against inject's C·p_r, so
    inject needs a corpus smaller than the index plus ten times the provisions to come out
    ahead. (The study: 98,600 + 10 × 2,900 ≈ 128K tokens, below its 163K corpus.)
    """
    return Decimal(index_tokens) + provision_tokens * _read_discount(card or PriceCard())
