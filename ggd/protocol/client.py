"""gg/client.*: requests the daemon sends to the connection that started a run with clientTools."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from .base import Params, Result, WireModel
from .spec import MethodSpec


class ClientReadTextFileParams(Params):
    """Ask the client for a file's text as the user sees it (an unsaved buffer included)."""

    run_id: str
    tool_call_id: str | None = Field(default=None, description="The tool call it serves.")
    path: str = Field(description="Absolute path inside the run's workspace.")


class ClientReadTextFileResult(Result):
    """The file's text."""

    model_config = ConfigDict(extra="ignore")
    content: str


class ClientWriteTextFileParams(Params):
    """Hand the client a file's new text after gg wrote it to disk."""

    run_id: str
    tool_call_id: str | None = Field(default=None, description="The tool call it serves.")
    path: str = Field(description="Absolute path inside the run's workspace.")
    content: str


class ClientRunCommandParams(Params):
    """Run a shell command in the client's terminal; `$/cancelRequest` kills it."""

    run_id: str
    tool_call_id: str | None = Field(default=None, description="The tool call it serves.")
    command: str = Field(description="One bash command line, as the bash tool got it.")
    cwd: str = Field(description="The workspace folder.")
    timeout_ms: int = Field(description="Kill the command after this long and report it.")
    output_byte_limit: int = Field(description="Keep at most this many bytes, the end of it.")


class ClientRunCommandResult(Result):
    """What the terminal reported: its output (the end of it), exit code or signal."""

    model_config = ConfigDict(extra="ignore")
    output: str = ""
    truncated: bool = False
    exit_code: int | None = None
    signal: str | None = None
    timed_out: bool = False


class ClientEmpty(WireModel):
    """An empty result (extra fields ignored)."""

    model_config = ConfigDict(extra="ignore")


CLIENT_READ_TEXT_FILE = MethodSpec(
    "gg/client.readTextFile",
    "Server request (clientTools.readTextFile): a workspace file's text as the editor shows it, "
    "unsaved edits included; on an error or a closed connection gg reads the disk.",
    ClientReadTextFileParams,
    ClientReadTextFileResult,
    direction="server",
    scope="run",
    example={
        "params": {"runId": "r_77c0", "path": "/home/me/app/README.md"},
        "result": {"content": "# app (unsaved edit)\n"},
    },
)
CLIENT_WRITE_TEXT_FILE = MethodSpec(
    "gg/client.writeTextFile",
    "Server request (clientTools.writeTextFile): a file's new text after gg wrote it to disk, "
    "for the editor's buffer; answered before the tool call finishes.",
    ClientWriteTextFileParams,
    ClientEmpty,
    direction="server",
    scope="run",
    example={
        "params": {"runId": "r_77c0", "path": "/home/me/app/README.md", "content": "# app\n"},
        "result": {},
    },
)
CLIENT_RUN_COMMAND = MethodSpec(
    "gg/client.runCommand",
    "Server request (clientTools.terminal, no sandbox): run bash's command in the editor's "
    "terminal; `$/cancelRequest` kills it. An error answer is never retried by gg.",
    ClientRunCommandParams,
    ClientRunCommandResult,
    direction="server",
    scope="run",
    example={
        "params": {
            "runId": "r_77c0",
            "command": "pytest -q",
            "cwd": "/home/me/app",
            "timeoutMs": 120000,
            "outputByteLimit": 51200,
        },
        "result": {"output": "3 passed\n", "truncated": False, "exitCode": 0},
    },
)
