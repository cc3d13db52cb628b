"""The one mapping from core agent events to wire run events (event class + fields)."""

from __future__ import annotations

from typing import Any

from ggd.agent import (
    AgentEvent,
    CompactionEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    ToolCallFinishEvent,
    ToolCallStartEvent,
    UsageEvent,
    UserMessageEvent,
)
from ggd.protocol import events as W


def to_wire(ev: AgentEvent) -> tuple[type[W.RunEventBase], dict[str, Any]]:
    """The wire event class and its fields (snake_case, validated by the protocol model)."""
    if isinstance(ev, TextDeltaEvent):
        return W.TextDeltaEvent, {"text": ev.text}
    if isinstance(ev, ThinkingDeltaEvent):
        return W.ThinkingDeltaEvent, {"text": ev.text}
    if isinstance(ev, ToolCallStartEvent):
        return W.ToolCallStartEvent, {
            "tool_call_id": ev.tool_call_id,
            "tool_name": ev.tool_name,
            "summary": ev.summary,
            "arguments": ev.arguments,
        }
    if isinstance(ev, ToolCallFinishEvent):
        return W.ToolCallFinishEvent, {
            "tool_call_id": ev.tool_call_id,
            "tool_name": ev.tool_name,
            "is_error": ev.is_error,
            "output": ev.output,
            "details": _public_details(ev.details),
        }
    if isinstance(ev, UserMessageEvent):
        return W.UserMessageEvent, {"text": ev.text}
    if isinstance(ev, UsageEvent):
        return W.UsageEvent, {
            "prompt_tokens": ev.prompt_tokens,
            "completion_tokens": ev.completion_tokens,
            "total_tokens": ev.total_tokens,
            "context_tokens": ev.context_tokens,
            "context_window": ev.context_window,
        }
    if isinstance(ev, CompactionEvent):
        return W.CompactionEvent, {"summary": ev.summary}
    raise TypeError(f"unmapped agent event {type(ev).__name__}")


# Paths on this machine never cross the protocol boundary.
_PRIVATE_KEYS = {"logPath", "path", "absPath"}


def _public_details(details: dict[str, Any] | None) -> dict[str, Any] | None:
    if not details:
        return None
    return {k: v for k, v in details.items() if k not in _PRIVATE_KEYS}
