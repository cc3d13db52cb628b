"""Hundreds of short subprocess tools at once: every exit code is the child's own.

asyncio's child watcher reaps each child in a thread. Anything else that reaps one of its children
(Popen.poll()/kill() on asyncio's Popen, os.wait*) makes asyncio log "Unknown child process pid N,
will report returncode 255" and hand the tool the wrong exit code. grep's early-stop and invalid
pattern paths are mixed in because they signal and wait on their children while bash runs.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from pathlib import Path

import pytest

from ggd.tools import ToolContext, ToolError
from ggd.tools.bash_tool import BashTool
from ggd.tools.grep_tool import GrepTool

LANES = 6  # concurrent lanes of sequential tools: the loop stays quick, so races show
PER_LANE = 50  # 300 subprocesses in all


async def test_every_exit_code_survives_concurrency(
    ws: Path, ctx: ToolContext, caplog: pytest.LogCaptureFixture
) -> None:
    if shutil.which("rg") is None:
        pytest.skip("ripgrep not installed")
    (ws / "many.txt").write_text("hit\n" * 2000)
    bash, grep = BashTool(), GrepTool()

    async def call(kind: str, code: int) -> object:
        if kind == "bash":
            r = await bash.run({"command": f"exit {code}"}, ctx)
            return r.details["exitCode"] if r.details else None
        if kind == "grep_invalid":
            try:
                await grep.run({"pattern": "("}, ctx)
            except ToolError as exc:
                return "grep failed" if "grep failed" in str(exc) else str(exc)
            return "no error"
        r = await grep.run({"pattern": "hit", "limit": 3}, ctx)
        return r.details["matches"] if r.details else -1

    def plan(lane: int) -> list[tuple[str, int, object]]:
        steps: list[tuple[str, int, object]] = []
        for i in range(PER_LANE):
            pick = (lane + i) % 4
            if pick == 0:
                steps.append(("bash", 7, 7))
            elif pick == 1:
                code = (lane * PER_LANE + i) % 120 + 1
                steps.append(("bash", code, code))
            elif pick == 2:
                steps.append(("grep_invalid", 2, "grep failed"))
            else:
                steps.append(("grep_limited", 0, 3))
        return steps

    async def run_lane(lane: int) -> list[tuple[str, object, object]]:
        wrong = []
        for kind, code, want in plan(lane):
            have = await call(kind, code)
            if have != want:
                wrong.append((kind, want, have))
        return wrong

    caplog.set_level(logging.WARNING, logger="asyncio")
    lanes = await asyncio.gather(*(run_lane(n) for n in range(LANES)))
    wrong = [w for lane in lanes for w in lane]
    assert not wrong, f"{len(wrong)} of {LANES * PER_LANE} tools got a wrong result: {wrong[:5]}"
    stolen = [r.getMessage() for r in caplog.records if "Unknown child process" in r.getMessage()]
    assert not stolen, stolen[:3]
