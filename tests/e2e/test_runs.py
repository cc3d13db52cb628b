"""Agent runs end to end: a real ggd, the scripted fake model, real tools on real files."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from .daemon import Daemon, daemon_env, wait_until
from .rpc_client import RpcError
from .runs_helpers import assert_sequence_ok, finish, new_session, start, types, until

TEN_STEPS = [
    {"text": "Let me look around.", "toolCalls": [{"name": "list", "arguments": {"path": "."}}]},
    {
        "expect": {"lastTool": "README.md"},
        "toolCalls": [{"name": "read", "arguments": {"path": "README.md"}}],
    },
    {
        "expect": {"lastTool": "demo project"},
        "toolCalls": [{"name": "grep", "arguments": {"pattern": "TODO", "literal": True}}],
    },
    {
        "expect": {"lastTool": "TODO"},
        "toolCalls": [{"name": "bash", "arguments": {"command": "echo built > build.log"}}],
    },
    {
        "expect": {"lastTool": "exit"},
        "toolCalls": [
            {
                "name": "edit",
                "arguments": {
                    "path": "src/app.py",
                    "edits": [{"oldText": "# TODO: greet", "newText": "print('hello')"}],
                },
            }
        ],
    },
    {
        "expect": {"lastUser": "use a friendlier greeting"},
        "toolCalls": [
            {
                "name": "edit",
                "arguments": {
                    "path": "src/app.py",
                    "edits": [{"oldText": "# TODO: greet", "newText": "print('hello, friend')"}],
                },
            }
        ],
    },
    {
        "expect": {"lastTool": "src/app.py"},
        "text": "Done: src/app.py now greets a friend.",
        "usage": True,
    },
]


def _project(ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("# TODO: greet\n")


async def test_a_ten_step_task_with_approvals_and_steering(fake_daemon, workspace: Path) -> None:
    _project(workspace)
    d, fm = fake_daemon(TEN_STEPS)
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "greet the user in src/app.py", interactive=True)
        # bash (normal risk) asks; allow it
        ask = await until(c, rid, "approval_requested")
        assert ask["approval"]["toolName"] == "bash" and ask["approval"]["risk"] == "normal"
        assert ask["approval"]["riskReason"]
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": True}
        )
        # the first edit asks with a diff; deny it and steer while it waits
        ask2 = await until(c, rid, "approval_requested", after=ask["sequence"])
        assert ask2["approval"]["toolName"] == "edit"
        assert (
            "-# TODO: greet" in ask2["approval"]["details"]
            and "+print('hello')" in ask2["approval"]["details"]
        )
        await c.request("gg/run.steer", {"sessionId": sid, "text": "use a friendlier greeting"})
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask2["approval"]["id"], "allow": False}
        )
        ask3 = await until(c, rid, "approval_requested", after=ask2["sequence"])
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask3["approval"]["id"], "allow": True}
        )
        done = await finish(c, rid)
        assert done["type"] == "run_completed", done
        assert done["content"] == "Done: src/app.py now greets a friend."
        assert fm.mismatches == []
        assert (workspace / "src" / "app.py").read_text() == "print('hello, friend')\n"
        assert (workspace / "build.log").read_text() == "built\n"
        assert_sequence_ok(c, rid)
        assert types(c, rid) == [
            "run_started",
            "tool_call_start",
            "tool_call_finish",  # list
            "tool_call_start",
            "tool_call_finish",  # read
            "tool_call_start",
            "tool_call_finish",  # grep
            "approval_requested",
            "approval_resolved",
            "tool_call_start",
            "tool_call_finish",  # bash
            "approval_requested",
            "approval_resolved",
            "tool_call_start",
            "tool_call_finish",  # edit denied
            "user_message",  # the steering message, taken at the model boundary
            "approval_requested",
            "approval_resolved",
            "tool_call_start",
            "tool_call_finish",  # edit
            "run_completed",
        ]
        finishes = [e for e in c.events(run_id=rid) if e["type"] == "tool_call_finish"]
        denied = finishes[4]
        assert denied["isError"] and "denied" in denied["output"]
        assert "-# TODO: greet" in finishes[5]["details"]["diff"]
        # the transcript on disk has every step
        snap = await c.request("gg/session.get", {"sessionId": sid})
        roles = [m["role"] for m in snap["messages"]]
        assert roles.count("tool") == 6 and roles[0] == "user" and roles[-1] == "assistant"
        assert "use a friendlier greeting" in [m.get("content") for m in snap["messages"]]
        status = await c.request("gg/run.get", {"runId": rid})
        assert status["status"] == "completed" and status["pendingApprovals"] == []
        assert await c.request("gg/run.active", {"sessionId": sid}) is None
    finally:
        await c.close()


async def test_disconnect_mid_approval_then_reattach_and_finish_elsewhere(
    fake_daemon, workspace: Path
) -> None:
    d, _fm = fake_daemon(
        [
            {
                "toolCalls": [
                    {"name": "write", "arguments": {"path": "notes.md", "content": "hi\n"}}
                ]
            },
            {"expect": {"lastTool": "notes.md"}, "text": "written"},
        ]
    )
    a = await d.connect("unix")
    sid = await new_session(a)
    rid = await start(a, sid, "write notes", interactive=True)
    ask = await until(a, rid, "approval_requested")
    seen = ask["sequence"]
    await a.close()  # the client dies while the approval waits
    b = await d.connect("ws")
    try:
        active = await b.request("gg/run.active", {"sessionId": sid})
        assert active["id"] == rid and active["status"] == "waiting_approval"
        assert [p["id"] for p in active["pendingApprovals"]] == [ask["approval"]["id"]]
        assert not (workspace / "notes.md").exists()  # nobody answered: nothing was allowed
        await b.request("gg/run.subscribe", {"runId": rid, "afterSequence": seen})
        await b.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": True}
        )
        done = await finish(b, rid)
        assert done["type"] == "run_completed" and done["content"] == "written"
        # the reattached client saw exactly the events after `seen`
        got = [e["sequence"] for e in b.events(run_id=rid)]
        assert got == list(range(seen + 1, got[-1] + 1))
        assert (workspace / "notes.md").read_text() == "hi\n"
        with pytest.raises(RpcError) as exc:  # a late second answer
            await b.request(
                "gg/run.approve",
                {"runId": rid, "approvalId": ask["approval"]["id"], "allow": False},
            )
        assert exc.value.symbol == "approval_expired"
    finally:
        await b.close()


async def test_cancel_during_a_hanging_bash_kills_its_process_group(
    fake_daemon, workspace: Path
) -> None:
    d, _fm = fake_daemon(
        [
            {
                "text": "running it",
                "toolCalls": [
                    {"name": "bash", "arguments": {"command": "echo $$ > shell.pid; sleep 300"}}
                ],
            },
        ]
    )
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "run forever", approvalMode="yolo")
        await until(c, rid, "tool_call_start")
        pid_file = workspace / "shell.pid"
        await wait_until(lambda: pid_file.exists() and pid_file.read_text().strip())
        pgid = int(pid_file.read_text())
        os.killpg(pgid, 0)  # alive
        await c.request("gg/run.cancel", {"runId": rid})
        done = await finish(c, rid)
        assert done["type"] == "run_canceled"

        def gone() -> bool:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return True
            return False

        await wait_until(gone, timeout=10)
        snap = await c.request("gg/session.get", {"sessionId": sid})
        last = snap["messages"][-1]
        assert last["role"] == "tool" and last["isError"]
        assert snap["messages"][1]["content"] == "running it"  # the partial text is kept
        status = await c.request("gg/run.get", {"runId": rid})
        assert status["status"] == "canceled"
    finally:
        await c.close()


async def test_seventeen_concurrent_runs_give_exactly_one_run_capacity(fake_daemon) -> None:
    d, _fm = fake_daemon([{"text": "thinking...", "hang": True, "repeat": 16}])
    c = await d.connect("ws")
    try:
        sids = [await new_session(c) for _ in range(17)]
        results = await asyncio.gather(
            *(c.raw_request("gg/run.start", {"sessionId": s, "prompt": "go"}) for s in sids)
        )
        errors = [r["error"] for r in results if "error" in r]
        assert len(errors) == 1, errors
        assert errors[0]["code"] == -32009 and errors[0]["data"] == {
            "code": "run_capacity",
            "retryable": True,
        }
        run_ids = [r["result"]["runId"] for r in results if "result" in r]
        assert len(run_ids) == 16
        # a second run on a busy session is a conflict, not capacity
        busy = next(s for s, r in zip(sids, results, strict=True) if "result" in r)
        with pytest.raises(RpcError) as exc:
            await start(c, busy, "again")
        assert exc.value.symbol == "run_conflict"
        for rid in run_ids:
            await c.request("gg/run.cancel", {"runId": rid})
        for rid in run_ids:
            assert (await finish(c, rid))["type"] == "run_canceled"
        # capacity is free again
        rid = await start(c, sids[0], "after")
        await c.request("gg/run.cancel", {"runId": rid})
    finally:
        await c.close()


async def test_a_killed_daemon_resumes_the_session_with_the_interrupted_call_marked(
    fake_daemon, gg_home: Path, workspace: Path
) -> None:
    d, fm = fake_daemon(
        [
            {
                "toolCalls": [
                    {"name": "bash", "arguments": {"command": "echo $$ > shell.pid; sleep 300"}}
                ]
            },
        ]
    )
    c = await d.connect("unix")
    sid = await new_session(c)
    rid = await start(c, sid, "long job", approvalMode="yolo")
    await until(c, rid, "tool_call_start")
    pid_file = workspace / "shell.pid"
    await wait_until(lambda: pid_file.exists() and pid_file.read_text().strip())
    d.stop(signal.SIGKILL)
    await c.close()
    try:
        os.killpg(
            int(pid_file.read_text()), signal.SIGKILL
        )  # the orphaned tool, not part of the test
    except ProcessLookupError:
        pass
    fm.add_steps(
        [{"expect": {"lastTool": "interrupted, result unavailable"}, "text": "picking up again"}]
    )
    d2 = Daemon(gg_home, workspace, d.env).start()
    c2 = await d2.connect("ws")
    try:
        snap = await c2.request("gg/session.open", {"sessionId": sid})
        assert snap["messages"][-1]["role"] == "assistant" and snap["messages"][-1]["toolCalls"]
        assert snap.get("activeRunId") is None
        rid2 = await start(c2, sid, "continue")
        done = await finish(c2, rid2)
        assert done["type"] == "run_completed" and done["content"] == "picking up again", done
        assert fm.mismatches == []
        snap = await c2.request("gg/session.get", {"sessionId": sid})
        marked = [m for m in snap["messages"] if m["role"] == "tool"]
        assert (
            marked
            and marked[0]["content"] == "interrupted, result unavailable"
            and marked[0]["isError"]
        )
    finally:
        await c2.close()
        d2.stop()


async def test_non_interactive_auto_mode_denies_writes_and_says_how_to_allow(
    fake_daemon, workspace: Path
) -> None:
    d, fm = fake_daemon(
        [
            {"toolCalls": [{"name": "write", "arguments": {"path": "x.txt", "content": "x"}}]},
            {"expect": {"lastTool": "yolo"}, "text": "could not write"},
        ]
    )
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "write x")
        done = await finish(c, rid)
        assert done["type"] == "run_completed"
        assert not (workspace / "x.txt").exists()
        assert fm.mismatches == []
        assert "approval_requested" not in types(c, rid)
        with pytest.raises(RpcError) as exc:
            await start(c, sid, "again", approvalMode="on-request")
        assert exc.value.symbol == "invalid_action" and "interactive" in exc.value.message
    finally:
        await c.close()


async def test_a_failing_model_fails_the_run_and_the_daemon_keeps_serving(fake_daemon) -> None:
    d, _fm = fake_daemon([{"status": 500, "repeat": 3}, {"text": "fine now"}])
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "hi")
        done = await finish(c, rid)
        assert (
            done["type"] == "run_failed"
            and done["errorCode"] == "server_error"
            and done["retryable"]
        )
        status = await c.request("gg/run.get", {"runId": rid})
        assert status["status"] == "failed" and status["error"]
        rid2 = await start(c, sid, "again")
        assert (await finish(c, rid2))["content"] == "fine now"
    finally:
        await c.close()


async def test_run_timeout_fails_a_hanging_run(fake_daemon) -> None:
    d, _fm = fake_daemon([{"text": "slow", "hang": True}], "--run-timeout", "1")
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "hi")
        done = await finish(c, rid)
        assert done["type"] == "run_failed" and done["errorCode"] == "run_timeout"
    finally:
        await c.close()


async def test_replay_wait_and_expiry_semantics(fake_daemon) -> None:
    d, _fm = fake_daemon([{"text": "one two three four", "chunkSize": 3}])
    c = await d.connect("unix")
    other = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "count")
        done = await finish(c, rid)
        all_events = c.events(run_id=rid)
        # long-poll from the start returns everything, and says it is done
        res = await other.request(
            "gg/run.wait", {"runId": rid, "afterSequence": 0, "timeoutMs": 1000}
        )
        assert res["events"] == all_events and res["done"] is True
        # subscribe from the middle replays the tail only
        await other.request("gg/run.subscribe", {"runId": rid, "afterSequence": 3})
        await other.wait_for("gg/run.event", lambda p: p["sequence"] == done["sequence"])
        assert [e["sequence"] for e in other.events(run_id=rid)] == list(
            range(4, done["sequence"] + 1)
        )
        with pytest.raises(RpcError) as exc:
            await other.request("gg/run.get", {"runId": "r_missing"})
        assert exc.value.symbol == "run_not_found"
        with pytest.raises(RpcError) as exc:
            await other.request("gg/run.steer", {"sessionId": sid, "text": "late"})
        assert exc.value.symbol == "run_not_found"
    finally:
        await c.close()
        await other.close()


def test_daemon_env_has_no_real_provider(tmp_path: Path) -> None:
    env = daemon_env(tmp_path)
    assert not any(k.startswith("OPENAI_") for k in env)


async def test_sandboxed_bash_cannot_write_outside_the_workspace(
    fake_daemon, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "escaped.txt"
    d, _fm = fake_daemon(
        [
            {
                "toolCalls": [
                    {
                        "name": "bash",
                        "arguments": {"command": f"echo inside > in.txt; echo out > {target}"},
                    }
                ]
            },
            {"text": "tried"},
        ],
        "--sandbox",
    )
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "escape", interactive=True)
        ask = await until(c, rid, "approval_requested")
        assert ask["approval"]["risk"] == "dangerous"  # a write outside the workspace
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": True}
        )
        fin = await until(c, rid, "tool_call_finish")
        assert (await finish(c, rid))["type"] == "run_completed"
        assert (workspace / "in.txt").read_text() == "inside\n"
        assert not target.exists(), fin["output"]
        assert fin["details"]["sandboxed"] is True
    finally:
        await c.close()


async def test_shutdown_with_a_pending_approval_is_clean(fake_daemon, workspace: Path) -> None:
    d, _fm = fake_daemon(
        [{"toolCalls": [{"name": "write", "arguments": {"path": "w.txt", "content": "w"}}]}]
    )
    c = await d.connect("unix")
    sid = await new_session(c)
    rid = await start(c, sid, "write", interactive=True)
    await until(c, rid, "approval_requested")
    await c.close()
    assert d.stop() == 0
    logs = d.logs()
    assert "never retrieved" not in logs and "Traceback" not in logs, logs[-2000:]
    assert not (workspace / "w.txt").exists()
