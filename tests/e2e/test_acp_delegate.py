"""`ggd --acp` with an editor that offers fs/* and terminal/*: the run uses its buffer and terminal.

The client is the agent-client-protocol Python SDK's; its "buffer" is an in-memory text that
differs from the file on disk, and its terminal really runs the command in a subprocess.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    TextContentBlock,
    WaitForTerminalExitResponse,
)

from tests.e2e.acp_child import acp_child

DISK = "# demo project\n"
BUFFER = "# demo project\nunsaved line from the editor\n"

READ_EDIT = [
    {"toolCalls": [{"id": "c_read", "name": "read", "arguments": {"path": "README.md"}}]},
    {
        "toolCalls": [
            {
                "id": "c_edit",
                "name": "edit",
                "arguments": {
                    "path": "README.md",
                    "edits": [{"oldText": "unsaved line from the editor", "newText": "kept"}],
                },
            }
        ]
    },
    {"text": "Edited the buffer."},
]


def bash_script(command: str) -> list[dict[str, Any]]:
    """One bash call, then an answer."""
    return [
        {"toolCalls": [{"id": "c_bash", "name": "bash", "arguments": {"command": command}}]},
        {"text": "Ran it."},
    ]


class _Term:
    def __init__(self, proc: asyncio.subprocess.Process, limit: int) -> None:
        self.proc = proc
        self.limit = limit
        self.output = b""
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        self.output = await self.proc.stdout.read()


class EditorClient:
    """An ACP client with unsaved buffers and a terminal that runs commands for real."""

    def __init__(self, buffers: dict[str, str] | None = None) -> None:
        self.buffers = dict(buffers or {})
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.updates: list[Any] = []
        self.permissions: list[Any] = []
        self.created: list[dict[str, Any]] = []
        self.killed: list[str] = []
        self.released: list[str] = []
        self.terms: dict[str, _Term] = {}
        self.started = asyncio.Event()
        self.kill_seen = asyncio.Event()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append(tool_call)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id="allow_once")
        )

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kw: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        text = self.buffers.get(path)
        return ReadTextFileResponse(content=text if text is not None else Path(path).read_text())

    async def write_text_file(self, session_id: str, path: str, content: str, **kw: Any) -> None:
        self.writes.append((path, content))
        self.buffers[path] = content

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kw: Any,
    ) -> CreateTerminalResponse:
        self.created.append(
            {"command": command, "args": args, "cwd": cwd, "limit": output_byte_limit}
        )
        proc = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        tid = f"term-{len(self.created)}"
        self.terms[tid] = _Term(proc, output_byte_limit or 1 << 20)
        self.started.set()
        return CreateTerminalResponse(terminal_id=tid)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kw: Any
    ) -> WaitForTerminalExitResponse:
        t = self.terms[terminal_id]
        code = await t.proc.wait()
        await t.reader
        return WaitForTerminalExitResponse(exit_code=code if code >= 0 else None)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kw: Any
    ) -> TerminalOutputResponse:
        t = self.terms[terminal_id]
        out = t.output[-t.limit :].decode(errors="replace")
        status = None
        if t.proc.returncode is not None:
            status = TerminalExitStatus(exit_code=t.proc.returncode)
        return TerminalOutputResponse(
            output=out, truncated=len(t.output) > t.limit, exit_status=status
        )

    async def kill_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> None:
        self.killed.append(terminal_id)
        t = self.terms[terminal_id]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(t.proc.pid, signal.SIGKILL)
        self.kill_seen.set()

    async def release_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> None:
        self.released.append(terminal_id)


@contextlib.asynccontextmanager
async def acp_editor(
    env: dict[str, str], workspace: Path, client: EditorClient, offer: bool = True
) -> AsyncIterator[Any]:
    """`ggd --acp` as a child of an editor that offers (or not) its buffers and terminal."""
    caps = ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=offer, write_text_file=offer), terminal=offer
    )

    def kill_terminals() -> None:
        for t in client.terms.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(t.proc.pid, signal.SIGKILL)

    async with acp_child(env, workspace, client, caps, kill_terminals) as (conn, _init):
        yield conn


def _tool_result(fm: Any, call_id: str) -> str:
    """The tool message the model got back for a call (what gg told it)."""
    for body in fm.requests:
        for m in body.get("messages", []):
            if m.get("role") == "tool" and m.get("tool_call_id") == call_id:
                return str(m.get("content"))
    raise AssertionError(f"the model never got a result for {call_id}")


async def _prompt(conn: Any, text: str = "go") -> Any:
    new = await conn.new_session(cwd=str(Path.cwd()))
    return new.session_id, await asyncio.wait_for(
        conn.prompt(session_id=new.session_id, prompt=[TextContentBlock(type="text", text=text)]),
        90,
    )


async def test_read_and_edit_use_the_editors_unsaved_buffer(
    fake_daemon, workspace: Path, monkeypatch
) -> None:
    monkeypatch.chdir(workspace)
    d, fm = fake_daemon(READ_EDIT)
    readme = str(workspace / "README.md")
    client = EditorClient({readme: BUFFER})
    async with acp_editor(d.env, workspace, client) as conn:
        _, res = await _prompt(conn)
    assert res.stop_reason == "end_turn"
    # The model read the buffer's text, not the disk's.
    assert "unsaved line from the editor" in _tool_result(fm, "c_read")
    # The edit applied to the buffer text: it landed on disk and in the buffer.
    assert (workspace / "README.md").read_text() == "# demo project\nkept\n"
    assert client.writes == [(readme, "# demo project\nkept\n")]
    assert client.buffers[readme] == "# demo project\nkept\n"
    assert "Edited README.md" in _tool_result(fm, "c_edit")
    # The permission's diff is against the buffer the user sees.
    diff = client.permissions[0].content[0]
    assert diff.old_text == BUFFER and diff.new_text == "# demo project\nkept\n"
    assert readme in client.reads


async def test_bash_runs_in_the_editors_terminal(fake_daemon, workspace: Path, monkeypatch) -> None:
    monkeypatch.chdir(workspace)
    d, fm = fake_daemon(bash_script("echo from-the-terminal; touch made-by-terminal"))
    client = EditorClient()
    async with acp_editor(d.env, workspace, client) as conn:
        _, res = await _prompt(conn)
    assert res.stop_reason == "end_turn"
    assert client.created == [
        {
            "command": "bash",
            "args": ["-c", "echo from-the-terminal; touch made-by-terminal"],
            "cwd": str(workspace),
            "limit": 50 * 1024,
        }
    ]
    result = _tool_result(fm, "c_bash")
    assert "from-the-terminal" in result and "[exit code: 0]" in result
    assert (workspace / "made-by-terminal").exists()
    assert client.released == ["term-1"] and client.killed == []
    # The tool card embeds the editor's terminal (ACP terminal content).
    shown = [
        c
        for u in client.updates
        if getattr(u, "tool_call_id", "") == "c_bash"
        for c in (getattr(u, "content", None) or [])
        if getattr(c, "type", "") == "terminal"
    ]
    assert shown and all(c.terminal_id == "term-1" for c in shown)


async def test_cancel_during_a_terminal_command_kills_the_terminal(
    fake_daemon, workspace: Path, monkeypatch
) -> None:
    monkeypatch.chdir(workspace)
    d, _ = fake_daemon(bash_script("echo started; sleep 120"))
    client = EditorClient()
    async with acp_editor(d.env, workspace, client) as conn:
        new = await conn.new_session(cwd=str(workspace))
        prompt = asyncio.create_task(
            conn.prompt(
                session_id=new.session_id, prompt=[TextContentBlock(type="text", text="go")]
            )
        )
        await asyncio.wait_for(client.started.wait(), 60)
        await conn.cancel(session_id=new.session_id)
        res = await asyncio.wait_for(prompt, 60)
        await asyncio.wait_for(client.kill_seen.wait(), 30)
        term = client.terms["term-1"]
        await asyncio.wait_for(term.proc.wait(), 30)
    assert res.stop_reason == "cancelled"
    assert client.killed == ["term-1"]
    assert term.proc.returncode == -signal.SIGKILL


async def test_an_editor_offering_nothing_keeps_ggs_own_paths(
    fake_daemon, workspace: Path, monkeypatch
) -> None:
    monkeypatch.chdir(workspace)
    script = [
        READ_EDIT[0],
        {"toolCalls": [{"id": "c_bash", "name": "bash", "arguments": {"command": "echo own"}}]},
        {"text": "done"},
    ]
    d, fm = fake_daemon(script)
    readme = str(workspace / "README.md")
    client = EditorClient({readme: BUFFER})
    async with acp_editor(d.env, workspace, client, offer=False) as conn:
        _, res = await _prompt(conn)
    assert res.stop_reason == "end_turn"
    assert "unsaved line" not in _tool_result(fm, "c_read")
    assert "# demo project" in _tool_result(fm, "c_read")
    assert "own" in _tool_result(fm, "c_bash")
    assert client.reads == [] and client.created == [] and client.writes == []


def test_the_client_tools_sent_follow_the_advertised_capabilities() -> None:
    from ggd.adapters.acp.bridge import client_tools

    assert client_tools({}) is None
    assert client_tools({"fs": {"readTextFile": True}}) == {
        "readTextFile": True,
        "writeTextFile": False,
        "terminal": False,
    }
    assert client_tools({"terminal": True, "fs": None}) == json.loads(
        '{"readTextFile": false, "writeTextFile": false, "terminal": true}'
    )
