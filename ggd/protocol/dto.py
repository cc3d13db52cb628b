"""Data transfer objects shared by several methods and events."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .base import MAX_SAFE_INT, Params, WireModel

Role = Literal["system", "user", "assistant", "tool"]
StopReason = Literal["end_turn", "tool_use", "error", "max_tokens", "canceled"]
Risk = Literal["read_only", "normal", "dangerous"]
RunState = Literal["running", "waiting_approval", "completed", "failed", "canceled"]
ApprovalMode = Literal["auto", "on-request", "yolo", "never", "plan"]


class WorkspaceRef(WireModel):
    """A workspace as clients see it: a stable id and a display name (never its path)."""

    id: str
    name: str
    # The folder, for clients on this machine only (never sent over a remote connection).
    root: str | None = None


class ToolCallRef(WireModel):
    """A tool call inside an assistant message."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ImageInfo(WireModel):
    """A stored image a message carries: fetch its bytes with gg/image.get {imageId: id}."""

    id: str
    mime_type: str
    width: int
    height: int
    size: int


class Message(WireModel):
    """One conversation message on the active branch."""

    id: str | None = None
    role: Role
    content: str | None = None
    tool_calls: list[ToolCallRef] | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool | None = None
    timestamp: int
    stop_reason: StopReason | None = None
    error: str | None = None
    # The model's reasoning before this answer, where its API streams it; never answer text.
    thinking: str | None = None
    # Images attached to a prompt, or returned by a tool (`read` of a picture).
    images: list[ImageInfo] | None = None


class TreeItem(WireModel):
    """A node of the conversation tree (message entries only)."""

    id: str
    parent_id: str | None = None
    depth: int
    role: Role
    text: str
    active: bool


class Snapshot(WireModel):
    """Everything a client needs to draw one session."""

    session_id: str
    name: str
    model: str
    summary: str | None = None
    messages: list[Message]
    tree: list[TreeItem]
    active_run_id: str | None = None
    workspace: WorkspaceRef | None = None
    # A subagent's child session: the session, run and `task` call that started it.
    parent_session_id: str | None = None
    parent_run_id: str | None = None
    tool_call_id: str | None = None
    agent: str | None = None


class SessionUpdate(Snapshot):
    """A snapshot after a tree action, with a draft to put back into the composer."""

    action: Literal["tree", "fork", "clone"] | None = None
    draft: str | None = None
    notice: str | None = None


class SessionSummary(WireModel):
    """One row of the session list."""

    id: str
    name: str
    updated_at: int
    message_count: int
    preview: str
    active_run_id: str | None = None
    damaged: bool = Field(
        default=False,
        description="some lines of the session file are not valid entries: the session opens "
        "without them, and they are kept on disk",
    )
    # Set when the list spans every workspace (allWorkspaces).
    workspace: WorkspaceRef | None = None
    # Totals of every model request the session made (on any branch); null before the first.
    usage: UsageInfo | None = None
    # A subagent's session (a child run of the `task` tool): the run and tool call that started it.
    parent_session_id: str | None = None
    parent_run_id: str | None = None
    tool_call_id: str | None = None
    agent: str | None = None


class Approval(WireModel):
    """A tool call waiting for a human decision."""

    id: str
    tool_call_id: str | None = None
    tool_name: str
    summary: str
    details: str | None = None
    arguments: dict[str, Any] | None = None
    risk: Risk | None = None
    risk_reason: str | None = None
    # Asked by a subagent: its agent name, and on the parent's stream the child run and session
    # that asked (answer it on either run with gg/run.approve).
    agent: str | None = None
    child_run_id: str | None = None
    child_session_id: str | None = None


TodoStatus = Literal["pending", "in_progress", "completed"]


class TodoItem(WireModel):
    """One item of a session's todo list (the todo_write tool writes the whole list)."""

    content: str
    status: TodoStatus


class UsageInfo(WireModel):
    """Token counts and cost of one or more model requests (a run, a session)."""

    prompt_tokens: int = Field(default=0, description="every input token, cached ones included")
    completion_tokens: int = 0
    total_tokens: int = 0
    context_tokens: int | None = None
    context_window: int | None = None
    cache_read_tokens: int = Field(default=0, description="input tokens read from the cache")
    cache_write_tokens: int = Field(default=0, description="input tokens written to the cache")
    reasoning_tokens: int = Field(default=0, description="output tokens spent reasoning")
    cost_usd: float | None = Field(
        default=None,
        description="USD from the price table; null when a request had no known price "
        "(show tokens only)",
    )
    requests: int | None = Field(default=None, description="model requests counted")


class Budget(Params):
    """Spending limits of a run (or a session, or a scheduled job's runs).

    `maxTokens` here counts every token of every request of the run (input, cached input and
    output summed); it is not the per-request output cap of the same name in a provider's
    modelParams.
    """

    max_cost_usd: float | None = Field(
        default=None, gt=0, le=1_000_000, description="stop at this many USD"
    )
    max_tokens: int | None = Field(
        default=None, gt=0, le=MAX_SAFE_INT, description="stop at this many tokens"
    )


class RunStatus(WireModel):
    """The state of one run, a projection of its event log."""

    id: str
    session_id: str
    status: RunState
    started_at: int
    completed_at: int | None = None
    first_sequence: int
    last_sequence: int
    pending_approvals: list[Approval] = Field(default_factory=list)
    usage: UsageInfo | None = None
    error: str | None = None


class DegradedProvider(WireModel):
    """A capability that could not start, and why."""

    name: str
    reason: str


class ChannelStatus(WireModel):
    """A daemon channel (scheduler, Telegram) and its state."""

    name: str
    state: Literal["running", "failed", "stopped", "disabled"]
    error: str | None = None
    since: int
