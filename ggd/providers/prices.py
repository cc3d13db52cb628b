"""What model requests cost: the shipped price table, config overrides, and running totals.

Prices are USD per million tokens (`input`, `cachedInput`, `cacheWrite`, `output`), from
ggd/providers/data/prices.json (each provider's table names its source page and the date it
was read) and config.json's `prices` object (`{"provider:model": {...}}`), which wins. A
shipped table applies only to models of the provider of its name: a gateway or a proxy
charges its own prices, so it has none until config gives them.

A cost is never a guess: a model without a price, or a request that read or wrote cached
tokens its price does not price, costs None (clients show tokens only), and a total with any
such part is None too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ggd.providers.types import Usage

__all__ = ["Price", "PriceTable", "Spend", "parse_price", "parse_prices"]

_PRICE_KEYS = ("input", "cachedInput", "cacheWrite", "output", "longContext")
_MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    """One model's prices in USD per million tokens; None: not priced (costs are unknown)."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None
    # (prompt tokens above which the whole request is billed at `long`, those prices)
    long_context: tuple[int, Price] | None = None

    def cost(self, usage: Usage) -> float | None:
        """USD of one request, or None when a part of it has no price."""
        price = self
        if self.long_context is not None and usage.prompt_tokens > self.long_context[0]:
            price = self.long_context[1]
        cached = usage.cache_read_tokens
        written = usage.cache_write_tokens
        fresh = max(0, usage.prompt_tokens - cached - written)
        total = fresh * price.input + usage.completion_tokens * price.output
        if cached:
            if price.cached_input is None:
                return None
            total += cached * price.cached_input
        if written:
            if price.cache_write is None:
                return None
            total += written * price.cache_write
        return total / _MILLION


def _amount(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"{where} must be a number of USD per million tokens, 0 or more")
    return float(value)


def parse_price(where: str, value: Any, *, nested: bool = False) -> Price:
    """One price object; ValueError names the bad key (`where.key`)."""
    if not isinstance(value, dict):
        raise ValueError(f'{where} must be an object like {{"input": 3, "output": 15}}')
    allowed = (*_PRICE_KEYS[:-1], "aboveTokens") if nested else _PRICE_KEYS
    unknown = [k for k in value if k not in allowed]
    if unknown:
        raise ValueError(f"{where}.{unknown[0]} is not a known key (use {', '.join(allowed)})")
    for key in ("input", "output"):
        if key not in value:
            raise ValueError(f"{where}.{key} is required")
    cached = value.get("cachedInput")
    write = value.get("cacheWrite")
    long_context: tuple[int, Price] | None = None
    if "longContext" in value:
        inner = value["longContext"]
        at = f"{where}.longContext"
        long = parse_price(at, inner, nested=True)
        above = inner.get("aboveTokens")
        if isinstance(above, bool) or not isinstance(above, int) or above <= 0:
            raise ValueError(f"{at}.aboveTokens must be a positive integer")
        long_context = (above, long)
    return Price(
        input=_amount(f"{where}.input", value["input"]),
        output=_amount(f"{where}.output", value["output"]),
        cached_input=None if cached is None else _amount(f"{where}.cachedInput", cached),
        cache_write=None if write is None else _amount(f"{where}.cacheWrite", write),
        long_context=long_context,
    )


def parse_prices(where: str, value: Any) -> dict[str, Price]:
    """config.json's `prices`: {"provider:model": price}; ValueError names the bad key."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f'{where} must be an object of {{"provider:model": {{prices}}}}')
    out: dict[str, Price] = {}
    for ref, entry in value.items():
        if ":" not in ref:
            raise ValueError(
                f'{where}: {ref!r} must name a provider and a model, like "openai:gpt-4.1"'
            )
        out[ref] = parse_price(f"{where}.{ref}", entry)
    return out


def _shipped() -> dict[str, Price]:
    data = json.loads(
        resources.files("ggd.providers").joinpath("data/prices.json").read_text("utf-8")
    )
    out: dict[str, Price] = {}
    for provider, table in data["providers"].items():
        for model, entry in table["models"].items():
            ref = f"{provider}:{model}"
            out[ref] = parse_price(f"prices.json {ref}", entry)
    return out


class PriceTable:
    """Prices by `provider:model`: config's over the shipped table."""

    def __init__(self, overrides: Mapping[str, Price] | None = None, *, shipped: bool = True):
        self._prices = {**(_shipped() if shipped else {}), **(overrides or {})}

    def get(self, model_ref: str) -> Price | None:
        """The price of `provider:model`, or None (tokens only)."""
        return self._prices.get(model_ref)

    def __len__(self) -> int:
        return len(self._prices)


@dataclass
class Spend:
    """Token and cost totals of several requests (a run, a session).

    `cost_usd` is None as soon as one request has no known cost (no price, or the server
    reported no usage): a partial sum would be a wrong number.
    """

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = field(default=0.0)

    def add(self, usage: Usage, cost: float | None) -> None:
        """Count one request."""
        self.requests += 1
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.total_tokens += usage.total_tokens or usage.prompt_tokens + usage.completion_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cache_write_tokens += usage.cache_write_tokens
        self.reasoning_tokens += usage.reasoning_tokens
        if cost is None:
            self.cost_usd = None
        elif self.cost_usd is not None:
            self.cost_usd += cost

    def plus(self, other: Spend) -> Spend:
        """The sum of two totals."""
        cost = (
            None
            if self.cost_usd is None or other.cost_usd is None
            else self.cost_usd + other.cost_usd
        )
        return Spend(
            self.requests + other.requests,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            cost,
        )

    def wire(self) -> dict[str, Any]:
        """The snake_case fields of the protocol's UsageInfo."""
        return {
            "requests": self.requests,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cost_usd": self.cost_usd,
        }

    @classmethod
    def of_records(cls, records: Iterable[Mapping[str, Any]]) -> Spend:
        """Totals of stored usage records (a session file's `usage` entries)."""
        out = cls()
        for r in records:
            usage = Usage(
                prompt_tokens=_int(r.get("promptTokens")),
                completion_tokens=_int(r.get("completionTokens")),
                total_tokens=_int(r.get("totalTokens")),
                cache_read_tokens=_int(r.get("cacheReadTokens")),
                cache_write_tokens=_int(r.get("cacheWriteTokens")),
                reasoning_tokens=_int(r.get("reasoningTokens")),
            )
            cost = r.get("costUsd")
            out.add(usage, float(cost) if isinstance(cost, int | float) else None)
        return out


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
