"""Computer tools on this machine: facts, processes, refusals, bounded helpers, the clipboard."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ggd.capabilities.computer import ComputerProvider
from ggd.capabilities.computer.procs import HelperError, run_helper
from ggd.capabilities.computer.tools import ComputerInfo, ProcessKill, ProcessList
from ggd.tools import ToolContext, ToolError


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=tmp_path, log_dir=tmp_path / "logs")


async def test_computer_info_reports_memory_and_disks(ctx: ToolContext) -> None:
    out = (await ComputerInfo().run({}, ctx)).output
    assert "memory:" in out and "disk /" in out and "uptime:" in out


async def test_process_list_finds_a_process_we_started(ctx: ToolContext) -> None:
    proc = subprocess.Popen(["sleep", "30"])
    try:
        out = (await ProcessList().run({"sort": "mem", "limit": 200}, ctx)).output
        assert any(line.split("\t")[0] == str(proc.pid) for line in out.splitlines())
        with pytest.raises(ToolError):
            await ProcessList().run({"sort": "name"}, ctx)
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("pid", [1, 0, -5])
async def test_process_kill_refuses_the_system_pids(ctx: ToolContext, pid: int) -> None:
    with pytest.raises(ToolError, match="refused"):
        await ProcessKill().run({"pid": pid}, ctx)


async def test_process_kill_refuses_the_daemon_and_its_children(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="daemon itself"):
        await ProcessKill().run({"pid": os.getpid()}, ctx)
    child = subprocess.Popen(["sleep", "30"])  # a child of "the daemon" (this process)
    try:
        with pytest.raises(ToolError, match="belongs to the gg daemon"):
            await ProcessKill().run({"pid": child.pid, "signal": "KILL"}, ctx)
        assert child.poll() is None
    finally:
        child.kill()
        child.wait()


async def test_a_helper_that_hangs_is_killed_with_its_group(tmp_path: Path) -> None:
    marker = tmp_path / "grandchild.pid"
    started = time.monotonic()
    with pytest.raises(HelperError, match="did not finish"):
        await run_helper(["sh", "-c", f"sleep 60 & echo $! > {marker}; wait"], limit=0.5)
    assert time.monotonic() - started < 10
    grandchild = int(marker.read_text())
    for _ in range(100):
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.02)
    else:
        pytest.fail("the helper's background child survived the timeout")


def test_display_tools_are_absent_without_a_display() -> None:
    names = {t.name for t in ComputerProvider({"PATH": os.environ["PATH"]}).tools()}
    assert {"computer_info", "process_list", "process_kill"} <= names
    assert not names & {"clipboard_read", "clipboard_write", "notify", "open"}
    assert ComputerProvider({}, platform="darwin").available(None) is not None  # type: ignore[arg-type]


@pytest.fixture
def xvfb() -> Iterator[str]:
    if shutil.which("Xvfb") is None or shutil.which("xclip") is None:
        pytest.skip("Xvfb and xclip are not installed here (make test installs them)")
    for n in range(90, 110):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            break
    display = f":{n}"
    proc = subprocess.Popen(
        ["Xvfb", display, "-nolisten", "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 10
    while not Path(f"/tmp/.X11-unix/X{n}").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail("Xvfb did not start")
        time.sleep(0.02)
    yield display
    proc.terminate()
    proc.wait()


async def test_the_clipboard_round_trips_under_xvfb(
    xvfb: str, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", xvfb)
    tools = {t.name: t for t in ComputerProvider({**os.environ, "DISPLAY": xvfb}).tools()}
    assert "clipboard_read" in tools and "clipboard_write" in tools
    assert tools["clipboard_write"].describe({"text": "hi"}, ctx).needs_approval
    await tools["clipboard_write"].run({"text": "gg clipboard ✓"}, ctx)
    assert (await tools["clipboard_read"].run({}, ctx)).output == "gg clipboard ✓"
