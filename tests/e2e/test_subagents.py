"""Subagents through a real ggd and the scripted model: the `task` tool's child runs.

Each conversation's steps carry `when` (its first user message), so the parent and children that
run at once each take their own steps whatever order their requests reach the fake in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from .rpc_client import RpcClient
from .runs_helpers import finish, finished_tools, new_session, start, until


def _for(marker: str, *steps: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**s, "when": {"firstUser": marker}} for s in steps]


def _task(call_id: str, agent: str, prompt: str, description: str = "") -> dict[str, Any]:
    args = {"agent": agent, "prompt": prompt}
    if description:
        args["description"] = description
    return {"id": call_id, "name": "task", "arguments": args}


TREE = [
    *_for(
        "PARENT",
        {
            "toolCalls": [
                # The general child first: its approval waits while the explore ones finish,
                # which only parallel children can do.
                _task("t_g", "general", "GENERAL: write out.txt", "write the file"),
                _task("t_a", "explore", "EXPLORE-A: what does README.md say?", "read the readme"),
                _task("t_b", "explore", "EXPLORE-B: try to write b.txt"),
            ]
        },
        {"text": "all three reported"},
    ),
    *_for(
        "EXPLORE-A",
        {"toolCalls": [{"name": "read", "arguments": {"path": "README.md"}}]},
        {"text": "A: the readme says demo project"},
    ),
    *_for(
        "EXPLORE-B",
        {"toolCalls": [{"name": "write", "arguments": {"path": "b.txt", "content": "no"}}]},
        {"text": "B: I cannot write"},
    ),
    *_for(
        "GENERAL",
        {"toolCalls": [{"name": "write", "arguments": {"path": "out.txt", "content": "hi\n"}}]},
        {"text": "G: wrote out.txt"},
    ),
]


@asynccontextmanager
async def _client(d: Any, kind: str) -> AsyncIterator[RpcClient]:
    c = await d.connect(kind)
    try:
        yield c
    finally:
        await c.close()


def _tools_of(request: dict[str, Any]) -> list[str]:
    return sorted(t["function"]["name"] for t in request.get("tools") or [])


def _first_user(request: dict[str, Any]) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


async def test_parallel_children_approval_from_a_second_client_and_the_tree(
    fake_daemon, workspace: Path
) -> None:
    d, fm = fake_daemon(TREE)
    async with _client(d, "unix") as c, _client(d, "ws") as watcher:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: delegate this", interactive=True)
        # The general child's write asks: on the parent's stream, attributed to the child.
        ask = await until(c, rid, "approval_requested", timeout=30)
        approval = ask["approval"]
        assert approval["toolName"] == "write" and approval["agent"] == "general"
        child_run = approval["childRunId"]
        started = {
            e["toolCallId"]: e for e in c.events(run_id=rid) if e["type"] == "child_run_started"
        }
        assert set(started) == {"t_a", "t_b", "t_g"}  # all three started before any answer
        assert started["t_g"]["childRunId"] == child_run
        # Both explore children end while the general one still waits: they ran in parallel.
        ends: dict[str, Any] = {}
        while len(ends) < 2:
            after = max((e["sequence"] for e in ends.values()), default=0)
            e = await until(c, rid, "child_run_finished", timeout=30, after=after)
            ends[e["toolCallId"]] = e
        assert set(ends) == {"t_a", "t_b"}
        assert (await c.request("gg/run.get", {"runId": child_run}))["status"] == (
            "waiting_approval"
        )
        # A second client follows the child run itself and answers there.
        await watcher.request("gg/run.subscribe", {"runId": child_run, "afterSequence": 0})
        on_child = await until(watcher, child_run, "approval_requested", timeout=10)
        assert on_child["approval"]["id"] == approval["id"]
        assert on_child["approval"]["agent"] == "general"
        await watcher.request(
            "gg/run.approve", {"runId": child_run, "approvalId": approval["id"], "allow": True}
        )
        resolved = await until(c, rid, "approval_resolved", timeout=10)
        assert resolved["approvalId"] == approval["id"] and resolved["allow"] is True
        end = await finish(c, rid, timeout=60)
        child_end = await finish(watcher, child_run, timeout=10)
        assert end["type"] == "run_completed", end
        assert end["content"] == "all three reported"
        assert child_end["type"] == "run_completed"

        results = finished_tools(c, rid)
        assert results["t_a"]["output"] == "A: the readme says demo project"
        assert results["t_b"]["output"] == "B: I cannot write"
        assert results["t_g"]["output"] == "G: wrote out.txt"
        assert not any(r["isError"] for r in results.values())
        assert (workspace / "out.txt").read_text() == "hi\n"
        assert not (workspace / "b.txt").exists()  # explore cannot write

        finished = [e for e in c.events(run_id=rid) if e["type"] == "child_run_finished"]
        assert {e["status"] for e in finished} == {"completed"}
        progress = [e for e in c.events(run_id=rid) if e["type"] == "child_run_progress"]
        assert any(p["text"] == "read README.md" for p in progress), progress

        # What each conversation was given: explore reads only, no child may delegate.
        by_first = {}
        for req in fm.requests:
            by_first.setdefault(_first_user(req).split(":")[0], req)
        assert "task" in _tools_of(by_first["PARENT"])
        assert _tools_of(by_first["EXPLORE-A"]) == ["grep", "list", "read"]
        assert "write" in _tools_of(by_first["GENERAL"])
        assert "task" not in _tools_of(by_first["GENERAL"])
        system = by_first["PARENT"]["messages"][0]["content"]
        assert "- explore: Read-only (read, list, grep)" in system and "- general: " in system
        assert "subagent `explore`" in by_first["EXPLORE-A"]["messages"][0]["content"]
        # The parent's model saw the explore child's refusal only as B's answer; B saw it.
        b_tool = [m for m in fm.requests if _first_user(m).startswith("EXPLORE-B")][-1]
        assert any(
            m["role"] == "tool" and "unknown tool: write" in m["content"]
            for m in b_tool["messages"]
        )

        # The tree: children are hidden by default and listed with their links on request.
        plain = (await c.request("gg/session.list", {}))["sessions"]
        assert [s["id"] for s in plain] == [sid]
        rows = (await c.request("gg/session.list", {"includeChildren": True}))["sessions"]
        children = {r["toolCallId"]: r for r in rows if r.get("parentSessionId")}
        assert set(children) == {"t_a", "t_b", "t_g"}
        for call_id, row in children.items():
            assert row["parentSessionId"] == sid and row["parentRunId"] == rid
            assert row["id"] == started[call_id]["childSessionId"]
        assert children["t_a"]["agent"] == "explore" and children["t_g"]["agent"] == "general"
        only = (await c.request("gg/session.list", {"parentSessionId": sid}))["sessions"]
        assert sorted(r["toolCallId"] for r in only) == ["t_a", "t_b", "t_g"]
        none = await c.request("gg/session.list", {"parentSessionId": children["t_a"]["id"]})
        assert none["sessions"] == []

        # A child session is an ordinary session: opened, replayed and forked.
        snap = await c.request("gg/session.open", {"sessionId": children["t_g"]["id"]})
        assert snap["messages"][0]["content"] == "GENERAL: write out.txt"
        assert (snap["parentSessionId"], snap["parentRunId"]) == (sid, rid)
        assert (snap["toolCallId"], snap["agent"]) == ("t_g", "general")
        parent_snap = await c.request("gg/session.get", {"sessionId": sid})
        assert "parentSessionId" not in parent_snap
        replay = await c.request("gg/run.wait", {"runId": child_run, "afterSequence": 0})
        kinds = [e["type"] for e in replay["events"]]
        assert kinds[0] == "run_started" and kinds[-1] == "run_completed"
        fork = await c.request(
            "gg/session.action", {"sessionId": children["t_a"]["id"], "action": "clone"}
        )
        assert fork["sessionId"] != children["t_a"]["id"]


HANGING = [
    *_for(
        "PARENT",
        {
            "toolCalls": [
                _task("t_1", "explore", "SLOW-1: look around"),
                _task("t_2", "explore", "SLOW-2: look around"),
            ]
        },
    ),
    *_for("SLOW-1", {"text": "thinking", "hang": True}),
    *_for("SLOW-2", {"text": "thinking", "hang": True}),
]


async def test_cancel_of_the_parent_cancels_every_child(fake_daemon) -> None:
    d, fm = fake_daemon(HANGING)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: two slow ones", interactive=True)
        first = await until(c, rid, "child_run_started", timeout=30)
        second = await until(c, rid, "child_run_started", timeout=30, after=first["sequence"])
        kids = [first["childRunId"], second["childRunId"]]
        for kid in kids:
            await c.request("gg/run.subscribe", {"runId": kid, "afterSequence": 0})
        fm.wait_for_requests(3, timeout=30)  # both children are streaming (and hang)
        await c.request("gg/run.cancel", {"runId": rid})
        end = await finish(c, rid, timeout=30)
        assert end["type"] == "run_canceled"
        for kid in kids:
            assert (await finish(c, kid, timeout=30))["type"] == "run_canceled"
        done = [e for e in c.events(run_id=rid) if e["type"] == "child_run_finished"]
        assert sorted(e["status"] for e in done) == ["canceled", "canceled"]
        status = await c.request("gg/run.get", {"runId": kids[0]})
        assert status["status"] == "canceled"


FAILING = [
    *_for(
        "PARENT",
        {"toolCalls": [_task("t_f", "explore", "BROKEN: fail please")]},
        {"text": "the child failed, carrying on"},
    ),
    *_for("BROKEN", {"status": 400, "errorBody": {"error": {"message": "bad request here"}}}),
]


async def test_a_failed_child_is_an_error_result_not_a_failed_parent(fake_daemon) -> None:
    d, _fm = fake_daemon(FAILING)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: one that fails", interactive=True)
        end = await finish(c, rid, timeout=60)
        assert end["type"] == "run_completed", end
        result = finished_tools(c, rid)["t_f"]
        assert result["isError"] is True
        assert result["output"].startswith("subagent explore failed:"), result
        done = next(e for e in c.events(run_id=rid) if e["type"] == "child_run_finished")
        assert done["status"] == "failed" and done["error"]


DELEGATOR = """---
name: delegator
description: Splits work and hands parts on.
tools: Read, Task
model: claude-sonnet-4-5-20250929
---
DELEGATOR-RULES: hand every part to another agent.
"""

NESTED = [
    *_for(
        "PARENT",
        {"toolCalls": [_task("t_d", "delegator", "LEVEL-1: split it")]},
        {"text": "root done"},
    ),
    *_for(
        "LEVEL-1",
        {"toolCalls": [_task("t_n", "general", "LEVEL-2: do the part")]},
        {"text": "level 1 done"},
    ),
    *_for("LEVEL-2", {"text": "level 2 done"}),
]


async def test_a_definition_file_narrows_tools_and_may_allow_one_more_level(
    fake_daemon, workspace: Path
) -> None:
    (workspace / ".agents" / "agents").mkdir(parents=True)
    (workspace / ".agents" / "agents" / "delegator.md").write_text(DELEGATOR)
    d, fm = fake_daemon(NESTED)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: nest", interactive=True)
        end = await finish(c, rid, timeout=60)
        assert end["type"] == "run_completed" and end["content"] == "root done", end
        assert finished_tools(c, rid)["t_d"]["output"] == "level 1 done"
        rows = (await c.request("gg/session.list", {"includeChildren": True}))["sessions"]
    by_first = {_first_user(r).split(":")[0]: r for r in fm.requests}
    assert (
        "- delegator: Splits work and hands parts on."
        in by_first["PARENT"]["messages"][0]["content"]
    )
    level1 = by_first["LEVEL-1"]
    assert _tools_of(level1) == ["read", "task"]  # its allow-list; `task` named, so it may nest
    assert "DELEGATOR-RULES" in level1["messages"][0]["content"]
    assert "task" not in _tools_of(by_first["LEVEL-2"])  # depth 2 is the deepest
    grandchild = next(r for r in rows if r.get("agent") == "general")
    child = next(r for r in rows if r.get("agent") == "delegator")
    assert grandchild["parentSessionId"] == child["id"] and grandchild["toolCallId"] == "t_n"
    assert child["parentSessionId"] == sid
    # Its model is another agent's: it ran on the parent's model instead of failing.
    async with _client(d, "unix") as c:
        models = {
            s: (await c.request("gg/session.get", {"sessionId": s}))["model"]
            for s in (sid, child["id"])
        }
    assert models[child["id"]] == models[sid]


BUDGET = [
    *_for(
        "PARENT",
        {"toolCalls": [_task("t_x", "explore", "SPEND: read twice")]},
        {"text": "never reached"},
    ),
    *_for(
        "SPEND",
        {"toolCalls": [{"name": "read", "arguments": {"path": "README.md"}}]},
        {"text": "spent"},
    ),
]


async def test_children_spend_the_parents_turns(fake_daemon, gg_home: Path) -> None:
    gg_home.mkdir(parents=True, exist_ok=True)
    (gg_home / "config.json").write_text('{"maxTurns": 3}')
    d, fm = fake_daemon(BUDGET)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: spend", interactive=True)
        end = await finish(c, rid, timeout=60)
    # 1 parent request + 2 of the child = 3: the parent's second request is over the limit.
    assert end["type"] == "run_failed" and end["errorCode"] == "turn_limit", end
    assert "this run and its subagents made 3 model requests" in end["error"]
    assert len(fm.requests) == 3


async def test_a_finished_childs_mcp_servers_are_closed(fake_daemon, gg_home: Path) -> None:
    from .daemon import wait_until
    from .test_mcp import TIME_SERVER, alive, children, write_mcp

    write_mcp(gg_home, {"time": {"command": str(TIME_SERVER)}})
    script = [
        *_for("PARENT", {"toolCalls": [_task("t_m", "general", "MCPCHILD: just answer")]}),
        *_for("MCPCHILD", {"text": "answered"}),
        *_for("PARENT", {"text": "done"}),
    ]
    d, _fm = fake_daemon(script)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: with mcp", interactive=True)
        first = await until(c, rid, "child_run_started", timeout=30)
        end = await finish(c, rid, timeout=60)
        assert end["type"] == "run_completed", end
        assert first["childSessionId"]

        def servers() -> list[int]:
            assert d.proc is not None
            return [p for p, cmd in children(d.proc.pid).items() if "mcp-server-time" in cmd]

        # The parent session keeps its server; the child's closed with the child's run.
        await wait_until(lambda: len(servers()) == 1, timeout=15)
        kept = servers()
    assert d.stop() == 0
    await wait_until(lambda: not alive(kept[0]))


async def test_cancel_while_a_child_waits_for_approval(fake_daemon, workspace: Path) -> None:
    script = [
        *_for("PARENT", {"toolCalls": [_task("t_w", "general", "ASKER: write w.txt")]}),
        *_for(
            "ASKER",
            {"toolCalls": [{"name": "write", "arguments": {"path": "w.txt", "content": "w"}}]},
        ),
    ]
    d, _fm = fake_daemon(script)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: ask then cancel", interactive=True)
        ask = await until(c, rid, "approval_requested", timeout=30)
        child_run = ask["approval"]["childRunId"]
        await c.request("gg/run.subscribe", {"runId": child_run, "afterSequence": 0})
        await c.request("gg/run.cancel", {"runId": rid})
        assert (await finish(c, rid, timeout=30))["type"] == "run_canceled"
        assert (await finish(c, child_run, timeout=30))["type"] == "run_canceled"
        gone = [e for e in c.events(run_id=rid) if e["type"] == "approval_resolved"]
        assert [(e["approvalId"], e["allow"]) for e in gone] == [(ask["approval"]["id"], False)]
        on_child = [e for e in c.events(run_id=child_run) if e["type"] == "approval_resolved"]
        assert [e["allow"] for e in on_child] == [False]
        status = await c.request("gg/run.get", {"runId": rid})
        assert status["pendingApprovals"] == []
    assert not (workspace / "w.txt").exists()
    assert "Traceback" not in d.logs()


async def test_a_childs_loop_guard_question_reaches_the_parents_clients(fake_daemon) -> None:
    script = [
        *_for(
            "PARENT",
            {"toolCalls": [_task("t_l", "explore", "LOOPER: read forever")]},
            {"text": "the child was stopped"},
        ),
        *_for(
            "LOOPER",
            {"toolCalls": [{"name": "read", "arguments": {"path": "README.md"}}], "repeat": 10},
        ),
    ]
    d, _fm = fake_daemon(script)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: loop", interactive=True)
        ask = await until(c, rid, "approval_requested", timeout=60)
        approval = ask["approval"]
        assert approval["toolName"] == "loop_guard" and approval["agent"] == "explore"
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": approval["id"], "allow": False}
        )
        end = await finish(c, rid, timeout=60)
    assert end["type"] == "run_completed", end
    result = finished_tools(c, rid)["t_l"]
    assert result["isError"] and "loop detected" in result["output"], result


async def test_a_subagentstop_hook_sends_the_child_back_once(fake_daemon, gg_home: Path) -> None:
    import json

    # Claude Code's SubagentStop contract: exit 2 blocks with stderr as the reason, and the
    # second time stop_hook_active says it already did once.
    script = (
        'read -r line; case "$line" in *\'"stop_hook_active": true\'*) exit 0;; esac; '
        "echo 'check the readme again' >&2; exit 2"
    )
    gg_home.mkdir(parents=True, exist_ok=True)
    (gg_home / "hooks.json").write_text(
        json.dumps(
            {"hooks": {"SubagentStop": [{"hooks": [{"type": "command", "command": script}]}]}}
        )
    )
    steps = [
        *_for("PARENT", {"toolCalls": [_task("t_s", "explore", "HOOKED: look")]}),
        *_for("HOOKED", {"text": "first answer"}, {"text": "second answer"}),
        *_for("PARENT", {"text": "parent done"}),
    ]
    d, fm = fake_daemon(steps)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: hooked child", interactive=True)
        end = await finish(c, rid, timeout=60)
    assert end["type"] == "run_completed" and end["content"] == "parent done", end
    # The parent's Stop hooks are not the child's: only the child went round again.
    assert finished_tools(c, rid)["t_s"]["output"] == "second answer"
    child_requests = [r for r in fm.requests if _first_user(r).startswith("HOOKED")]
    assert len(child_requests) == 2
    last_user = [m for m in child_requests[1]["messages"] if m["role"] == "user"][-1]
    assert "check the readme again" in last_user["content"]


async def test_a_plan_mode_parent_s_child_cannot_write(fake_daemon, workspace: Path) -> None:
    steps = [
        *_for("PARENT", {"toolCalls": [_task("t_p", "general", "PLANNED: write p.txt")]}),
        *_for(
            "PLANNED",
            {"toolCalls": [{"name": "write", "arguments": {"path": "p.txt", "content": "p"}}]},
            {"text": "could not write"},
        ),
        *_for("PARENT", {"text": "here is the plan"}),
    ]
    d, fm = fake_daemon(steps)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: plan it", interactive=True, approvalMode="plan")
        end = await finish(c, rid, timeout=60)
    assert end["type"] == "run_completed", end
    assert not any(e["type"] == "approval_requested" for e in c.events(run_id=rid))
    assert not (workspace / "p.txt").exists()
    child = [r for r in fm.requests if _first_user(r).startswith("PLANNED")][-1]
    refusal = next(m["content"] for m in child["messages"] if m["role"] == "tool")
    assert "plan mode" in refusal, refusal


SPENDING = [
    *_for(
        "PARENT",
        {
            "toolCalls": [_task("t_s", "explore", "CHILD: read it twice")],
            "usage": {"prompt": 100, "completion": 10},
        },
        {"text": "the parent never gets this far"},
    ),
    *_for(
        "CHILD",
        {
            "toolCalls": [{"name": "read", "arguments": {"path": "README.md"}}],
            "usage": {"prompt": 1000, "completion": 50},
        },
        {
            "toolCalls": [{"name": "read", "arguments": {"path": "README.md"}}],
            "usage": {"prompt": 1000, "completion": 50},
        },
        {"text": "the child never gets this far"},
    ),
]


async def test_a_parents_budget_counts_what_its_children_spend(fake_daemon) -> None:
    """The run budget bounds the whole tree: the child stops when the tree reaches it, and the
    parent does not go on spending after its child used the budget up."""
    d, fm = fake_daemon(SPENDING)
    async with _client(d, "unix") as c:
        sid = await new_session(c)
        rid = await start(c, sid, "PARENT: delegate", budget={"maxTokens": 1500})
        end = await finish(c, rid, timeout=60)
        finished = finished_tools(c, rid)
    # 110 tokens of the parent, then 1,050 and 1,050 of the child: 2,210 of 1,500.
    assert len(fm.requests) == 3
    assert end["type"] == "run_failed" and end["errorCode"] == "budget_exceeded", end
    assert end["error"].startswith("run budget reached: 2210 tokens of maxTokens 1500"), end
    # The child's failure came back to the parent as an error result naming the budget.
    task = finished["t_s"]
    assert task["isError"] and "run budget reached" in str(task), task
