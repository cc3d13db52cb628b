"""The loop's side of hooks: three awaitable call sites, implemented by the app (ggd.hooks).

The agent never runs a hook itself; it asks `ToolHooks` before a call is approved, after a tool
ran, and when the model answers without tool calls. An implementation must not raise (a failing
hook is reported by it and the run goes on); the executor still guards each call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from ggd.providers.types import ToolCall
from ggd.tools.base import ApprovalInfo, Tool, ToolResult

# ApprovalInfo.extra keys the executor sets from a PreToolUse decision, read by the approvers:
# allowed by a hook (skips asking, never the dangerous-command rule nor plan mode), or a hook
# asked for a person's decision even where the mode would allow.
HOOK_ALLOW = "hookAllow"
HOOK_ASK = "hookAsk"


@dataclass(frozen=True)
class PreToolVerdict:
    """What the PreToolUse hooks decided (None: no opinion) and context for the model."""

    decision: Literal["allow", "deny", "ask"] | None = None
    reason: str = ""
    context: str = ""


class ToolHooks(Protocol):
    """Hook call sites of one run."""

    async def pre_tool(self, call: ToolCall, tool: Tool, info: ApprovalInfo) -> PreToolVerdict:
        """Before approval: allow, deny (final), ask, or no opinion."""
        ...

    async def post_tool(self, call: ToolCall, result: ToolResult) -> str:
        """After the tool ran: text added to the result the model reads ('' for none)."""
        ...

    async def stop(self, answer: str, active: bool) -> str:
        """The model answered: '' lets the run end, else the reason it must go on."""
        ...


__all__ = ["HOOK_ALLOW", "HOOK_ASK", "PreToolVerdict", "ToolHooks"]
