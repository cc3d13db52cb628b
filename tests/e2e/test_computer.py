"""Computer tools through a real daemon: process_kill asks first, and refuses the daemon and pid 1."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from .runs_helpers import finish, finished_tools, new_session, start, until


async def test_process_kill_with_approval_and_its_refusals(
    fake_daemon: Any, tmp_path: Path
) -> None:
    victim = subprocess.Popen(["sleep", "300"])
    try:
        d, fm = fake_daemon([])  # the script needs the daemon's pid: added once it runs
        calls = [
            {"id": "k1", "name": "process_kill", "arguments": {"pid": victim.pid}},
            {"id": "k2", "name": "process_kill", "arguments": {"pid": d.proc.pid}},
            {"id": "k3", "name": "process_kill", "arguments": {"pid": 1, "signal": "KILL"}},
        ]
        fm.add_steps([{"toolCalls": calls}, {"text": "done"}])
        c = await d.connect("unix")
        info = await c.request("gg/system.info")
        assert "computer" in info["capabilities"]
        sid = await new_session(c)
        run_id = await start(c, sid, "stop the sleeper", interactive=True)
        seen = 0
        for _ in range(3):
            ev = await until(c, run_id, "approval_requested", after=seen)
            seen = ev["sequence"]
            await c.request(
                "gg/run.approve",
                {"runId": run_id, "approvalId": ev["approval"]["id"], "allow": True},
            )
        assert (await finish(c, run_id))["type"] == "run_completed"
        assert victim.wait(timeout=10) != 0  # killed by SIGTERM
        results = finished_tools(c, run_id)
        assert not results["k1"]["isError"]
        assert results["k2"]["isError"] and "daemon itself" in results["k2"]["output"]
        assert results["k3"]["isError"] and "refused" in results["k3"]["output"]
        assert d.proc.poll() is None
        await c.close()
    finally:
        if victim.poll() is None:
            victim.kill()
        victim.wait()


async def test_process_kill_takes_sigterm_as_models_write_it(fake_daemon: Any) -> None:
    victim = subprocess.Popen(["sleep", "300"])
    try:
        d, fm = fake_daemon([])
        call = {
            "id": "k1",
            "name": "process_kill",
            "arguments": {"pid": victim.pid, "signal": "SIGTERM"},
        }
        fm.add_steps([{"toolCalls": [call]}, {"text": "done"}])
        c = await d.connect("unix")
        sid = await new_session(c)
        run_id = await start(c, sid, "stop the sleeper", interactive=True)
        ev = await until(c, run_id, "approval_requested")
        assert (
            "SIGTERM" in ev["approval"]["details"] and "SIGSIGTERM" not in ev["approval"]["details"]
        )
        await c.request(
            "gg/run.approve", {"runId": run_id, "approvalId": ev["approval"]["id"], "allow": True}
        )
        assert (await finish(c, run_id))["type"] == "run_completed"
        assert victim.wait(timeout=10) == -15  # SIGTERM, not refused as an unknown signal
        await c.close()
    finally:
        if victim.poll() is None:
            victim.kill()
        victim.wait()
