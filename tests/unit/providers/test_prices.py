"""The price table: costs from token counts, never a guessed number, and config overrides."""

from __future__ import annotations

import pytest

from ggd.providers.assembly import chat_usage
from ggd.providers.prices import Price, PriceTable, Spend, parse_prices
from ggd.providers.types import Usage


def test_cached_and_written_tokens_are_priced_apart_from_fresh_input() -> None:
    price = Price(input=3, output=15, cached_input=0.3, cache_write=3.75)
    usage = Usage(
        prompt_tokens=10_000,
        completion_tokens=1_000,
        cache_read_tokens=6_000,
        cache_write_tokens=3_000,
    )
    # 1000 fresh x 3 + 6000 x 0.3 + 3000 x 3.75 + 1000 x 15, per million
    assert price.cost(usage) == pytest.approx((3_000 + 1_800 + 11_250 + 15_000) / 1e6)


def test_a_cache_read_without_a_cached_price_costs_nothing_known() -> None:
    price = Price(input=5, output=15)
    assert price.cost(Usage(prompt_tokens=100, completion_tokens=10)) == pytest.approx(650 / 1e6)
    assert price.cost(Usage(prompt_tokens=100, cache_read_tokens=50)) is None
    assert price.cost(Usage(prompt_tokens=100, cache_write_tokens=50)) is None


def test_long_context_prices_apply_to_the_whole_request_above_the_threshold() -> None:
    (price,) = parse_prices(
        "prices",
        {
            "x:m": {
                "input": 1,
                "output": 2,
                "longContext": {"aboveTokens": 100, "input": 10, "output": 20},
            }
        },
    ).values()
    assert price.cost(Usage(prompt_tokens=100, completion_tokens=1)) == pytest.approx(102 / 1e6)
    assert price.cost(Usage(prompt_tokens=101, completion_tokens=1)) == pytest.approx(1030 / 1e6)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"gpt-4.1": {"input": 1, "output": 2}}, "must name a provider and a model"),
        ({"a:b": {"input": 1}}, "prices.a:b.output is required"),
        ({"a:b": {"input": -1, "output": 2}}, "prices.a:b.input must be a number"),
        ({"a:b": {"input": 1, "output": 2, "cached": 1}}, "prices.a:b.cached is not a known key"),
        (
            {"a:b": {"input": 1, "output": 2, "longContext": {"input": 1, "output": 2}}},
            "prices.a:b.longContext.aboveTokens must be a positive integer",
        ),
        ([], "prices must be an object"),
    ],
)
def test_bad_prices_name_the_key(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        parse_prices("prices", value)


def test_the_shipped_table_prices_only_its_own_providers_and_config_wins() -> None:
    table = PriceTable(parse_prices("prices", {"openai:gpt-4.1": {"input": 9, "output": 9}}))
    assert table.get("anthropic:claude-sonnet-4-20250514") is not None
    assert table.get("openrouter:gpt-4.1") is None  # a gateway charges its own prices
    assert table.get("openai:gpt-4.1") == Price(input=9, output=9)
    assert PriceTable().get("openai:gpt-4.1") == Price(input=2, output=8, cached_input=0.5)


def test_a_total_with_one_unpriced_request_has_no_cost() -> None:
    spend = Spend()
    spend.add(Usage(prompt_tokens=10, completion_tokens=1, total_tokens=11), 0.5)
    assert spend.cost_usd == 0.5
    spend.add(Usage(prompt_tokens=10), None)
    assert spend.cost_usd is None and spend.requests == 2 and spend.total_tokens == 21
    spend.add(Usage(prompt_tokens=1, total_tokens=1), 0.25)  # unknown stays unknown
    assert spend.cost_usd is None


def test_chat_completions_usage_details_fill_the_cache_and_reasoning_counts() -> None:
    usage = chat_usage(
        {
            "prompt_tokens": 100,
            "completion_tokens": 30,
            "total_tokens": 130,
            "prompt_tokens_details": {"cached_tokens": 64},
            "completion_tokens_details": {"reasoning_tokens": 12},
        }
    )
    assert (usage.cache_read_tokens, usage.reasoning_tokens) == (64, 12)
    assert chat_usage({"prompt_tokens": None, "prompt_tokens_details": None}).prompt_tokens == 0
