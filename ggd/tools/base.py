"""The Tool interface every builtin and capability tool implements."""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ggd.tools.client import ClientDelegate
    from ggd.tools.images import ImageStore

Risk = Literal["read_only", "normal", "dangerous"]


class ToolError(Exception):
    """A tool refused its arguments or failed in an expected way; becomes an error result."""


@dataclass
class ToolContext:
    """Where and how a tool runs: the workspace root, the log folder and the sandbox switch."""

    workspace: Path
    log_dir: Path
    sandbox: bool = False
    session_id: str = ""
    run_id: str = ""
    env: dict[str, str] | None = None
    # Extra folders that read, list and grep may read (skills); never writable through tools.
    read_roots: tuple[Path, ...] = ()
    # bash -l re-reads /etc/profile, which resets PATH (a venv's python vanishes): opt-in only.
    login_shell: bool = False
    # The editor that started the run, when it offered to read, write or run (clientTools).
    client: ClientDelegate | None = None
    # Where tools store images for the model; None when the run's model takes no images.
    images: ImageStore | None = None
    # Called with "before" and "after" around a tool that can change files (not read-only):
    # the workspace checkpoint (ggd/app/checkpoints.py). Never raises.
    checkpoint: Callable[[str], Awaitable[None]] | None = None


@dataclass
class ToolResult:
    """What a tool returns to the model (output) and to clients (details)."""

    output: str
    is_error: bool = False
    details: dict[str, Any] | None = None
    # Stored images for the model (ImageRef.wire() dicts), e.g. `read` of a picture.
    images: list[dict[str, Any]] | None = None


# Whether the approver allowed the running call (set per call by the executor, each call its own
# task; None when a caller runs tools without it). A tool whose describe() waived approval from
# what it saw (a write of content the file already has) checks it again when it runs: what it
# saw may have changed in between, and a change must not land unapproved.
TOOL_APPROVED: ContextVar[bool | None] = ContextVar("gg_tool_approved", default=None)


@dataclass
class ApprovalInfo:
    """How a tool call describes itself before it runs, for the approval policy."""

    summary: str
    risk: Risk = "normal"
    risk_reason: str = ""
    needs_approval: bool = True
    details: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Tool(abc.ABC):
    """A model-callable tool: a JSON Schema contract plus describe() and run()."""

    name: str
    description: str
    parameters: dict[str, Any]
    parallel_safe: bool = False
    # Not declared up front: named in the system prompt, loaded by tool_search or by a call.
    # For rarely used capability tools; builtins and memory stay eager (ggd/agent/toolset.py).
    deferred: bool = False
    # The tools a deferrable tool is declared or deferred with ("" : its class's module, i.e.
    # its capability); an MCP tool names its server.
    defer_group: str = ""

    def spec(self) -> dict[str, Any]:
        """The OpenAI function-tool declaration sent to the model."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    @abc.abstractmethod
    def summary(self, args: dict[str, Any]) -> str:
        """One line for tool cards, e.g. `read src/app.py`."""

    @abc.abstractmethod
    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Describe the call for approval (risk, reason, diff or preview)."""

    async def precheck(self, args: dict[str, Any], ctx: ToolContext) -> None:
        """Refuse a call before anyone is asked to approve it (raise ToolError); may await I/O,
        e.g. a DNS lookup that decides whether a URL is reachable at all."""
        return None

    async def describe_live(
        self, args: dict[str, Any], ctx: ToolContext, info: ApprovalInfo
    ) -> ApprovalInfo:
        """Refine describe() with I/O before approval (the editor's buffer); default keeps it."""
        return info

    def write_paths(self, args: dict[str, Any], ctx: ToolContext) -> list[Path]:
        """Resolved paths this call writes; used for per-path locks."""
        return []

    @abc.abstractmethod
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Execute the call; cancelling the awaiting task must stop any child process."""
