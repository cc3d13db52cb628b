"""Admission: whether a run may start now (daemon open, mode allowed, session free, capacity)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ggd.agent.loopguard import LoopGuardSettings
from ggd.protocol import Budget
from ggd.protocol import errors as E
from ggd.providers.prices import PriceTable

from .policy import start_refusal


@dataclass
class RunOptions:
    """Admission, timeouts, retention and defaults of runs (set by the daemon from flags/config)."""

    max_active: int = 16
    run_timeout: float = 1800.0
    keep_completed: int = 256
    keep_seconds: float = 3600.0
    sandbox: bool = False
    # 500 model requests: 5x a long 100-step task; the run timeout still bounds wall time.
    max_turns: int = 500
    default_approval_mode: str = "auto"
    # bash -l re-reads /etc/profile, which resets PATH (a venv's python vanishes): opt-in only.
    bash_login_shell: bool = False
    loop_guard: LoopGuardSettings = field(default_factory=LoopGuardSettings)
    # Child runs (subagents) one run may have running at once (config `subagents.maxParallel`).
    subagents_max_parallel: int = 4
    # The `hooks` key of config.json (Claude Code's format); GG_HOME/hooks.json is read too.
    hooks_config: Any = None
    # Cost per model (shipped table + config `prices`), and config's `budget.run`/`.session`.
    prices: PriceTable = field(default_factory=PriceTable)
    run_budget: Budget | None = None
    session_budget: Budget | None = None
    # config `toolDeclarationShare`: the context window's share deferrable tools are declared in.
    tool_share: float = 0.1
    # config `titleModel`: the model that titles a session after its first answer (a
    # "provider:model"), False for none, None for the default rule (ggd/app/titles.py).
    title_model: str | bool | None = None


def admit(
    opts: RunOptions, *, closed: bool, mode: str, interactive: bool, busy: bool, active: int
) -> None:
    """Raise the typed error that refuses this start, or return when it may go ahead."""
    if closed:
        raise E.RuntimeClosedError("the daemon is shutting down")
    refusal = start_refusal(mode, interactive)
    if refusal:
        raise E.InvalidActionError(refusal)
    if busy:
        raise E.RunConflictError(
            "the session already has an active run; steer it, wait, or cancel it first"
        )
    if active >= opts.max_active:
        raise E.RunCapacityError(
            f"the daemon is running {opts.max_active} runs, its limit; try again shortly"
        )


__all__ = ["RunOptions", "admit"]
