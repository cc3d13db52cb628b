"""The tools with a client delegate: buffer text in, new text out, bash in the client's terminal.

The delegate here is an in-process editor (the real one is gg/client.* over a connection, tested
end to end); it records what gg asked and can fail the ways a real editor does.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from ggd.tools import ToolContext, ToolError, bash_client
from ggd.tools.bash_tool import KEEP_BYTES, BashTool
from ggd.tools.client import ClientToolError, CommandOutcome
from ggd.tools.edit_tools import EditTool, WriteTool
from ggd.tools.fs_tools import ReadTool


class Editor:
    """A ClientDelegate with buffers and a scripted terminal."""

    def __init__(self, read: bool = True, write: bool = True, run: bool = True) -> None:
        self.can_read, self.can_write, self.can_run = read, write, run
        self.buffers: dict[Path, str] = {}
        self.writes: list[tuple[Path, str]] = []
        self.commands: list[tuple[str, Path, float, int]] = []
        self.outcome: CommandOutcome | None = CommandOutcome(output="ok\n", exit_code=0)
        self.fail: ClientToolError | None = None
        self.running = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def read_text(self, path: Path) -> str:
        if self.fail is not None:
            raise self.fail
        if path not in self.buffers:
            raise ClientToolError("no such buffer", delivered=True)
        return self.buffers[path]

    async def write_text(self, path: Path, content: str) -> None:
        if self.fail is not None:
            raise self.fail
        self.writes.append((path, content))
        self.buffers[path] = content

    async def run_command(
        self, command: str, cwd: Path, time_limit: float, output_limit: int
    ) -> CommandOutcome:
        self.commands.append((command, cwd, time_limit, output_limit))
        if self.fail is not None:
            raise self.fail
        if self.outcome is None:  # a command that runs until it is cancelled
            self.running.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        assert self.outcome is not None
        return self.outcome


def _with(ctx: ToolContext, editor: Editor, sandbox: bool = False) -> ToolContext:
    return dataclasses.replace(ctx, client=editor, sandbox=sandbox)


async def test_read_pages_the_buffer_text_with_gg_numbering(ctx: ToolContext, ws: Path) -> None:
    f = ws / "a.py"
    f.write_text("disk\n")
    editor = Editor()
    editor.buffers[f.resolve()] = "".join(f"line {n}\n" for n in range(1, 3001))
    res = await ReadTool().run({"path": "a.py", "offset": 2, "limit": 3}, _with(ctx, editor))
    assert res.output.splitlines()[:3] == ["     2\tline 2", "     3\tline 3", "     4\tline 4"]
    assert "call read with offset=5" in res.output
    assert res.details == {"lines": 3000, "from": 2, "to": 4, "source": "editor"}
    # The default page stops at gg's own line limit, as on disk.
    full = await ReadTool().run({"path": "a.py"}, _with(ctx, editor))
    assert full.details is not None and full.details["to"] == 2000


async def test_read_outside_the_workspace_or_after_a_failure_uses_the_disk(
    ctx: ToolContext, ws: Path, tmp_path: Path
) -> None:
    (ws / "a.txt").write_text("on disk\n")
    editor = Editor()
    editor.fail = ClientToolError("the client disconnected", delivered=True)
    res = await ReadTool().run({"path": "a.txt"}, _with(ctx, editor))
    assert "on disk" in res.output and res.details is not None
    assert "the client disconnected" in res.details["clientFallback"]
    # Outside the workspace the client is never asked, and gg's own refusal stands.
    editor.fail = None
    with pytest.raises(ToolError, match="outside the workspace"):
        await ReadTool().run({"path": str(tmp_path / "x")}, _with(ctx, editor))


async def test_edit_applies_to_the_buffer_then_writes_disk_and_buffer(
    ctx: ToolContext, ws: Path
) -> None:
    f = ws / "a.py"
    f.write_text("x = 1\n")
    editor = Editor()
    editor.buffers[f.resolve()] = "x = 1\ny = 2  # unsaved\n"
    c = _with(ctx, editor)
    args = {"path": "a.py", "edits": [{"oldText": "y = 2", "newText": "y = 3"}]}
    tool = EditTool()
    info = await tool.describe_live(args, c, tool.describe(args, c))
    assert "+y = 3  # unsaved" in str(info.details)  # the diff the user approves is the buffer's
    res = await tool.run(args, c)
    assert f.read_text() == "x = 1\ny = 3  # unsaved\n"
    assert editor.writes == [(f.resolve(), "x = 1\ny = 3  # unsaved\n")]
    assert res.details is not None and res.details["source"] == "editor"


async def test_a_buffer_the_client_would_not_take_is_said_in_the_result(
    ctx: ToolContext, ws: Path
) -> None:
    editor = Editor(read=False)
    editor.fail = ClientToolError("read-only buffer", delivered=True)
    res = await WriteTool().run({"path": "new.txt", "content": "hi\n"}, _with(ctx, editor))
    assert (ws / "new.txt").read_text() == "hi\n"  # the disk write stands
    assert res.details is not None and "read-only buffer" in res.details["bufferNotUpdated"]


async def test_bash_in_the_client_keeps_ggs_output_limit(ctx: ToolContext) -> None:
    editor = Editor()
    editor.outcome = CommandOutcome(output="a" * KEEP_BYTES + "TAIL\n", exit_code=3)
    res = await BashTool().run({"command": "make", "timeout": 7}, _with(ctx, editor))
    assert editor.commands == [("make", ctx.workspace.resolve(), 7.0, KEEP_BYTES)]
    assert res.is_error and res.output.endswith("TAIL\n[exit code: 3]")
    assert "[output truncated" in res.output
    assert res.details is not None and res.details["truncated"] and res.details["exitCode"] == 3
    assert len(res.output.encode()) < KEEP_BYTES + 200


async def test_bash_stays_ggs_own_under_the_sandbox_or_without_a_terminal(
    ctx: ToolContext,
) -> None:
    editor = Editor(run=False)
    res = await BashTool().run({"command": "echo own"}, _with(ctx, editor))
    assert "own" in res.output and editor.commands == []
    assert not bash_client.uses_client(_with(ctx, Editor(), sandbox=True))


async def test_a_command_that_never_reached_the_client_runs_here_and_says_so(
    ctx: ToolContext,
) -> None:
    editor = Editor()
    editor.fail = ClientToolError("the client is gone", delivered=False)
    res = await BashTool().run({"command": "echo local"}, _with(ctx, editor))
    assert "local" in res.output and bash_client.UNREACHABLE in res.output


async def test_a_command_the_client_may_have_run_is_not_run_twice(
    ctx: ToolContext, ws: Path
) -> None:
    editor = Editor()
    editor.fail = ClientToolError("the client disconnected", delivered=True)
    res = await BashTool().run({"command": f"touch {ws / 'twice'}"}, _with(ctx, editor))
    assert res.is_error and "did not run the command again" in res.output
    assert not (ws / "twice").exists()


async def test_cancelling_bash_cancels_the_clients_command(ctx: ToolContext) -> None:
    editor = Editor()
    editor.outcome = None
    task = asyncio.create_task(BashTool().run({"command": "sleep 99"}, _with(ctx, editor)))
    await asyncio.wait_for(editor.running.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert editor.cancelled.is_set()


async def test_a_client_that_overruns_the_timeout_is_cancelled_and_reported(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bash_client, "CLIENT_GRACE", 0.05)
    editor = Editor()
    editor.outcome = None
    res = await BashTool().run({"command": "sleep 99", "timeout": 1}, _with(ctx, editor))
    assert editor.cancelled.is_set()
    assert res.is_error and "timed out after 1 s" in res.output
    assert res.details is not None and res.details["timedOut"]
