"""Notification payloads: gg/run.event (tagged by `type`) and gg/session.event."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter

from .base import Event
from .dto import Approval, ImageInfo, TodoItem, UsageInfo


class RunEventBase(Event):
    """Envelope fields every run event carries."""

    run_id: str
    session_id: str
    sequence: int
    timestamp: int


class RunStartedEvent(RunEventBase):
    """The run was admitted and started."""

    type: Literal["run_started"] = "run_started"
    prompt: str | None = None
    # The prompt's images as stored (gg/image.get fetches their bytes).
    images: list[ImageInfo] | None = None


class TextDeltaEvent(RunEventBase):
    """Assistant text as it streams."""

    type: Literal["text_delta"] = "text_delta"
    text: str


class ThinkingDeltaEvent(RunEventBase):
    """Reasoning text as it streams."""

    type: Literal["thinking_delta"] = "thinking_delta"
    text: str


class ToolCallStartEvent(RunEventBase):
    """A tool started."""

    type: Literal["tool_call_start"] = "tool_call_start"
    tool_call_id: str
    tool_name: str
    summary: str
    arguments: dict[str, Any] | None = None


class ToolCallFinishEvent(RunEventBase):
    """A tool finished (output truncated for display)."""

    type: Literal["tool_call_finish"] = "tool_call_finish"
    tool_call_id: str
    tool_name: str
    is_error: bool
    output: str
    details: dict[str, Any] | None = None


class UserMessageEvent(RunEventBase):
    """A steering or follow-up message was taken into the run."""

    type: Literal["user_message"] = "user_message"
    text: str


class ApprovalRequestedEvent(RunEventBase):
    """A tool waits for a decision (gg/run.approve)."""

    type: Literal["approval_requested"] = "approval_requested"
    approval: Approval


class ApprovalResolvedEvent(RunEventBase):
    """An approval was answered."""

    type: Literal["approval_resolved"] = "approval_resolved"
    approval_id: str
    allow: bool
    by: Literal["user", "policy", "cancel", "timeout"]
    scope: Literal["once", "session"] | None = None


class UsageEvent(RunEventBase):
    """Token usage and cost of one model call, with the run's and the session's totals so far."""

    type: Literal["usage"] = "usage"
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    context_tokens: int | None = None
    context_window: int | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    # USD of this request; null when its model has no known price (show tokens only).
    cost_usd: float | None = None
    run: UsageInfo | None = None
    session: UsageInfo | None = None


class CompactionEvent(RunEventBase):
    """Older turns were summarised to fit the context budget."""

    type: Literal["compaction"] = "compaction"
    summary: str


class PlanUpdatedEvent(RunEventBase):
    """The model wrote the session's todo list (todo_write): the whole list, as saved."""

    type: Literal["plan_updated"] = "plan_updated"
    todos: list[TodoItem]


class HookFailedEvent(RunEventBase):
    """A hook command failed (exit other than 0 or 2, timeout, could not start); the run goes on."""

    type: Literal["hook_failed"] = "hook_failed"
    hook_event: str
    command: str
    error: str


class RunCompletedEvent(RunEventBase):
    """The run finished with a final answer."""

    type: Literal["run_completed"] = "run_completed"
    content: str
    usage: UsageInfo | None = None


class RunFailedEvent(RunEventBase):
    """The run failed; retryable says whether trying again may help."""

    type: Literal["run_failed"] = "run_failed"
    error: str
    error_code: str | None = Field(
        default=None, description='"budget_exceeded" when a run, session or job budget stopped it'
    )
    retryable: bool = False
    # What the run spent before it stopped.
    usage: UsageInfo | None = None


class RunCanceledEvent(RunEventBase):
    """The run was canceled."""

    type: Literal["run_canceled"] = "run_canceled"


class ChildRunStartedEvent(RunEventBase):
    """A `task` tool call started a subagent: a child run in a child session."""

    type: Literal["child_run_started"] = "child_run_started"
    tool_call_id: str
    child_run_id: str
    child_session_id: str
    agent: str
    description: str | None = None


class ChildRunProgressEvent(RunEventBase):
    """One line of a child run's progress (the tool it runs, an approval it waits for)."""

    type: Literal["child_run_progress"] = "child_run_progress"
    tool_call_id: str
    child_run_id: str
    agent: str
    text: str
    turns: int = 0
    tool_calls: int = 0


class ChildRunFinishedEvent(RunEventBase):
    """A child run ended; its answer (or error) is the `task` call's result."""

    type: Literal["child_run_finished"] = "child_run_finished"
    tool_call_id: str
    child_run_id: str
    child_session_id: str
    agent: str
    status: Literal["completed", "failed", "canceled"]
    error: str | None = None
    turns: int = 0
    tool_calls: int = 0


RunEvent = Annotated[
    RunStartedEvent
    | TextDeltaEvent
    | ThinkingDeltaEvent
    | ToolCallStartEvent
    | ToolCallFinishEvent
    | UserMessageEvent
    | ApprovalRequestedEvent
    | ApprovalResolvedEvent
    | UsageEvent
    | CompactionEvent
    | PlanUpdatedEvent
    | HookFailedEvent
    | RunCompletedEvent
    | RunFailedEvent
    | RunCanceledEvent
    | ChildRunStartedEvent
    | ChildRunProgressEvent
    | ChildRunFinishedEvent,
    Field(discriminator="type"),
]
# Built on first use (defer_build): the daemon never validates events it emits through it.
RUN_EVENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(RunEvent, config=ConfigDict(defer_build=True))
# The terminal event types and the run status each one leaves: the only list of them.
TERMINAL_STATUS: dict[str, str] = {
    "run_completed": "completed",
    "run_failed": "failed",
    "run_canceled": "canceled",
}
TERMINAL_EVENT_TYPES = frozenset(TERMINAL_STATUS)


class SessionEvent(Event):
    """gg/session.event: a change to a session that every subscriber sees."""

    session_id: str
    type: Literal[
        "created",
        "run_started",
        "run_finished",
        "renamed",
        "head_changed",
        "forked",
        "approval_pending",
        "compacted",
        "artifact_created",
        "artifact_updated",
        "files_restored",
    ]
    run_id: str | None = None
    status: str | None = None
    name: str | None = None
    leaf_id: str | None = None
    new_session_id: str | None = None
    kind: Literal["fork", "clone"] | None = None
    count: int | None = None
    artifact_id: str | None = None
    version: int | None = None
