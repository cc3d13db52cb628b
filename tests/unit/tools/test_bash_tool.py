"""bash: real subprocesses, output tail and log, timeout and cancellation kill the group, sandbox."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from ggd.tools import ToolContext, ToolError
from ggd.tools.bash_tool import KEEP_BYTES, BashTool
from ggd.tools.sandbox import bwrap_argv, sandbox_prefix


async def wait_for_file(path: Path, timeout: float = 10.0) -> str:
    """Wait (bounded) until path exists with content."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_output_and_exit_code(ws: Path, ctx: ToolContext) -> None:
    r = await BashTool().run({"command": "echo out; echo err >&2; pwd; exit 3"}, ctx)
    assert r.output.splitlines() == ["out", "err", str(ws.resolve()), "[exit code: 3]"]
    assert r.is_error and r.details and r.details["exitCode"] == 3
    r = await BashTool().run({"command": "true"}, ctx)
    assert r.output == "[exit code: 0]" and not r.is_error


async def test_tail_kept_and_full_log_saved(ctx: ToolContext) -> None:
    cmd = "for i in $(seq 1 20000); do echo line-$i; done"
    r = await BashTool().run({"command": cmd}, ctx)
    assert r.details is not None and r.details["truncated"]
    assert r.output.splitlines()[0].startswith("[output truncated")
    assert "line-20000\n[exit code: 0]" in r.output
    assert "line-1\n" not in r.output
    body = r.output.split("\n", 1)[1].rsplit("\n", 1)[0]
    assert len(body.encode()) <= KEEP_BYTES
    log = Path(r.details["logPath"])
    assert log.parent == ctx.log_dir
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    text = log.read_text()
    assert text.startswith("line-1\n") and text.endswith("line-20000\n")
    assert r.details["outputBytes"] == len(text.encode())


async def test_timeout_kills_the_process_group(ctx: ToolContext) -> None:
    r = await BashTool().run({"command": "sleep 60 & sleep 60", "timeout": 1}, ctx)
    assert r.is_error and r.details and r.details["timedOut"]
    assert "[timed out after 1 s; the process group was killed]" in r.output
    assert group_gone(r.details["pid"])


async def test_cancellation_kills_the_group_and_reraises(ws: Path, ctx: ToolContext) -> None:
    pidfile = ws / "pid"
    task = asyncio.create_task(BashTool().run({"command": "sleep 60 & echo $$ > pid; wait"}, ctx))
    pgid = int(await wait_for_file(pidfile))
    assert not group_gone(pgid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert group_gone(pgid)


async def test_background_child_holding_output_does_not_hang(ctx: ToolContext) -> None:
    r = await asyncio.wait_for(
        BashTool().run({"command": "sleep 30 & echo started", "timeout": 20}, ctx), 15
    )
    assert r.output.startswith("started") and "[exit code: 0]" in r.output
    assert r.details and not r.details["timedOut"]
    os.killpg(r.details["pid"], 9)  # tidy up the background sleep


async def test_env_and_bad_arguments(ctx: ToolContext) -> None:
    ctx.env = {"PATH": os.environ["PATH"], "GG_PROBE": "42", "SHELL": "/bin/bash"}
    r = await BashTool().run({"command": "echo $GG_PROBE"}, ctx)
    assert "42" in r.output.splitlines()
    with pytest.raises(ToolError):
        await BashTool().run({"command": "   "}, ctx)
    with pytest.raises(ToolError):
        await BashTool().run({"command": "ls", "timeout": "soon"}, ctx)


def test_describe_uses_the_classifier(ctx: ToolContext) -> None:
    info = BashTool().describe({"command": "ls -la"}, ctx)
    assert (info.risk, info.needs_approval) == ("read_only", False)
    info = BashTool().describe({"command": "npm test"}, ctx)
    assert (info.risk, info.needs_approval) == ("normal", True)
    info = BashTool().describe({"command": "curl x | sh"}, ctx)
    assert info.risk == "dangerous" and info.risk_reason == "download piped into a shell"
    assert info.details == "curl x | sh"


def test_bwrap_argv_mounts_tmp_before_the_workspace(tmp_path: Path) -> None:
    argv = bwrap_argv("/usr/bin/bwrap", tmp_path)
    assert argv.index("--tmpfs") < argv.index("--bind")
    assert argv[argv.index("--bind") : argv.index("--bind") + 3] == [
        "--bind",
        str(tmp_path),
        str(tmp_path),
    ]
    for flag in ("--die-with-parent", "--unshare-pid", "--ro-bind"):
        assert flag in argv


async def test_sandbox_confines_writes_to_the_workspace(
    ws: Path, ctx: ToolContext, tmp_path: Path
) -> None:
    prefix, why = await sandbox_prefix(ws.resolve())
    if prefix is None:
        pytest.skip(f"bubblewrap unusable here: {why}")
    other = tmp_path / "other"
    other.mkdir()
    ctx.sandbox = True
    cmd = f"echo in > inside.txt; echo out > {other}/outside.txt; echo rc=$?"
    r = await BashTool().run({"command": cmd}, ctx)
    assert r.details and r.details["sandboxed"]
    assert (ws / "inside.txt").read_text() == "in\n"
    assert not (other / "outside.txt").exists()
    assert "rc=1" in r.output


async def test_sandbox_missing_refuses_to_run_unconfined(
    ws: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ggd.tools.sandbox.shutil.which", lambda name: None)
    ctx.sandbox = True
    with pytest.raises(ToolError, match="bubblewrap"):
        await BashTool().run({"command": "echo hi > ran.txt"}, ctx)
    assert not (ws / "ran.txt").exists()
