"""The Neovim plugin through `gg bridge` to the user's daemon, with a second client checking the effects."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.rpc_client import RpcClient

BRIDGE_WRITE = {
    "toolCalls": [{"name": "write", "arguments": {"path": "notes.txt", "content": "hello\n"}}],
    "chunkSize": 7,
}


def _bridge(gg_bin: Path) -> list[str]:
    return [str(gg_bin), "bridge"]


async def _poll(pred: Any, what: str, timeout: float = 20) -> Any:
    """Await pred() until it returns something truthy (a bounded predicate wait)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = await pred()
        if got:
            return got
        await asyncio.sleep(0.02)
    raise TimeoutError(what)


def _wait_file(path: Path, timeout: float = 20) -> str:
    """The text of a file nvim writes, once it is there (a bounded predicate wait)."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, f"nvim did not write {path.name}"
        time.sleep(0.02)
    return path.read_text()


def test_bridge_uses_the_nvim_root_as_workspace(
    run_nvim, fake_daemon, peer, gg_bin, tmp_path
) -> None:
    d, fm = fake_daemon([BRIDGE_WRITE, {"text": "Done through the bridge."}])
    root = tmp_path / "other-project"  # not the daemon's default workspace
    root.mkdir()
    res = run_nvim(
        {
            "scenario": "approve_select",
            "cmd": _bridge(gg_bin),
            "root": str(root),
            "prompt": "write notes",
            "choice": "Allow",
            "expect": ["Done through the bridge."],
        },
        d.env,
    )
    assert res.ok, res.error
    assert (root / "notes.txt").read_text() == "hello\n"
    assert not (d.workspace / "notes.txt").exists()
    assert len(fm.requests) == 2
    sid = res.data["session_id"]

    async def check(c: RpcClient) -> tuple[list[Any], dict[str, Any]]:
        listed = (await c.request("gg/session.list", {}))["sessions"]
        return listed, await c.request("gg/session.get", {"sessionId": sid})

    listed, snap = peer(d, check, root)
    assert [s["id"] for s in listed] == [sid]
    assert snap["workspace"]["name"] == root.name
    assert snap.get("activeRunId") is None
    assert [m["role"] for m in snap["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert snap["messages"][-1]["content"] == "Done through the bridge."


def test_sessions_without_runs(run_nvim, fake_daemon, peer, workspace, gg_bin) -> None:
    d, _ = fake_daemon([])
    res = run_nvim(
        {"scenario": "new_and_pick", "cmd": _bridge(gg_bin), "root": str(workspace)}, d.env
    )
    assert res.ok, res.error
    assert res.data["workspace"]["name"] == workspace.name

    async def listed(c: RpcClient) -> list[Any]:
        return list((await c.request("gg/session.list", {}))["sessions"])

    assert len(peer(d, listed)) == 2


def test_follows_a_turn_started_by_another_client(
    run_nvim, fake_daemon, peer, workspace, gg_bin, tmp_path
) -> None:
    d, fm = fake_daemon([{"text": "Started elsewhere, seen here.", "chunkSize": 5}])
    signal_file = tmp_path / "session-id"

    def other_client() -> None:
        sid = _wait_file(signal_file)

        async def start(c: RpcClient) -> None:
            await c.request(
                "gg/run.start",
                {"sessionId": sid, "prompt": "from the other client", "subscribe": False},
            )

        peer(d, start)

    res = run_nvim(
        {
            "scenario": "follow",
            "cmd": _bridge(gg_bin),
            "root": str(workspace),
            "signal": str(signal_file),
            "expect": ["## gg\n\nStarted elsewhere, seen here."],
        },
        d.env,
        during=other_client,
    )
    assert res.ok, res.error
    assert fm.mismatches == []


# Live events come every millisecond or so: they overtake a replay the plugin asks for on a
# connection that already follows the run, which the plugin must put back in order.
SLOW_DOTS = {"text": "." * 3000, "chunkSize": 1, "delayMs": 1, "hang": True}
# ~4.5 MB of thinking in 250 kB deltas: more than a run's event ring keeps (4 MB), so the first
# events expire, while the context stays small (no compaction); a tool call and a slow stream
# then keep the turn running.
FLOOD = {
    "text": "Thinking.",
    "thinking": ("x" * 99 + "\n") * 45_000,
    "chunkSize": 250_000,
    "toolCalls": [{"name": "list", "arguments": {"path": "."}}],
}


@pytest.mark.parametrize("expired", [False, True], ids=["replay", "expired"])
def test_reopening_a_running_session_follows_it(
    run_nvim, fake_daemon, peer, workspace, gg_bin, tmp_path, expired
) -> None:
    script = [FLOOD, SLOW_DOTS] if expired else [{**SLOW_DOTS, "text": "Thinking." + "." * 3000}]
    d, fm = fake_daemon(script)
    gate = tmp_path / "ring-expired"

    def let_the_ring_expire() -> None:
        async def expired_run(c: RpcClient) -> None:
            async def first_sequence() -> bool:
                listed = (await c.request("gg/session.list", {}))["sessions"]
                runs = [s["activeRunId"] for s in listed if s.get("activeRunId")]
                if not runs or len(fm.requests) < 2:
                    return False
                status = await c.request("gg/run.get", {"runId": runs[0]})
                return bool(status["firstSequence"] > 1)

            await _poll(first_sequence, "the run's first events to leave the ring")

        peer(d, expired_run)
        gate.write_text("go")

    res = run_nvim(
        {
            "scenario": "reopen_running",
            "cmd": _bridge(gg_bin),
            "root": str(workspace),
            "prompt": "hang on",
            **({"wait_file": str(gate)} if expired else {}),
        },
        d.env,
        during=let_the_ring_expire if expired else None,
    )
    assert res.ok, res.error
    assert res.data["errors"] == []  # an expired replay is recovered from, not reported
    if expired:
        # Redrawn from the session snapshot (its tool line has the snapshot's form), then live only.
        assert re.fullmatch(
            r"## You\n\nhang on\n\n## gg\n\nThinking\.\n- tool `list`\n\n"
            r"- `list` done: [^\n]*\n\n## gg\n\n\.+",
            res.data["reopened"],
        ), res.data["reopened"]
    else:
        # The buffer was redrawn and the whole run replayed from its first event, in order.
        assert re.fullmatch(r"## You\n\nhang on\n\n## gg\n\nThinking\.+", res.data["reopened"])

    async def run_status(c: RpcClient) -> str:
        return str((await c.request("gg/run.get", {"runId": res.data["run_id"]}))["status"])

    assert peer(d, run_status) == "canceled"
