"""The extension model against a real daemon: degraded providers, channels, per-session resources
and run visibility across workspaces (tests/fakes/testcaps.py is the capability under test)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_openai import FakeModel

from .daemon import TOKEN, Daemon, daemon_env, wait_until
from .rpc_client import RpcError
from .runs_helpers import finish, new_session, start

EXTRA = {"GG_CAPABILITIES_EXTRA": "tests.fakes.testcaps:CAPABILITY"}
SECRET = "s3cr3t-token-value"


def _start(home: Path, ws: Path, fm: FakeModel | None = None, *args: str, **env: str) -> Daemon:
    extra = {**EXTRA, "GG_TEST_SECRET_TOKEN": SECRET, **env}
    if fm is not None:
        extra |= {"OPENAI_BASE_URL": fm.base_url, "OPENAI_API_KEY": "k", "GG_MODEL": "fake-model"}
    return Daemon(home, ws, daemon_env(home, extra), args=list(args)).start()


def _health(d: Daemon) -> dict[str, Any]:
    req = urllib.request.Request(
        d.http_url + "health", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with urllib.request.urlopen(req, timeout=5) as resp:
        return dict(json.loads(resp.read()))


def _tool_names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


async def test_a_failing_provider_is_degraded_alone_and_recovers(
    gg_home: Path, workspace: Path
) -> None:
    script = [
        {"toolCalls": [{"id": "c1", "name": "read", "arguments": {"path": "README.md"}}]},
        {"text": "read it"},
        {"toolCalls": [{"id": "c2", "name": "probe", "arguments": {}}]},
        {"text": "probed"},
    ]
    with FakeModel(script) as fm:
        gg_home.mkdir(parents=True)
        (gg_home / "flaky.fail").write_text("x")
        d = _start(gg_home, workspace, fm)
        try:
            c = await d.connect("unix")
            sid = await new_session(c)
            done = await finish(c, await start(c, sid, "read the readme"))
            assert done["type"] == "run_completed"
            # every other tool worked in the same run; the flaky provider's tool was left out
            first = fm.wait_for_requests(2)[0]
            assert "read" in _tool_names(first) and "probe" not in _tool_names(first)
            info = await c.request("gg/system.info")
            degraded = {p["name"]: p["reason"] for p in info.get("degradedProviders") or []}
            assert "flaky" in degraded
            assert str(gg_home) not in degraded["flaky"] and SECRET not in degraded["flaky"]
            assert "absent" not in degraded and "test.absent" not in info["capabilities"]
            assert "cannot open" in d.logs()  # the full error is in the log only

            (gg_home / "flaky.fail").unlink()
            done = await finish(c, await start(c, sid, "probe"))
            assert done["type"] == "run_completed"
            third = fm.wait_for_requests(3)[2]
            assert "probe" in _tool_names(third)
            tool_msgs = [m for m in fm.wait_for_requests(4)[3]["messages"] if m["role"] == "tool"]
            assert tool_msgs[-1]["content"] == "probe ok"
            info = await c.request("gg/system.info")
            assert "flaky" not in {p["name"] for p in info.get("degradedProviders") or []}
            assert "test.flaky" in info["capabilities"]
            await c.close()
        finally:
            d.stop()


async def test_a_crashing_channel_is_failed_while_rpc_keeps_answering(
    gg_home: Path, workspace: Path
) -> None:
    d = _start(gg_home, workspace)
    try:
        c = await d.connect("ws")

        async def states() -> dict[str, dict[str, Any]]:
            info = await c.request("gg/system.info")
            return {ch["name"]: ch for ch in info["channels"]}

        got = await states()
        for _ in range(100):
            if got["crashy"]["state"] == "failed":
                break
            got = await states()
        assert got["crashy"]["state"] == "failed"
        assert "crashed on purpose" in got["crashy"]["error"]
        assert got["steady"]["state"] == "running"
        health = {ch["name"]: ch for ch in _health(d)["channels"]}
        assert health["crashy"]["state"] == "failed" and health["steady"]["state"] == "running"
        assert (await c.request("gg/workspace.list"))["workspaces"]
        await c.close()
    finally:
        assert d.stop() == 0


async def test_evicting_a_service_closes_its_resources_and_runs_stay_in_their_workspace(
    gg_home: Path, workspace: Path, tmp_path: Path
) -> None:
    with FakeModel([{"text": "hello"}]) as fm:
        d = _start(gg_home, workspace, fm)
        try:
            c = await d.connect("unix")
            first = await new_session(c)
            run_id = await start(c, first, "hi")
            assert (await finish(c, run_id))["type"] == "run_completed"
            assert not (gg_home / "closed.txt").exists()
            for _ in range(65):  # the manager keeps 64 open: the first one is evicted
                await new_session(c)
            await wait_until(lambda: (gg_home / "closed.txt").exists(), timeout=10)
            assert (gg_home / "closed.txt").read_text().split() == [first]
            # the run is still visible from its own workspace, and only there
            assert (await c.request("gg/run.get", {"runId": run_id}))["status"] == "completed"
            other = tmp_path / "other-project"
            other.mkdir()
            c2 = await d.connect("ws", root=other)
            with pytest.raises(RpcError) as err:
                await c2.request("gg/run.get", {"runId": run_id})
            assert err.value.code == -32002
            with pytest.raises(RpcError):
                await c2.request("gg/run.cancel", {"runId": run_id})
            await c2.close()
            await c.close()
        finally:
            d.stop()


async def test_resources_are_closed_at_shutdown(gg_home: Path, workspace: Path) -> None:
    with FakeModel([{"text": "hello"}]) as fm:
        d = _start(gg_home, workspace, fm)
        c = await d.connect("unix")
        sid = await new_session(c)
        assert (await finish(c, await start(c, sid, "hi")))["type"] == "run_completed"
        await c.close()
        assert d.stop() == 0
        assert (gg_home / "closed.txt").read_text().split() == [sid]


async def test_sandbox_is_advertised_only_where_bubblewrap_starts(
    gg_home: Path, workspace: Path, tmp_path: Path
) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "bwrap").write_text("#!/bin/sh\nexit 1\n")
    (fake_bin / "bwrap").chmod(0o755)
    import os

    d = _start(gg_home, workspace, None, "--sandbox", PATH=f"{fake_bin}:{os.environ['PATH']}")
    try:
        c = await d.connect("unix")
        info = await c.request("gg/system.info")
        assert "sandbox" not in info["capabilities"]
        assert "sandbox" in {p["name"] for p in info.get("degradedProviders") or []}
        await c.close()
    finally:
        d.stop()
    import shutil

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed here")
    d = _start(gg_home, workspace, None, "--sandbox")
    try:
        c = await d.connect("unix")
        info = await c.request("gg/system.info")
        if "sandbox" in {p["name"] for p in info.get("degradedProviders") or []}:
            pytest.skip("bubblewrap is installed but cannot start a sandbox here")
        assert "sandbox" in info["capabilities"]
        await c.close()
    finally:
        d.stop()
