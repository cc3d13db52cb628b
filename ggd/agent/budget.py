"""Budgets: a run stops when it, its session or its scheduled job reaches a spending limit.

`maxTokens` of a budget counts every token of every request (input, cached input and output,
summed); `maxCostUsd` the cost the price table gives. A cost limit on a model without a price
cannot be checked, so such a run stops before its first request rather than spend unchecked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ggd.providers.prices import Spend

from .errors import AgentError

__all__ = ["BUDGET_CODE", "BudgetLimit", "budget_stop"]

BUDGET_CODE = "budget_exceeded"


@dataclass(frozen=True)
class BudgetLimit:
    """One budget the run counts against.

    `name` says whose budget it is ("run budget", "session budget", "job budget");
    `spent_before` what counted against it before this run; `raise_hint` how to raise it.
    """

    name: str
    max_cost_usd: float | None = None
    max_tokens: int | None = None
    spent_before: Spend = field(default_factory=Spend)
    raise_hint: str = ""


def _check(limit: BudgetLimit, run: Spend, model: str, priced: bool) -> str | None:
    total = limit.spent_before.plus(run)
    if limit.max_tokens is not None and total.total_tokens >= limit.max_tokens:
        return (
            f"{limit.name} reached: {total.total_tokens} tokens of maxTokens "
            f"{limit.max_tokens}; raise it with {limit.raise_hint}"
        )
    if limit.max_cost_usd is None:
        return None
    if not priced:
        return (
            f"{limit.name} cannot be checked: maxCostUsd {limit.max_cost_usd:g} is set but "
            f'{model} has no known price; give it one under "prices" in GG_HOME/config.json '
            f"(docs/providers.md), or use maxTokens instead"
        )
    if total.cost_usd is None:
        return (
            f"{limit.name} cannot be checked: maxCostUsd {limit.max_cost_usd:g} is set but some "
            "requests it counts have no known cost (made without a price, or their server "
            "reported no usage); use maxTokens instead"
            + (", or a new session" if limit.name == "session budget" else "")
        )
    if total.cost_usd >= limit.max_cost_usd:
        return (
            f"{limit.name} reached: ${total.cost_usd:.4f} of maxCostUsd "
            f"${limit.max_cost_usd:g}; raise it with {limit.raise_hint}"
        )
    return None


def budget_stop(
    limits: tuple[BudgetLimit, ...], run: Spend, model: str, *, priced: bool
) -> AgentError | None:
    """The error that stops the run when one of its budgets is reached, else None.

    `priced`: the run's model has a price (without one a cost limit cannot be checked).
    """
    for limit in limits:
        message = _check(limit, run, model, priced)
        if message is not None:
            return AgentError(message, BUDGET_CODE, retryable=False)
    return None
