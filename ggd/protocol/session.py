"""gg/session.* params and results."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Params, Result
from .dto import SessionSummary, TodoItem, UsageInfo


class SessionListParams(Params):
    """Page through sessions of the connection's workspace, newest first."""

    limit: int = Field(default=50, ge=1, le=500)
    cursor: str | None = None
    # Every workspace's sessions, each row naming its workspace (`gg sessions --all`).
    all_workspaces: bool = False


class SessionListResult(Result):
    """One page of sessions."""

    sessions: list[SessionSummary]
    next_cursor: str | None = None


class SessionCreateParams(Params):
    """Create a session in the connection's workspace."""

    name: str | None = Field(default=None, max_length=200)
    model: str | None = Field(default=None, max_length=200)


class SessionIdParams(Params):
    """Name one session."""

    session_id: str = Field(min_length=1, max_length=200)


class SessionRenameParams(Params):
    """Rename a session."""

    session_id: str = Field(min_length=1, max_length=200)
    name: str = Field(min_length=1, max_length=200)


class SessionActionParams(Params):
    """A tree action: tree (checkout), fork or clone."""

    session_id: str = Field(min_length=1, max_length=200)
    action: Literal["tree", "fork", "clone"]
    node_id: str | None = None
    # tree only: also restore the workspace files to the node's checkpoint (gg/session.restore).
    restore_files: bool = False
    # With restoreFiles: overwrite files changed outside gg since the last checkpoint.
    confirm_conflicts: bool = False


class EmptyResult(Result):
    """An empty object."""


class SessionCompactParams(Params):
    """Summarise the older part of a session now."""

    session_id: str = Field(min_length=1, max_length=200)
    instructions: str | None = Field(default=None, max_length=4000)


class SessionCompactResult(Result):
    """The summary that replaced older messages, or null when there was nothing to compact."""

    summary: str | None = None
    compacted: bool


class SessionContextResult(Result):
    """How full the model's context is for this session (estimates)."""

    model: str
    context_tokens: int
    context_window: int | None = None
    prompt_budget: int
    message_count: int
    has_summary: bool
    # Tokens and cost of every model request of the session; null before the first.
    usage: UsageInfo | None = None


class SessionTodosResult(Result):
    """The session's current todo list (the last todo_write on its active branch; empty if none)."""

    todos: list[TodoItem]
