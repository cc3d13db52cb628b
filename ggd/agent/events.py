"""Core events the agent loop reports to its sink; the app maps them to wire events."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

log = logging.getLogger(__name__)

# Tool output shown to clients is cut here; the model still gets the full output.
DISPLAY_LIMIT = 8 * 1024


@dataclass(frozen=True)
class TextDeltaEvent:
    """A piece of assistant text as it streams."""

    text: str


@dataclass(frozen=True)
class ThinkingDeltaEvent:
    """A piece of reasoning text as it streams."""

    text: str


@dataclass(frozen=True)
class ToolCallStartEvent:
    """A tool call is about to run (after approval)."""

    tool_call_id: str
    tool_name: str
    summary: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolCallFinishEvent:
    """A tool call ended; output is truncated for display."""

    tool_call_id: str
    tool_name: str
    is_error: bool
    output: str
    details: dict[str, Any] | None = None


@dataclass(frozen=True)
class UserMessageEvent:
    """A steering or follow-up message was taken into the running turn."""

    text: str


@dataclass(frozen=True)
class UsageEvent:
    """Token counts and cost of one model request, how full the context is, and the totals.

    `run` and `session` are the snake_case fields of the protocol's UsageInfo (Spend.wire()).
    """

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    context_tokens: int
    context_window: int | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = None
    run: dict[str, Any] | None = None
    session: dict[str, Any] | None = None


@dataclass(frozen=True)
class CompactionEvent:
    """Older messages were replaced by a summary."""

    summary: str
    first_kept_id: str = ""


AgentEvent = (
    TextDeltaEvent
    | ThinkingDeltaEvent
    | ToolCallStartEvent
    | ToolCallFinishEvent
    | UserMessageEvent
    | UsageEvent
    | CompactionEvent
)

Sink = Callable[[AgentEvent], None]


def truncate_for_display(text: str, limit: int = DISPLAY_LIMIT) -> str:
    """Cut text to at most `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters not shown]"


DeltaKind = Literal["text_delta", "thinking_delta"]


def delta_writer(sink: Sink) -> Callable[[DeltaKind, str], None]:
    """The one path of a streamed delta into `sink`, chosen once per model request.

    Deltas are nearly every event of a run: a sink with a `delta(kind, text)` method (the run's,
    ggd.app.turns) takes them as bare text, with no event object per delta; any other sink gets
    a TextDeltaEvent or ThinkingDeltaEvent like every other event.
    """
    fast: Callable[[DeltaKind, str], None] | None = getattr(sink, "delta", None)
    if fast is not None:
        return fast

    def as_event(kind: DeltaKind, text: str) -> None:
        sink(TextDeltaEvent(text=text) if kind == "text_delta" else ThinkingDeltaEvent(text=text))

    return as_event


def safe_emit(sink: Sink, event: AgentEvent) -> None:
    """Call the sink; a failing sink is logged, never allowed to break the run."""
    try:
        sink(event)
    except Exception:
        log.exception("agent event sink failed on %s", type(event).__name__)
