"""The one mapping from core agent events to wire run events (type + fields)."""

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


def to_wire(ev: AgentEvent) -> tuple[str, dict[str, Any]]:
    """The wire event type and its fields (snake_case, validated by the protocol model)."""
    if isinstance(ev, TextDeltaEvent):
        return "text_delta", {"text": ev.text}
    if isinstance(ev, ThinkingDeltaEvent):
        return "thinking_delta", {"text": ev.text}
    if isinstance(ev, ToolCallStartEvent):
        return "tool_call_start", {
            "tool_call_id": ev.tool_call_id,
            "tool_name": ev.tool_name,
            "summary": ev.summary,
            "arguments": ev.arguments,
        }
    if isinstance(ev, ToolCallFinishEvent):
        return "tool_call_finish", {
            "tool_call_id": ev.tool_call_id,
            "tool_name": ev.tool_name,
            "is_error": ev.is_error,
            "output": ev.output,
            "details": _public_details(ev.details),
        }
    if isinstance(ev, UserMessageEvent):
        return "user_message", {"text": ev.text}
    if isinstance(ev, UsageEvent):
        return "usage", {
            "prompt_tokens": ev.prompt_tokens,
            "completion_tokens": ev.completion_tokens,
            "total_tokens": ev.total_tokens,
            "context_tokens": ev.context_tokens,
            "context_window": ev.context_window,
        }
    if isinstance(ev, CompactionEvent):
        return "compaction", {"summary": ev.summary}
    raise TypeError(f"unmapped agent event {type(ev).__name__}")


# Paths on this machine never cross the protocol boundary.
_PRIVATE_KEYS = {"logPath", "path", "absPath"}


def _public_details(details: dict[str, Any] | None) -> dict[str, Any] | None:
    if not details:
        return None
    return {k: v for k, v in details.items() if k not in _PRIVATE_KEYS}
