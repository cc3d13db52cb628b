"""Claude Code-compatible hooks: user commands run at SessionStart, UserPromptSubmit, PreToolUse,
PostToolUse, Stop, SubagentStop and Notification (docs/hooks.md).

`config` reads and trusts the configuration, `runner` runs one command, `engine` fires an event
and reads what its hooks decided, `binding` ties them to gg's runs.
"""

from __future__ import annotations

from .binding import RunHooks, approval_pending, before_prompt, fire_subagent_stop
from .config import EVENTS, HookCommand, HookConfigError, LoadedHooks, load, trust_workspace
from .engine import HookEngine, Outcome, Scope

__all__ = [
    "EVENTS",
    "HookCommand",
    "HookConfigError",
    "HookEngine",
    "LoadedHooks",
    "Outcome",
    "RunHooks",
    "Scope",
    "approval_pending",
    "before_prompt",
    "fire_subagent_stop",
    "load",
    "trust_workspace",
]
