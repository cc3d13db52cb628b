"""gg/hooks.* params and results: what hooks are configured, a test run of one event, trust."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .base import Params, Result, WireModel

HookEventName = Literal[
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStop",
    "Notification",
]


class HookInfo(WireModel):
    """One configured command hook."""

    event: HookEventName
    matcher: str
    command: str
    timeout: float
    origin: str = Field(description="GG_HOME/hooks.json, config.json hooks or .gg/hooks.json")


class HooksListResult(Result):
    """The hooks that run in this workspace, the workspace file's state and any problems."""

    hooks: list[HookInfo]
    workspace_file: Literal["absent", "trusted", "untrusted", "invalid"]
    untrusted: list[HookInfo] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)


class HooksTestParams(Params):
    """Fire one event's hooks now with sample input (a tool name for the tool events)."""

    event: HookEventName
    tool_name: str = Field(default="bash", max_length=200)
    tool_input: dict[str, Any] | None = None
    prompt: str = Field(default="hello", max_length=10_000)


class HookRunInfo(WireModel):
    """What one hook did in a test."""

    command: str
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    error: str | None = None


class HooksTestResult(Result):
    """The input the hooks got, what each did, and what gg would do with it."""

    input: dict[str, Any]
    runs: list[HookRunInfo]
    blocked: bool
    reason: str = ""
    decision: Literal["allow", "deny", "ask"] | None = None
    context: str = ""


class HooksTrustResult(Result):
    """How many hooks the now trusted workspace file adds."""

    hooks: int
