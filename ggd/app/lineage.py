"""What ties a subagent's child run to the run that started it, and the budget a run tree shares.

Kept apart from `subagents.py` so `run.py` can hold these values without importing the code that
starts children (which imports `run.py`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ggd.providers.prices import Spend
from ggd.session import is_child

if TYPE_CHECKING:
    from .agentdefs import AgentDefinition
    from .run import Run

# A root run is depth 0; its children 1; grandchildren 2, the deepest there may be.
MAX_DEPTH = 2


@dataclass
class TreeBudget:
    """Model requests, wall time and spending shared by a root run and every subagent under it.

    `take()` is called before each model request of any run of the tree (the loop's turn gate):
    the parent's turn limit counts its children's requests too. `spend` sums every request of
    the tree; the budgets of each of its runs (a run budget the children inherit, session and
    job budgets) count against it, so a parent's budget includes what its children spent.
    """

    max_turns: int
    deadline: float  # time.monotonic() by which the root run must end
    used: int = 0
    spend: Spend = field(default_factory=Spend)

    def take(self) -> str | None:
        """Count one request; the reason to stop when the tree has spent its turns."""
        if self.used >= self.max_turns:
            return (
                f"turn limit reached: this run and its subagents made {self.used} model requests "
                '(maxTurns); raise it with `ggd --max-turns N` or "maxTurns": N in '
                "GG_HOME/config.json"
            )
        self.used += 1
        return None

    def remaining_seconds(self) -> float:
        """Wall time left to the root run's deadline (never below zero)."""
        return max(0.0, self.deadline - time.monotonic())


@dataclass
class Lineage:
    """A child run's place in its tree: its parent run, the call that started it, its agent."""

    parent: Run
    tool_call_id: str
    agent: AgentDefinition
    depth: int
    description: str | None = None
    # Filled while the child runs: what the parent's child_run_progress events report.
    turns: int = 0
    tool_calls: int = 0


def link_fields(parent: dict[str, Any] | None) -> dict[str, Any]:
    """A child session's links (its header's parent) as the snake_case fields of list rows and
    snapshots; nothing for any other session."""
    if not is_child(parent):
        return {}
    assert parent is not None
    return {
        "parent_session_id": parent.get("sessionId"),
        "parent_run_id": parent.get("runId"),
        "tool_call_id": parent.get("toolCallId"),
        "agent": parent.get("agent"),
    }


__all__ = ["MAX_DEPTH", "Lineage", "TreeBudget", "link_fields"]
