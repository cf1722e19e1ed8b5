"""The price card and the crossover rule, checked against numbers worked out by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal

import pytest

from legalnav.llm.prices import (
    PriceCard,
    Usage,
    cost,
    inject_crossover,
    inject_is_cheaper,
    navindex_crossover,
    token_footprint,
)
from tests.conftest import REPO

CARD = PriceCard()


def test_default_card_is_the_study_card():
    assert (CARD.input, CARD.cache_write, CARD.cache_read, CARD.output) == (
        Decimal("3.00"),
        Decimal("3.75"),
        Decimal("0.30"),
        Decimal("15.00"),
    )


def test_one_million_of_each_kind_costs_its_price():
    assert cost(Usage(input_tokens=1_000_000), CARD) == Decimal("3")
    assert cost(Usage(cache_write_tokens=1_000_000), CARD) == Decimal("3.75")
    assert cost(Usage(cache_read_tokens=1_000_000), CARD) == Decimal("0.3")
    assert cost(Usage(output_tokens=1_000_000), CARD) == Decimal("15")


def test_cost_of_a_cold_inject_call():
    # 1,200 x 3 + 98,562 x 3.75 + 350 x 15 = 3,600 + 369,607.5 + 5,250 = 378,457.5 micro-dollars
    usage = Usage(input_tokens=1_200, cache_write_tokens=98_562, output_tokens=350)
    assert cost(usage, CARD) == Decimal("0.3784575")


def test_cost_of_a_warm_inject_call():
    # 40 x 3 + 98,562 x 0.30 + 120 x 15 = 120 + 29,568.6 + 1,800 = 31,488.6 micro-dollars
    usage = Usage(input_tokens=40, cache_read_tokens=98_562, output_tokens=120)
    assert cost(usage, CARD) == Decimal("0.0314886")


def test_cost_keeps_a_single_cache_read_token_and_rounds_half_up():
    assert cost(Usage(cache_read_tokens=1), CARD) == Decimal("0.00000030")
    # 1 token at $0.125/M is $0.000000125: 8 places, half up -> 0.00000013
    assert cost(Usage(input_tokens=1), PriceCard(input=Decimal("0.125"))) == Decimal("0.00000013")


def test_token_footprint_counts_every_attended_input_token_but_not_output():
    usage = Usage(
        input_tokens=40, cache_write_tokens=5, cache_read_tokens=98_562, output_tokens=900
    )
    assert token_footprint(usage) == 98_607


def test_inject_crossover_is_ten_times_the_payload_on_the_default_card():
    # The study's RUN-012: a 9.4K-token payload puts break-even at 94K tokens.
    assert inject_crossover(9_400, CARD) == Decimal(94_000)
    assert inject_is_cheaper(93_999, 9_400, CARD) is True
    assert inject_is_cheaper(94_000, 9_400, CARD) is False  # equal cost: not cheaper
    # The 163,147-token scored corpus is past it: navembed stays cheaper.
    assert inject_is_cheaper(163_147, 9_400, CARD) is False
    # RUN-011's inflated 19.1K payload moves break-even to 191K, past the corpus.
    assert inject_is_cheaper(163_147, 19_100, CARD) is True


def test_inject_crossover_follows_the_card():
    # Cache reads at a fifth of input price: break-even at 5 x R.
    card = PriceCard(input=Decimal("3"), cache_read=Decimal("0.6"))
    assert inject_crossover(1_000, card) == Decimal(5_000)
    assert inject_is_cheaper(4_999, 1_000, card) is True
    assert inject_is_cheaper(5_001, 1_000, card) is False


def test_navindex_crossover_is_index_plus_ten_provisions():
    # 98,600 + 10 x 2,900 = 127,600 (the study's ~128K); below the 163K corpus.
    threshold = navindex_crossover(98_600, 2_900)
    assert threshold == Decimal(127_600)
    assert 163_147 > threshold
    assert navindex_crossover(1_000, 100, PriceCard(cache_read=Decimal("0.6"))) == Decimal(1_500)


def test_crossover_needs_a_positive_cache_read_price():
    with pytest.raises(ValueError):
        inject_crossover(1_000, PriceCard(cache_read=Decimal(0)))


def test_card_rejects_negative_prices_and_normalises_floats():
    with pytest.raises(ValueError):
        PriceCard(input=Decimal("-1"))
    assert PriceCard(cache_read=0.3).cache_read == Decimal("0.3")  # type: ignore[arg-type]


def test_card_round_trips_through_its_json_snapshot():
    card = PriceCard(input=Decimal("2.5"), output=Decimal("12"))
    snapshot = json.loads(json.dumps(card.as_dict()))
    assert PriceCard.from_dict(snapshot) == card


def test_card_from_settings(settings):
    settings.LLM_PRICE_INPUT = 1.5
    settings.LLM_PRICE_CACHE_WRITE = 1.875
    settings.LLM_PRICE_CACHE_READ = 0.15
    settings.LLM_PRICE_OUTPUT = 7.5
    assert PriceCard.from_settings() == PriceCard(
        input=Decimal("1.5"),
        cache_write=Decimal("1.875"),
        cache_read=Decimal("0.15"),
        output=Decimal("7.5"),
    )


def test_prices_are_read_from_the_environment():
    script = (
        "import django; django.setup();"
        "from legalnav.llm.prices import PriceCard; c = PriceCard.from_settings();"
        "print(c.input, c.cache_write, c.cache_read, c.output)"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "legalnav.settings",
        "LLM_PRICE_INPUT": "0.8",
        "LLM_PRICE_CACHE_WRITE": "1",
        "LLM_PRICE_CACHE_READ": "0.08",
        "LLM_PRICE_OUTPUT": "4",
    }
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0.8", "1.0", "0.08", "4.0"]
