"""The client delegate: an editor that serves file reads, buffer writes and a terminal for a run.

A run started with `clientTools` gets one of these on its ToolContext; read, edit, write and
bash consult it (ggd/rpc/editor/delegate.py implements it over the run's connection). The tools
keep their own checks and limits either way; the delegate only supplies text and runs commands.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

# The tool call a delegate request serves (set per call by the executor, each call its own
# task), so an editor can attach a terminal to the right tool card.
TOOL_CALL_ID: ContextVar[str] = ContextVar("gg_tool_call_id", default="")


class ClientToolError(Exception):
    """The client could not serve a request; `delivered` says whether it may have acted on it."""

    def __init__(self, message: str, *, delivered: bool) -> None:
        super().__init__(message)
        self.delivered = delivered


@dataclass(frozen=True)
class CommandOutcome:
    """What the client's terminal reported for one command."""

    output: str
    truncated: bool = False
    exit_code: int | None = None
    signal: str | None = None
    timed_out: bool = False


class ClientDelegate(Protocol):
    """What the connection that started the run offers to do in the editor."""

    @property
    def can_read(self) -> bool:
        """The client serves file text (its unsaved buffer when it has one)."""
        ...

    @property
    def can_write(self) -> bool:
        """The client takes a file's new text into its buffer."""
        ...

    @property
    def can_run(self) -> bool:
        """The client runs commands in a terminal of its own."""
        ...

    async def read_text(self, path: Path) -> str:
        """The text the editor shows for path; ClientToolError when it cannot say."""
        ...

    async def write_text(self, path: Path, content: str) -> None:
        """Hand path's new text to the editor; ClientToolError when it refuses."""
        ...

    async def run_command(
        self, command: str, cwd: Path, time_limit: float, output_limit: int
    ) -> CommandOutcome:
        """Run command in the editor's terminal; cancelling the caller kills it there."""
        ...


__all__ = ["TOOL_CALL_ID", "ClientDelegate", "ClientToolError", "CommandOutcome"]
