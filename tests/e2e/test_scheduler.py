"""The scheduler against a real ggd and the scripted model: firings are sessions, approvals are
denied unattended, a crashed channel is `failed` while RPC answers, sidecars never fire jobs.

Real-clock waits are bounded and few: jobs fire through gg/job.run, or as once jobs a second or
two ahead; GG_SCHEDULER_MAX_SLEEP (test-only, env) shortens the loop's longest sleep.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from .daemon import TOKEN, Daemon, daemon_env
from .rpc_client import RpcClient, RpcError

FakeDaemon = Callable[..., tuple[Daemon, Any]]


async def _finished(c: RpcClient, run_id: str, timeout: float = 30) -> dict[str, Any]:
    return await c.wait_for(
        "gg/job.event",
        lambda p: p["type"] == "finished" and p["run"]["id"] == run_id,
        timeout,
    )


async def test_run_now_is_a_session_and_unattended_approver_denies(
    fake_daemon: FakeDaemon, workspace: Path
) -> None:
    write = {"toolCalls": [{"name": "write", "arguments": {"path": "x.md", "content": "hi"}}]}
    script = [
        write,  # job "plain" (no allowAll): the edit is denied
        {"text": "The edit was denied."},
        write,  # job "Nightly" (allowAll): the edit runs, the dangerous command does not
        {"toolCalls": [{"name": "bash", "arguments": {"command": "rm -rf /"}}]},
        {"text": "Done; the command was refused."},
    ]
    d, fm = fake_daemon(script)
    c = await d.connect("unix")
    try:
        await c.request("gg/job.add", {"name": "plain", "cron": "0 3 * * *", "prompt": "edit"})
        rec = (await c.request("gg/job.run", {"job": "PLAIN"}))["run"]
        done = await _finished(c, rec["id"])
        assert done["run"]["status"] == "ok", done
        assert not (workspace / "x.md").exists()
        denial = [m for m in fm.requests[1]["messages"] if m.get("role") == "tool"]
        assert "scheduled job plain" in str(denial[0]["content"]), denial

        added = await c.request(
            "gg/job.add",
            {"name": "Nightly", "cron": "0 3 * * *", "prompt": "tidy up", "allowAll": True},
        )
        job = added["job"]
        assert job["kind"] == "cron" and job["allowAll"] is True and job["nextRun"] > 0
        res = await c.request("gg/job.run", {"job": "nightly"})
        rec = res["run"]
        assert rec["status"] == "running" and rec["sessionId"]
        done = await _finished(c, rec["id"])
        assert done["run"]["status"] == "ok"
        assert done["run"]["summary"] == "Done; the command was refused."
        assert (workspace / "x.md").read_text() == "hi"
        tool_msgs = [m for m in fm.requests[-1]["messages"] if m.get("role") == "tool"]
        assert "dangerous commands are never run by scheduled job Nightly" in str(
            tool_msgs[-1]["content"]
        ), tool_msgs
        sessions = (await c.request("gg/session.list", {}))["sessions"]
        names = [s["name"] for s in sessions]
        assert any(n.startswith("scheduler/Nightly-") for n in names), names
        assert rec["sessionId"] in {s["id"] for s in sessions}
        log = (await c.request("gg/job.log", {"job": job["id"]}))["runs"]
        assert [r["status"] for r in log] == ["ok"]
        listed = await c.request("gg/job.list", {})
        assert listed["scheduler"] == "running"
        nightly = next(j for j in listed["jobs"] if j["name"] == "Nightly")
        assert nightly["runCount"] == 1 and nightly["lastRun"] >= rec["startedAt"]
    finally:
        await c.close()


async def test_once_job_fires_by_itself_and_errors_do_not_stop_the_loop(
    fake_daemon: FakeDaemon, gg_home: Path
) -> None:
    d, _fm = fake_daemon(
        [
            {"status": 401, "errorBody": {"error": {"message": "Invalid API key"}}},
            {"text": "fired on time"},
        ]
    )
    c = await d.connect("ws")
    try:
        # The model refuses the first firing: it is recorded `error`, the loop goes on.
        soon = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
        bad = await c.request("gg/job.add", {"name": "broken", "at": soon, "prompt": "x"})
        good = await c.request("gg/job.add", {"name": "later", "inSeconds": 2, "prompt": "go"})
        first = await c.wait_for(
            "gg/job.event",
            lambda p: p["type"] == "finished" and p["jobId"] == bad["job"]["id"],
            timeout=20,
        )
        assert first["run"]["status"] == "error" and first["run"]["summary"], first
        second = await c.wait_for(
            "gg/job.event",
            lambda p: p["type"] == "finished" and p["jobId"] == good["job"]["id"],
            timeout=20,
        )
        assert second["run"]["status"] == "ok" and second["run"]["summary"] == "fired on time"
        jobs = {j["name"]: j for j in (await c.request("gg/job.list", {}))["jobs"]}
        assert "nextRun" not in jobs["later"]  # a once job that fired has nothing left
        assert jobs["later"]["runCount"] == 1
    finally:
        await c.close()


async def test_bad_input_is_refused_naming_the_field(daemon: Daemon) -> None:
    c = await daemon.connect("unix")
    try:
        cases = [
            ({"name": "a", "cron": "61 * * * *", "prompt": "p"}, "schedule"),
            ({"name": "a", "at": "tomorrow-ish", "prompt": "p"}, "at"),
            (
                {"name": "a", "cron": "@daily", "timezone": "Mars/Olympus", "prompt": "p"},
                "timezone",
            ),
            ({"name": "a", "prompt": "p"}, "schedule"),
        ]
        for params, field in cases:
            with pytest.raises(RpcError) as err:
                await c.request("gg/job.add", params)
            assert err.value.code == -32602 and field in err.value.message, err.value.message
        await c.request("gg/job.add", {"name": "Dup", "cron": "@daily", "prompt": "p"})
        with pytest.raises(RpcError) as err:
            await c.request("gg/job.add", {"name": "dup", "cron": "@hourly", "prompt": "p"})
        assert err.value.code == -32602 and "name" in err.value.message
        with pytest.raises(RpcError) as err:
            await c.request("gg/job.run", {"job": "missing"})
        assert err.value.code == -32013
    finally:
        await c.close()
    jobs_file = daemon.home / "scheduler" / "jobs.json"
    assert jobs_file.stat().st_mode & 0o777 == 0o600
    assert (daemon.home / "scheduler").stat().st_mode & 0o777 == 0o700


async def test_crashed_channel_is_failed_while_rpc_answers(gg_home: Path, workspace: Path) -> None:
    store = gg_home / "scheduler"
    store.mkdir(parents=True, mode=0o700)
    (store / "jobs.json").write_text("{ not json")  # the injected crash: an unreadable store
    d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()
    try:
        async with httpx.AsyncClient() as http:

            async def state() -> dict[str, Any]:
                r = await http.get(
                    d.http_url + "health", headers={"Authorization": f"Bearer {TOKEN}"}
                )
                return next(ch for ch in r.json()["channels"] if ch["name"] == "scheduler")

            got: dict[str, Any] = {}
            for _ in range(200):  # bounded: the channel fails as soon as it reads the store
                got = await state()
                if got["state"] == "failed":
                    break
                await asyncio.sleep(0.05)
            assert got["state"] == "failed" and "jobs.json" in got.get("error", "")
        c = await d.connect("unix")
        try:
            info = await c.request("gg/system.info", {})
            ch = next(x for x in info.get("channels", []) if x["name"] == "scheduler")
            assert ch["state"] == "failed"
            assert (await c.request("gg/session.list", {}))["sessions"] == []
        finally:
            await c.close()
    finally:
        d.stop()


async def test_no_scheduler_flag_and_sidecar_do_not_fire(gg_home: Path, workspace: Path) -> None:
    d = Daemon(gg_home, workspace, daemon_env(gg_home), args=["--no-scheduler"]).start()
    try:
        c = await d.connect("unix")
        info = await c.request("gg/system.info", {})
        ch = next(x for x in info["channels"] if x["name"] == "scheduler")
        assert ch["state"] == "disabled" and "--no-scheduler" in ch["error"]
        assert "disabled" in (await c.request("gg/job.list", {}))["scheduler"]
        await c.close()
        side = await d.connect("stdio")  # a private child while ggd runs
        try:
            info = await side.request("gg/system.info", {})
            ch = next(x for x in info["channels"] if x["name"] == "scheduler")
            assert ch["state"] == "disabled"
            assert d.proc is not None and f"pid {d.proc.pid}" in ch["error"]
            assert "jobs" in info["capabilities"]
        finally:
            await side.close()
    finally:
        d.stop()


async def test_a_job_another_process_adds_is_picked_up(gg_home: Path, workspace: Path) -> None:
    """The test process writes the store directly (as `gg job add --no-daemon` would); the
    daemon's loop sees it on its next look (GG_SCHEDULER_MAX_SLEEP shortens the 30 s)."""
    from ggd.app.workspaces import workspace_id
    from ggd.capabilities.scheduler.jobs import build_job
    from ggd.capabilities.scheduler.protocol import JobAddParams
    from ggd.capabilities.scheduler.store import JobStore
    from tests.fakes.fake_openai import FakeModel

    fm = FakeModel([{"text": "picked up"}]).start()
    env = daemon_env(
        gg_home,
        {
            "OPENAI_BASE_URL": fm.base_url,
            "OPENAI_API_KEY": "k",
            "GG_MODEL": "fake-model",
            "GG_SCHEDULER_MAX_SLEEP": "0.2",
        },
    )
    d = Daemon(gg_home, workspace, env).start()
    c = await d.connect("unix")
    try:
        store = JobStore(gg_home)
        params = JobAddParams(name="outside", prompt="p", in_seconds=1, timezone="UTC")
        job = store.add(build_job(params, workspace_id(workspace), "UTC", store.clock()))
        done = await c.wait_for(
            "gg/job.event",
            lambda p: p["type"] == "finished" and p["jobId"] == job.id,
            timeout=20,
        )
        assert done["run"]["status"] == "ok" and done["run"]["summary"] == "picked up"
    finally:
        await c.close()
        d.stop()
        fm.stop()


async def test_a_sidecar_alone_still_runs_no_channels_and_says_why(
    gg_home: Path, workspace: Path
) -> None:
    """No other ggd: the sidecar still does not take the lock (a later ggd must start)."""
    from .daemon import GGD

    side = await RpcClient.stdio(
        [*GGD, "--stdio", "--exit-on-stdin-eof", "--workspace", str(workspace)], daemon_env(gg_home)
    )
    try:
        await side.initialize(workspace)
        info = await side.request("gg/system.info", {})
        ch = next(x for x in info["channels"] if x["name"] == "scheduler")
        assert ch["state"] == "disabled" and "runs no channels" in ch["error"]
        added = await side.request("gg/job.add", {"name": "j", "cron": "@daily", "prompt": "p"})
        assert added["job"]["name"] == "j"  # the API is served; the job fires in `ggd`
        d = Daemon(gg_home, workspace, daemon_env(gg_home)).start()  # not refused: no lock held
        try:
            c = await d.connect("unix")
            listed = await c.request("gg/job.list", {})
            assert listed["scheduler"] == "running" and listed["jobs"][0]["name"] == "j"
            await c.close()
        finally:
            d.stop()
    finally:
        await side.close()
