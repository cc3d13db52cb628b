"""Artifacts and the library against a real ggd: a scripted run writes, clients see it live,
publish copies into the library, the CLI drives the same methods, and the add limit holds."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .daemon import Daemon, daemon_env
from .rpc_client import RpcClient, RpcError
from .runs_helpers import finish, new_session, start, until

GG = str(Path(sys.executable).parent / "gg")
MiB = 1024 * 1024
PLAN_V1 = "# Plan\n\n- step one\n"
PLAN_V2 = "# Plan\n\n- step one\n- step two\n"


def create_call(title: str, kind: str, content: str) -> dict[str, Any]:
    """A model step that calls artifact_create."""
    args = {"title": title, "type": kind, "content": content}
    return {"toolCalls": [{"name": "artifact_create", "arguments": args}]}


async def approve_next(c: RpcClient, rid: str, tool: str, after: int = 0) -> dict[str, Any]:
    """Wait for the run's next approval, check the tool, allow it."""
    ask = await until(c, rid, "approval_requested", after=after)
    assert ask["approval"]["toolName"] == tool
    await c.request(
        "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": True}
    )
    return ask


async def gg(home: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """The real `gg` CLI against the running daemon (found through GG_HOME's discovery file)."""
    env = daemon_env(home)
    return await asyncio.to_thread(
        subprocess.run, [GG, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


async def test_a_run_writes_an_artifact_clients_see_it_live_and_publish_it(
    fake_daemon: Any, gg_home: Path, workspace: Path
) -> None:
    d, fm = fake_daemon([create_call("Plan", "markdown", PLAN_V1), {"text": "Wrote the plan."}])
    runner = await d.connect("unix")
    # A second client that only joined the workspace (never subscribed to the session).
    watcher = await d.connect("ws")
    try:
        info = await watcher.request("gg/system.info", {})
        assert {"artifacts", "library"} <= set(info["capabilities"])
        sid = await new_session(runner)
        rid = await start(runner, sid, "write a plan", interactive=True)
        ask = await approve_next(runner, rid, "artifact_create")
        assert ask["approval"]["summary"] == 'create artifact "Plan" (markdown, 19 bytes)'
        assert "+- step one" in ask["approval"]["details"]
        created = await watcher.wait_for(
            "gg/session.event", lambda p: p["type"] == "artifact_created", 15
        )
        assert created["sessionId"] == sid and created["version"] == 1
        assert created["name"] == "Plan"
        artifact_id = created["artifactId"]
        assert (await finish(runner, rid))["type"] == "run_completed"

        # A second run edits it (the script learns the id only now).
        edit = {"artifactId": artifact_id, "content": PLAN_V2}
        fm.add_steps(
            [{"toolCalls": [{"name": "artifact_edit", "arguments": edit}]}, {"text": "Edited."}]
        )
        rid2 = await start(runner, sid, "add step two", interactive=True)
        ask2 = await approve_next(runner, rid2, "artifact_edit")
        assert "+- step two" in ask2["approval"]["details"]
        updated = await watcher.wait_for(
            "gg/session.event", lambda p: p["type"] == "artifact_updated", 15
        )
        assert updated["artifactId"] == artifact_id and updated["version"] == 2
        assert (await finish(runner, rid2))["type"] == "run_completed"

        view = await watcher.request("gg/artifact.get", {"artifactId": artifact_id})
        assert view["content"] == PLAN_V2 and view["version"] == 2
        assert view["artifact"]["publishedVersion"] == 0
        old = await watcher.request("gg/artifact.get", {"artifactId": artifact_id, "version": 1})
        assert old["content"] == PLAN_V1
        versions = await watcher.request("gg/artifact.versions", {"artifactId": artifact_id})
        assert [v["version"] for v in versions["versions"]] == [1, 2]

        pub = await watcher.request("gg/artifact.publish", {"artifactId": artifact_id})
        assert pub["artifact"]["publishedVersion"] == 2
        assert pub["item"]["source"] == f"artifact:{artifact_id}"
        got = await watcher.request("gg/library.get", {"itemId": pub["item"]["id"]})
        assert base64.b64decode(got["content"]).decode() == PLAN_V2 and got["eof"]

        # The CLI speaks the same methods.
        listed = await gg(gg_home, workspace, "artifact", "list")
        assert listed.returncode == 0 and artifact_id in listed.stdout
        assert "published v2" in listed.stdout
        shown = await gg(gg_home, workspace, "artifact", "show", artifact_id, "--version", "1")
        assert shown.stdout == PLAN_V1
        lib = json.loads((await gg(gg_home, workspace, "library", "list", "--json")).stdout)
        assert [i["name"] for i in lib] == ["Plan.md"]
        folder = (await gg(gg_home, workspace, "library", "path")).stdout.strip()
        assert Path(folder) == gg_home / "library"
        item_path = (await gg(gg_home, workspace, "library", "path", lib[0]["id"])).stdout
        assert Path(item_path.strip()).read_text() == PLAN_V2
        (workspace / "plan.MD").write_text("mine\n")
        added = await gg(gg_home, workspace, "library", "add", "plan.MD")
        assert added.returncode == 0
        assert "added plan (2).MD" in added.stdout  # Plan.md is taken, case-insensitively
        named = await gg(gg_home, workspace, "library", "add", "plan.MD", "--name", "a/b")
        assert named.returncode == 1 and "plain file name" in named.stderr
        lib = json.loads((await gg(gg_home, workspace, "library", "list", "--json")).stdout)
        assert [i["name"] for i in lib] == ["Plan.md", "plan (2).MD"]
        dropped = await gg(gg_home, workspace, "library", "remove", lib[1]["id"])
        assert dropped.returncode == 0 and not (gg_home / "library" / "plan (2).MD").exists()
        gone = await gg(gg_home, workspace, "artifact", "remove", artifact_id)
        assert gone.returncode == 0
        with pytest.raises(RpcError) as err:
            await watcher.request("gg/artifact.get", {"artifactId": artifact_id})
        assert err.value.code == -32011
        missing = await gg(gg_home, workspace, "artifact", "show", artifact_id)
        assert missing.returncode == 1 and "no artifact" in missing.stderr
        assert "Traceback" not in missing.stderr
    finally:
        await runner.close()
        await watcher.close()


async def test_a_non_interactive_run_cannot_write_artifacts(
    fake_daemon: Any, gg_home: Path
) -> None:
    d, _fm = fake_daemon([create_call("Sneaky", "html", "<p>x</p>"), {"text": "ok"}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "write", interactive=False)
        done = await finish(c, rid)
        assert done["type"] == "run_completed"
        denied = [
            e
            for e in c.events(run_id=rid)
            if e["type"] == "tool_call_finish" and e["toolName"] == "artifact_create"
        ]
        assert denied and denied[0]["isError"]
        assert (await c.request("gg/artifact.list", {}))["artifacts"] == []
    finally:
        await c.close()


def _io(pid: int) -> dict[str, int]:
    lines = Path(f"/proc/{pid}/io").read_text().split("\n")
    return {k: int(v) for k, v in (line.split(": ") for line in lines if line)}


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs /proc/<pid>/io")
async def test_a_51_mib_add_is_refused_after_reading_at_most_the_limit(
    daemon: Daemon, gg_home: Path, tmp_path: Path
) -> None:
    big = tmp_path / "big.bin"
    with open(big, "wb") as fh:  # sparse: 51 MiB that cost no disk
        fh.truncate(51 * MiB)
    small = tmp_path / "Notes.TXT"
    small.write_text("notes")
    c = await daemon.connect("unix")
    try:
        assert daemon.proc is not None
        before = _io(daemon.proc.pid)
        with pytest.raises(RpcError) as err:
            await c.request("gg/library.add", {"path": str(big)}, timeout=60)
        after = _io(daemon.proc.pid)
        assert err.value.code == -32602 and "50 MiB" in err.value.message
        assert str(tmp_path) not in err.value.message
        read = after["rchar"] - before["rchar"]
        written = after["wchar"] - before["wchar"]
        # At most the limit (+1 byte) from the file; a little more for socket traffic and logs.
        assert 50 * MiB <= read <= 50 * MiB + 256 * 1024, read
        assert written <= 50 * MiB + 256 * 1024, written
        leftovers = sorted(os.listdir(gg_home / "library"))
        assert leftovers in ([], ["library.lock"], ["index.json", "library.lock"]), leftovers
        assert (await c.request("gg/library.list", {}))["items"] == []

        first = await c.request("gg/library.add", {"path": str(small)})
        second = await c.request("gg/library.add", {"path": str(small), "name": "notes.txt"})
        assert first["item"]["name"] == "Notes.TXT"
        assert second["item"]["name"] == "notes (2).txt"
        with pytest.raises(RpcError) as bad:
            await c.request("gg/library.add", {"path": str(small), "name": "Index.json"})
        assert bad.value.code == -32602
        with pytest.raises(RpcError) as rel:
            await c.request("gg/library.add", {"path": "relative/file"})
        assert rel.value.code == -32602
    finally:
        await c.close()
