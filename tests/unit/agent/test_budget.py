"""Budget checks: the limit reached, and a cost limit that cannot be checked, each said plainly."""

from __future__ import annotations

from ggd.agent.budget import BUDGET_CODE, BudgetLimit, budget_stop
from ggd.providers.prices import Spend
from ggd.providers.types import Usage


def _spend(tokens: int, cost: float | None) -> Spend:
    spend = Spend()
    spend.add(Usage(prompt_tokens=tokens, total_tokens=tokens), cost)
    return spend


def test_the_first_limit_reached_stops_the_run_with_how_to_raise_it() -> None:
    limits = (
        BudgetLimit("run budget", max_tokens=1000, raise_hint="gg --max-tokens N"),
        BudgetLimit("session budget", max_cost_usd=1.0, spent_before=_spend(10, 0.9)),
    )
    assert budget_stop(limits, _spend(500, 0.05), "m", priced=True) is None
    stop = budget_stop(limits, _spend(999, 0.2), "m", priced=True)
    assert stop is not None and stop.code == BUDGET_CODE and not stop.retryable
    assert stop.message.startswith("session budget reached: $1.1000 of maxCostUsd $1")
    stop = budget_stop(limits, _spend(1000, 0.0), "m", priced=True)
    assert stop is not None
    assert (
        stop.message
        == "run budget reached: 1000 tokens of maxTokens 1000; raise it with gg --max-tokens N"
    )


def test_a_cost_limit_that_cannot_be_checked_says_why() -> None:
    limit = (BudgetLimit("session budget", max_cost_usd=5, spent_before=_spend(10, None)),)
    stop = budget_stop(limit, Spend(), "p:m", priced=False)
    assert stop is not None and "p:m has no known price" in stop.message
    stop = budget_stop(limit, Spend(), "p:m", priced=True)
    assert stop is not None
    assert "some requests it counts have no known cost" in stop.message
    assert stop.message.endswith("use maxTokens instead, or a new session")
    # A token limit alone needs no price.
    tokens_only = (BudgetLimit("run budget", max_tokens=100),)
    assert budget_stop(tokens_only, _spend(10, None), "p:m", priced=False) is None
