"""Plan mode and the todo list through a real ggd and the scripted model.

Plan mode refuses writes without asking anyone and tells the model so; switching the mode for the
next run carries the plan out. todo_write keeps the list with the session (a journal entry that
survives a restart) and announces it as a plan_updated run event.
"""

from __future__ import annotations

from pathlib import Path

from .daemon import Daemon, daemon_env
from .runs_helpers import finish, finished_tools, new_session, start, types

PLAN_TURN = [
    {
        "toolCalls": [
            {"name": "read", "arguments": {"path": "notes.txt"}},
            {"name": "write", "arguments": {"path": "out.txt", "content": "changed\n"}},
            {"name": "bash", "arguments": {"command": "touch made-by-bash"}},
            {
                "name": "todo_write",
                "arguments": {
                    "todos": [
                        {"content": "read notes.txt", "status": "completed"},
                        {"content": "write out.txt", "status": "pending"},
                    ]
                },
            },
        ]
    },
    {"text": "Plan:\n1. write out.txt"},
]
EXECUTE_TURN = [
    {"toolCalls": [{"name": "write", "arguments": {"path": "out.txt", "content": "changed\n"}}]},
    {
        "toolCalls": [
            {
                "name": "todo_write",
                "arguments": {
                    "todos": [
                        {"content": "read notes.txt", "status": "completed"},
                        {"content": "write out.txt", "status": "completed"},
                    ]
                },
            }
        ]
    },
    {"text": "done"},
]


def _system(body: dict) -> str:
    return str(body["messages"][0]["content"])


async def test_plan_mode_refuses_writes_without_asking_then_the_next_mode_executes(
    fake_daemon, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("write out.txt\n")
    d, fm = fake_daemon(PLAN_TURN + EXECUTE_TURN)
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "plan it", interactive=True, approvalMode="plan")
        end = await finish(c, rid, timeout=30)
        assert end["type"] == "run_completed", end
        seen = types(c, rid)
        assert "approval_requested" not in seen, seen  # refused, never asked
        results = {e["toolName"]: e for e in finished_tools(c, rid).values()}
        assert not results["read"]["isError"]
        for name in ("write", "bash"):
            assert results[name]["isError"], results[name]
            assert "plan mode" in results[name]["output"], results[name]["output"]
        assert not (workspace / "out.txt").exists()
        assert not (workspace / "made-by-bash").exists()
        assert not results["todo_write"]["isError"]
        plan = [e for e in c.events(run_id=rid) if e["type"] == "plan_updated"]
        assert [t["status"] for t in plan[-1]["todos"]] == ["completed", "pending"]
        assert "# Plan mode" in _system(fm.requests[0])

        # The user switches mode (any client: here the same one) and the next turn executes.
        rid2 = await start(c, sid, "go ahead", interactive=True, approvalMode="yolo")
        end2 = await finish(c, rid2, timeout=30)
        assert end2["type"] == "run_completed", end2
        assert (workspace / "out.txt").read_text() == "changed\n"
        assert "# Plan mode" not in _system(fm.requests[2])
        # Within plan mode the prompt is the same; outside it, the prefix is unchanged.
        assert _system(fm.requests[0]).startswith(_system(fm.requests[2]).rstrip())
        todos = await c.request("gg/session.todos", {"sessionId": sid})
        assert todos == {
            "todos": [
                {"content": "read notes.txt", "status": "completed"},
                {"content": "write out.txt", "status": "completed"},
            ]
        }
    finally:
        await c.close()


async def test_plan_mode_overrides_a_tool_allowed_for_the_session(
    fake_daemon, workspace: Path
) -> None:
    write = {"toolCalls": [{"name": "write", "arguments": {"path": "a.txt", "content": "x"}}]}
    d, _fm = fake_daemon([write, {"text": "ok"}, write, {"text": "planned"}])
    c = await d.connect("ws")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "write a", interactive=True)
        ev = await c.wait_for(
            "gg/run.event", lambda p: p["runId"] == rid and p["type"] == "approval_requested", 20
        )
        await c.request(
            "gg/run.approve",
            {"runId": rid, "approvalId": ev["approval"]["id"], "allow": True, "scope": "session"},
        )
        await finish(c, rid)
        (workspace / "a.txt").unlink()
        rid2 = await start(c, sid, "plan", interactive=True, approvalMode="plan")
        await finish(c, rid2)
        (res,) = finished_tools(c, rid2).values()
        assert res["isError"] and "plan mode" in res["output"]
        assert not (workspace / "a.txt").exists()
    finally:
        await c.close()


async def test_todo_write_validates_and_the_list_survives_a_restart(
    fake_daemon, gg_home: Path, workspace: Path
) -> None:
    bad = {
        "toolCalls": [
            {"name": "todo_write", "arguments": {"todos": [{"content": "x", "status": "done"}]}}
        ]
    }
    good = {
        "toolCalls": [
            {"name": "todo_write", "arguments": {"todos": [{"content": "a", "status": "pending"}]}}
        ]
    }
    d, fm = fake_daemon([bad, good, {"text": "ok"}])
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "track it", approvalMode="yolo")
        await finish(c, rid)
        results = list(finished_tools(c, rid).values())
        assert results[0]["isError"]
        assert "todos[0].status is 'done'" in results[0]["output"], results[0]["output"]
        assert not results[1]["isError"]
        plans = [e["todos"] for e in c.events(run_id=rid) if e["type"] == "plan_updated"]
        assert plans == [[{"content": "a", "status": "pending"}]]  # the invalid call emits none
    finally:
        await c.close()
    d.stop()
    env = daemon_env(
        gg_home,
        {"OPENAI_BASE_URL": fm.base_url, "OPENAI_API_KEY": "k", "GG_MODEL": "fake-model"},
    )
    d2 = Daemon(gg_home, workspace, env).start()
    try:
        c2 = await d2.connect("unix")
        todos = await c2.request("gg/session.todos", {"sessionId": sid})
        assert todos == {"todos": [{"content": "a", "status": "pending"}]}
        await c2.close()
    finally:
        d2.stop()
