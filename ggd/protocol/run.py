"""gg/run.* params and results."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .base import MAX_SAFE_INT, Params, Result
from .dto import ApprovalMode, Budget, UsageInfo


class ClientTools(Params):
    """What the connection starting a run offers to do for it (server->client gg/client.*)."""

    read_text_file: bool = False
    write_text_file: bool = False
    terminal: bool = False


class ImageInput(Params):
    """An image attached to a prompt: a file the daemon reads, or base64 bytes."""

    # Absolute, or relative to the workspace; refused over a remote connection.
    path: str | None = Field(default=None, min_length=1, max_length=4096)
    # Base64 (a `data:` URL is accepted too); the message limit bounds it (~3 MiB of image).
    data: str | None = Field(default=None, min_length=1)
    mime_type: str | None = Field(default=None, max_length=100)


class RunStartParams(Params):
    """Start a run of the agent on a session."""

    session_id: str = Field(min_length=1, max_length=200)
    prompt: str = Field(min_length=1)
    approval_mode: ApprovalMode | None = None
    interactive: bool = False
    model: str | None = Field(default=None, max_length=200)
    subscribe: bool = True
    # Bound to this connection: gg asks it for file text, hands it new text, runs bash there.
    client_tools: ClientTools | None = None
    # Pictures for the model (PNG, JPEG, WebP, GIF); refused when the model takes no images.
    images: list[ImageInput] | None = Field(default=None, max_length=20)
    # This run's spending limits, over config's `budget.run` (docs/providers.md).
    budget: Budget | None = None
    # "low" | "medium" | "high" (or the API's own value), over the model's reasoningEffort.
    reasoning_effort: str | None = Field(default=None, min_length=1, max_length=40)


class RunStartResult(Result):
    """The new run's id."""

    run_id: str


class RunSubscribeParams(Params):
    """Replay a run's events after a sequence, then stream live ones."""

    run_id: str = Field(min_length=1)
    after_sequence: int = Field(default=0, ge=0, le=MAX_SAFE_INT)


class RunIdParams(Params):
    """Name one run."""

    run_id: str = Field(min_length=1)


class RunWaitParams(Params):
    """Long-poll a run's events after a sequence."""

    run_id: str = Field(min_length=1)
    after_sequence: int = Field(default=0, ge=0, le=MAX_SAFE_INT)
    timeout_ms: int = Field(default=30_000, ge=0, le=300_000)


class RunWaitResult(Result):
    """Events after the sequence, and whether the run is over."""

    events: list[dict[str, Any]]
    done: bool
    # What the run has spent so far (tokens, cache reads and writes, cost).
    usage: UsageInfo | None = None


class RunActiveParams(Params):
    """Ask for a session's active run."""

    session_id: str = Field(min_length=1, max_length=200)


class RunApproveParams(Params):
    """Answer a pending approval."""

    run_id: str = Field(min_length=1)
    approval_id: str = Field(min_length=1)
    allow: bool
    scope: Literal["once", "session"] = "once"


class RunSteerParams(Params):
    """Steer the active run of a session, or queue a follow-up."""

    session_id: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1)
    follow_up: bool = False
