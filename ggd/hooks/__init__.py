"""Claude Code-compatible hooks: user commands run at SessionStart, UserPromptSubmit, PreToolUse,
PostToolUse, Stop, SubagentStop and Notification (docs/hooks.md).

`config` reads and trusts the configuration, `runner` runs one command, `engine` fires an event
and reads what its hooks decided. `ggd.app.hooks` ties them to gg's runs. This package imports
nothing else of ggd.
"""

from __future__ import annotations

from .config import EVENTS, HookCommand, HookConfigError, LoadedHooks, load, trust_workspace
from .engine import HookEngine, Outcome, Scope

__all__ = [
    "EVENTS",
    "HookCommand",
    "HookConfigError",
    "HookEngine",
    "LoadedHooks",
    "Outcome",
    "Scope",
    "load",
    "trust_workspace",
]
