"""Checkpoints through a real ggd, a scripted model, real bash and a real git repository of the
user's: a turn's diff (its edits and its bash commands), undo, redo, restore at a node of the
tree with a checkout, conflicts with files changed outside gg, the files_restored event every
attached client sees, and the checkpoint entries surviving a daemon restart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.checkpoints.helpers import state, tree_bytes, user_repo

from .rpc_client import RpcError
from .runs_helpers import finish, new_session, start, until


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


TURN1 = [
    {"toolCalls": [call("write", path="app.py", content="print('one')\n")]},
    {"toolCalls": [call("bash", command="echo made > made.txt && rm README.md")]},
    {"text": "Turn one done."},
]
TURN2 = [
    {"toolCalls": [call("edit", path="app.py", edits=[{"oldText": "one", "newText": "two"}])]},
    {"toolCalls": [call("bash", command="mkdir -p lib && mv made.txt lib/made.txt")]},
    {"text": "Turn two done."},
]


async def _turn(c: Any, sid: str, prompt: str) -> str:
    rid = await start(c, sid, prompt, approvalMode="yolo")
    done = await finish(c, rid)
    assert done["type"] == "run_completed", done
    return rid


def _paths(res: dict[str, Any]) -> dict[str, str]:
    return {f["path"]: f["status"] for f in res["files"]}


async def test_diff_undo_redo_restore_and_conflicts(fake_daemon, workspace: Path) -> None:
    user_repo(workspace)
    git_before = tree_bytes(workspace / ".git")
    s0 = state(workspace)
    d, _fm = fake_daemon([*TURN1, *TURN2])
    c = await d.connect("ws")
    other = await d.connect("unix")
    try:
        sid = await new_session(c)
        await other.request("gg/session.subscribe", {"sessionId": sid})
        first_run = await _turn(c, sid, "turn one")
        s1 = state(workspace)
        await _turn(c, sid, "turn two")
        s2 = state(workspace)
        assert s2["app.py"] != s1["app.py"] and "lib/made.txt" in s2

        # What each turn changed, bash included.
        last = await c.request("gg/session.diff", {"sessionId": sid})
        assert _paths(last) == {
            "app.py": "modified",
            "made.txt": "deleted",
            "lib/made.txt": "added",
        }
        assert "-print('one')" in last["patch"] and "+print('two')" in last["patch"]
        snap = await c.request("gg/session.get", {"sessionId": sid})
        first_user = next(m for m in snap["tree"] if m["role"] == "user")
        one = await c.request("gg/session.diff", {"sessionId": sid, "nodeId": first_user["id"]})
        assert _paths(one) == {"app.py": "added", "made.txt": "added", "README.md": "deleted"}
        by_run = await c.request("gg/session.diff", {"sessionId": sid, "runId": first_run})
        assert by_run == one

        # Undo twice, redo once: before turn two, before turn one, after turn one.
        preview = await c.request("gg/session.undo", {"sessionId": sid, "preview": True})
        assert preview["applied"] is False and state(workspace) == s2
        assert set(_paths(preview)) == {"app.py", "made.txt", "lib/made.txt"}
        res = await c.request("gg/session.undo", {"sessionId": sid})
        assert res["applied"] and state(workspace) == s1
        ev = await other.wait_for("gg/session.event", lambda p: p["type"] == "files_restored")
        assert ev["sessionId"] == sid and ev["name"] == "undo"
        await c.request("gg/session.undo", {"sessionId": sid})
        assert state(workspace) == s0
        with pytest.raises(RpcError) as err:
            await c.request("gg/session.undo", {"sessionId": sid})
        assert err.value.symbol == "invalid_action"
        await c.request("gg/session.redo", {"sessionId": sid})
        assert state(workspace) == s1

        # A file changed outside gg is a conflict: refused, listed, restored only if confirmed.
        (workspace / "app.py").write_text("print('mine')\n")
        with pytest.raises(RpcError) as err:
            await c.request("gg/session.redo", {"sessionId": sid})
        assert err.value.symbol == "checkpoint_conflict" and "app.py" in err.value.message
        assert (workspace / "app.py").read_text() == "print('mine')\n"
        pv = await c.request("gg/session.redo", {"sessionId": sid, "preview": True})
        assert pv["conflicts"] == ["app.py"]
        await c.request("gg/session.redo", {"sessionId": sid, "confirmConflicts": True})
        assert state(workspace) == s2
        assert tree_bytes(workspace / ".git") == git_before
    finally:
        await c.close()
        await other.close()

    # The checkpoints are in the session file: a new daemon restores the same states.
    d.stop()
    d.start()
    c = await d.connect("ws")
    try:
        snap = await c.request("gg/session.open", {"sessionId": sid})
        first_user = next(m for m in snap["tree"] if m["role"] == "user")
        up = await c.request(
            "gg/session.action",
            {"sessionId": sid, "action": "tree", "nodeId": first_user["id"], "restoreFiles": True},
        )
        assert up["draft"] == "turn one"
        assert state(workspace) == s0
        # The restore is itself undoable.
        await c.request("gg/session.undo", {"sessionId": sid})
        assert state(workspace) == s2
        assert tree_bytes(workspace / ".git") == git_before
    finally:
        await c.close()


@pytest.mark.parametrize(
    ("section", "says"),
    [
        ({"enabled": False}, "checkpoints are switched off"),
        ({"maxFiles": 1}, "nothing to undo"),  # too many files: runs go on without checkpoints
    ],
)
async def test_runs_go_on_without_checkpoints(
    fake_daemon, gg_home: Path, workspace: Path, section: dict[str, Any], says: str
) -> None:
    gg_home.mkdir(parents=True, exist_ok=True)
    (gg_home / "config.json").write_text(json.dumps({"checkpoints": section}))
    (workspace / "other.txt").write_text("x\n")
    d, _fm = fake_daemon(TURN1)
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        await _turn(c, sid, "turn one")
        assert (workspace / "made.txt").exists()
        with pytest.raises(RpcError) as err:
            await c.request("gg/session.undo", {"sessionId": sid})
        assert err.value.symbol == "invalid_action" and says in err.value.message
    finally:
        await c.close()


async def test_no_restore_under_a_running_agent_of_another_session(
    fake_daemon, workspace: Path
) -> None:
    d, _fm = fake_daemon([*TURN1, {"toolCalls": [call("write", path="x.txt", content="x\n")]}])
    c = await d.connect("ws")
    try:
        done = await new_session(c)
        await _turn(c, done, "turn one")
        busy = await new_session(c)
        rid = await start(c, busy, "write x", interactive=True)  # waits for its approval
        await until(c, rid, "approval_requested")
        with pytest.raises(RpcError) as err:
            await c.request("gg/session.undo", {"sessionId": done})
        assert err.value.symbol == "run_conflict"
        assert (workspace / "app.py").exists()
        await c.request("gg/run.cancel", {"runId": rid})
        await finish(c, rid)
        res = await c.request("gg/session.undo", {"sessionId": done})
        assert res["applied"] and not (workspace / "app.py").exists()
    finally:
        await c.close()


async def test_a_slow_turn_snapshot_is_recorded_before_the_answer_and_finds_the_files_untouched(
    fake_daemon, gg_home: Path, workspace: Path
) -> None:
    # The turn's first snapshot is taken beside the first model request (ggd/app/checkpoints.py).
    # With a few thousand files it takes far longer than the scripted model's answer: the
    # answer's entry must still come after the checkpoint's, and the write it asks for must not
    # reach the disk before the snapshot has the file as the turn found it.
    for i in range(3000):
        (workspace / f"f{i // 100}").mkdir(exist_ok=True)
        (workspace / f"f{i // 100}" / f"{i}.txt").write_text(f"{i}\n")
    (workspace / "app.py").write_text("print('before')\n")
    before = state(workspace)
    d, _fm = fake_daemon(
        [{"toolCalls": [call("write", path="app.py", content="print('after')\n")]}, {"text": "ok"}]
    )
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await _turn(c, sid, "change app.py")
        assert (workspace / "app.py").read_text() == "print('after')\n"
        lines = (gg_home / "sessions" / f"{sid}.jsonl").read_text().splitlines()[1:]
        kinds = [
            (e["type"], e["data"].get("role"), e["data"].get("runId"))
            for e in map(json.loads, lines)
        ]
        turn_start = kinds.index(("checkpoint", None, rid))
        first_answer = kinds.index(("message", "assistant", None))
        assert turn_start < first_answer, kinds
        res = await c.request("gg/session.undo", {"sessionId": sid})
        assert res["applied"] and state(workspace) == before
    finally:
        await c.close()
