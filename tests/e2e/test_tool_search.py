"""Deferred tools through a real ggd: tool_search loads a real MCP server's tool into the run."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from .runs_helpers import finish, finished_tools, new_session, start, until

TIME_SERVER = Path(sys.executable).parent / "mcp-server-time"
TOOL = "mcp_time_get_current_time"


def declared(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """name -> function declaration of the tools a model request carried."""
    return {t["function"]["name"]: t["function"] for t in request.get("tools") or []}


def system(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


async def test_tool_search_loads_a_deferred_tool_for_the_rest_of_the_run(
    fake_daemon: Any, gg_home: Path
) -> None:
    gg_home.mkdir(parents=True, exist_ok=True)
    (gg_home / "mcp.json").write_text(
        json.dumps({"servers": {"time": {"command": str(TIME_SERVER)}}})
    )
    script = [
        {
            "toolCalls": [
                {"id": "s1", "name": "tool_search", "arguments": {"query": "current time"}}
            ]
        },
        {"toolCalls": [{"id": "c1", "name": TOOL, "arguments": {"timezone": "Etc/UTC"}}]},
        {"text": "It is late."},
        {"text": "Still loaded."},
    ]
    d, fm = fake_daemon(script)
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        rid = await start(c, sid, "what time is it?", interactive=True)
        # The deferred tool asks for approval exactly as before; tool_search never does.
        ask = await until(c, rid, "approval_requested")
        assert ask["approval"]["toolName"] == TOOL
        await c.request(
            "gg/run.approve", {"runId": rid, "approvalId": ask["approval"]["id"], "allow": True}
        )
        done = await finish(c, rid)
        assert done["type"] == "run_completed" and done["content"] == "It is late."
        fins = finished_tools(c, rid)
        rid2 = await start(c, sid, "and now?")
        assert (await finish(c, rid2))["type"] == "run_completed"
    finally:
        await c.close()
    first, second, third, later = fm.wait_for_requests(4)
    # First request: the tool is named in the prompt, its schema is not sent.
    assert TOOL not in declared(first) and "tool_search" in declared(first)
    assert TOOL in system(first).split("Load with tool_search before use: ", 1)[1].split("\n")[0]
    # tool_search answered with the declaration and loaded it into the next request.
    assert fins["s1"]["output"].startswith(f"Loaded: {TOOL}") and not fins["s1"]["isError"]
    spec = declared(second)[TOOL]
    assert "timezone" in spec["parameters"]["properties"]
    assert json.loads(fins["s1"]["output"].splitlines()[1]) == spec
    # The model's call of the loaded tool reached the real server.
    assert (
        not fins["c1"]["isError"]
        and f'"datetime": "{time.gmtime().tm_year}-' in fins["c1"]["output"]
    )
    assert TOOL in declared(third)
    # The session's next run declares what the conversation already loaded.
    assert TOOL in declared(later)
    assert len(json.dumps(first["tools"])) < len(json.dumps(second["tools"]))


async def test_a_small_server_is_declared_up_front_when_the_context_window_has_room(
    fake_daemon: Any, gg_home: Path
) -> None:
    gg_home.mkdir(parents=True, exist_ok=True)
    (gg_home / "mcp.json").write_text(
        json.dumps({"servers": {"time": {"command": str(TIME_SERVER)}}})
    )
    # 10 % of 200,000 tokens: the time server's two tools fit, so they cost no round trip.
    config = {"providers": {"openai": {"contextWindow": 200_000}}}
    (gg_home / "config.json").write_text(json.dumps(config))
    script = [
        {"toolCalls": [{"id": "c1", "name": TOOL, "arguments": {"timezone": "Etc/UTC"}}]},
        {"text": "It is late."},
    ]
    d, fm = fake_daemon(script)
    c = await d.connect("unix")
    try:
        sid = await new_session(c)
        before = await c.request("gg/system.info", {})
        rid = await start(c, sid, "what time is it?", approvalMode="yolo")
        done = await finish(c, rid)
        info = await c.request("gg/system.info", {})
    finally:
        await c.close()
    assert done["type"] == "run_completed", done
    first = fm.requests[0]
    assert TOOL in declared(first) and "tool_search" not in declared(first)
    assert "Load with tool_search" not in system(first)
    assert declared(fm.requests[1]) == declared(first)  # one prefix for the whole run
    plan = info["toolDeclarations"]["openai:fake-model"]
    assert plan["budgetTokens"] == 20_000
    time_group = next(g for g in plan["groups"] if g["name"] == "mcp server time")
    assert time_group["deferred"] is False and time_group["tools"] == 2
    assert "groups" not in before["toolDeclarations"]["openai:fake-model"]
