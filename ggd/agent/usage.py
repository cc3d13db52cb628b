"""What one model request spent, as the session stores it and as the run reports it."""

from __future__ import annotations

from typing import Any

from ggd.providers.prices import Price, Spend
from ggd.providers.types import Usage

from .events import UsageEvent

__all__ = ["add_usage", "side_request", "usage_event", "usage_record"]


def add_usage(totals: Usage, used: Usage) -> None:
    """Add one request's counts to a run's totals."""
    totals.prompt_tokens += used.prompt_tokens
    totals.completion_tokens += used.completion_tokens
    totals.total_tokens += used.total_tokens
    totals.cache_read_tokens += used.cache_read_tokens
    totals.cache_write_tokens += used.cache_write_tokens
    totals.reasoning_tokens += used.reasoning_tokens


def usage_record(
    used: Usage,
    cost: float | None,
    context_tokens: int,
    model: str,
    window: int | None,
    params: dict[str, Any],
) -> dict[str, Any]:
    """The session's `usage` entry of one request (docs/session-format.md)."""
    record: dict[str, Any] = {
        "promptTokens": used.prompt_tokens,
        "completionTokens": used.completion_tokens,
        "totalTokens": used.total_tokens,
        "cacheReadTokens": used.cache_read_tokens,
        "cacheWriteTokens": used.cache_write_tokens,
        "reasoningTokens": used.reasoning_tokens,
        "contextTokens": context_tokens,
        "model": model,
    }
    if cost is not None:  # absent: no known price (never a guessed number)
        record["costUsd"] = cost
    if window:
        record["contextWindow"] = window
    # The sampling fields the request carried (temperature, seed, ...): enough to replay it.
    if params:
        record["request"] = params
    return record


def side_request(
    usage: Usage | None, price: Price | None, model: str, purpose: str
) -> tuple[Usage, float | None, dict[str, Any]]:
    """A request beside the turn's own (a compaction summary, a session title), paid for like
    any other: its usage (zero when the server reported none), its cost (None without a price
    or a report) and its session `usage` entry, marked with `purpose`."""
    used = usage or Usage()
    cost = price.cost(used) if price is not None and usage is not None else None
    record = usage_record(used, cost, used.prompt_tokens, model, None, {})
    record["purpose"] = purpose
    return used, cost, record


def usage_event(
    used: Usage,
    cost: float | None,
    context_tokens: int,
    window: int | None,
    run: Spend,
    session_before: Spend | None,
) -> UsageEvent:
    """The `usage` run event: this request, and the run's and the session's totals so far."""
    return UsageEvent(
        prompt_tokens=used.prompt_tokens,
        completion_tokens=used.completion_tokens,
        total_tokens=used.total_tokens,
        context_tokens=context_tokens,
        context_window=window,
        cache_read_tokens=used.cache_read_tokens,
        cache_write_tokens=used.cache_write_tokens,
        reasoning_tokens=used.reasoning_tokens,
        cost_usd=cost,
        run=run.wire(),
        session=session_before.plus(run).wire() if session_before is not None else None,
    )
