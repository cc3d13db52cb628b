"""The one mapping from core agent events to wire run events (event class + fields).

A tool's `details` go to clients as they are, up to `DETAILS_LIMIT` encoded characters. Past
that (an MCP server's 10 MB structuredContent) they are cut to that size, keeping their shape:
long strings and lists are shortened with a "[... N ... cut]" marker in place, and
`details.truncated = {chars, limit}` says so. Events are held in a run's 4 MiB replay ring and
sent whole to every subscriber: an unbounded one would starve live clients and push the rest of
the run out of replay. The model's own copy of the result is bounded separately (the executor's
output limit), and the journal keeps only that.
"""

from __future__ import annotations

import json
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
            "cache_read_tokens": ev.cache_read_tokens,
            "cache_write_tokens": ev.cache_write_tokens,
            "reasoning_tokens": ev.reasoning_tokens,
            "cost_usd": ev.cost_usd,
            "run": ev.run,
            "session": ev.session,
        }
    if isinstance(ev, CompactionEvent):
        return W.CompactionEvent, {"summary": ev.summary}
    raise TypeError(f"unmapped agent event {type(ev).__name__}")


# Paths on this machine never cross the protocol boundary.
_PRIVATE_KEYS = {"logPath", "path", "absPath"}


DETAILS_LIMIT = 64 * 1024
_MAX_DEPTH = 32  # deeper values are cut whole: the pruning below recurses


def _public_details(details: dict[str, Any] | None) -> dict[str, Any] | None:
    if not details:
        return None
    return cap_details({k: v for k, v in details.items() if k not in _PRIVATE_KEYS})


def cap_details(details: dict[str, Any]) -> dict[str, Any]:
    """`details` within DETAILS_LIMIT encoded characters, cut in place and marked when over.

    Encoding a large value costs time (about 0.2 s for 10 MB): a tool whose details can be large
    calls this off the event loop first (MCP results do), so the event path finds them small.
    """
    size = _encoded_len(details)
    if size <= DETAILS_LIMIT:
        return details
    # Room for the marker itself; the rest is filled in order, first keys and items first.
    pruned, _used = _prune(details, DETAILS_LIMIT - 200, 0)
    out = pruned if isinstance(pruned, dict) else {}
    out["truncated"] = {"chars": size, "limit": DETAILS_LIMIT}
    return out


def _encoded_len(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))


def _prune(value: Any, budget: int, depth: int) -> tuple[Any, int]:
    """`value` cut to about `budget` encoded characters, and the characters it uses."""
    if isinstance(value, str):
        size = _encoded_len(value)
        if size <= budget:
            return value, size
        keep = max(0, budget - 60) * len(value) // size  # escapes make encoding longer
        cut = value[:keep] + f"[... {len(value) - keep} characters cut]"
        return cut, _encoded_len(cut)
    if isinstance(value, dict):
        if depth >= _MAX_DEPTH:
            return _gone(value)
        out: dict[str, Any] = {}
        used = 2
        items = list(value.items())
        for i, (key, item) in enumerate(items):
            overhead = _encoded_len(str(key)) + 4  # the key, ": " and ", "
            room = budget - used - overhead
            if room < 64:
                note = f"[... {len(items) - i} more keys cut]"
                out["..."] = note
                used += len(note) + 10
                break
            small, n = _prune(item, room, depth + 1)
            out[str(key)] = small
            used += n + overhead
        return out, used
    if isinstance(value, (list, tuple)):
        if depth >= _MAX_DEPTH:
            return _gone(value)
        seq: list[Any] = []
        used = 2
        for i, item in enumerate(value):
            room = budget - used - 2
            if room < 64:
                note = f"[... {len(value) - i} more items cut]"
                seq.append(note)
                used += len(note) + 4
                break
            small, n = _prune(item, room, depth + 1)
            seq.append(small)
            used += n + 2
        return seq, used
    size = _encoded_len(value)
    return (value, size) if size <= budget else _gone(value)


def _gone(value: Any) -> tuple[str, int]:
    note = f"[... {type(value).__name__} cut]"
    return note, len(note) + 2
