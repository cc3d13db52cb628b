"""Deferred tools: named up front, declared once tool_search (or a call) loads them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ggd.agent import SEARCH_TOOL, AgentOptions, InMemoryTranscript, ToolSet, build_system_prompt
from ggd.agent.context import LOADABLE_MAX_CHARS
from ggd.agent.toolset import LOADED_PREFIX

from .helpers import RecTool, ScriptedProvider, call, calls, make_loop, recording_approver, reply


def deferred(name: str, log: list[tuple[str, ...]], desc: str = "", **kw: Any) -> RecTool:
    tool = RecTool(name, log, **kw)
    tool.deferred = True
    if desc:
        tool.description = desc
    return tool


def names(specs: list[dict[str, Any]] | None) -> list[str]:
    return [s["function"]["name"] for s in specs or []]


def tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m["role"] == "tool"]


def test_only_eager_tools_are_declared_until_one_is_loaded() -> None:
    log: list[tuple[str, ...]] = []
    ts = ToolSet([RecTool("read", log), deferred("browser_read", log), deferred("tts", log)])
    assert [t.name for t in ts.declared()] == ["read", SEARCH_TOOL]
    assert ts.deferred_names == ["browser_read", "tts"]
    ts.load(["tts", "nope"])
    assert [t.name for t in ts.declared()] == ["read", SEARCH_TOOL, "tts"]
    # A call by name loads a deferred tool; an unknown name stays unknown.
    assert ts.get("browser_read") is not None and ts.get("nope") is None
    assert [t.name for t in ts.declared()][-1] == "browser_read"


def test_without_deferred_tools_there_is_no_tool_search() -> None:
    ts = ToolSet([RecTool("read", [])])
    assert [t.name for t in ts.declared()] == ["read"] and ts.deferred_names == []


def test_search_ranks_exact_names_then_name_words_then_descriptions() -> None:
    log: list[tuple[str, ...]] = []
    ts = ToolSet(
        [
            deferred("mcp_time_get_current_time", log, "[MCP server time] Current time in a zone"),
            deferred("mcp_time_convert_time", log, "[MCP server time] Convert between zones"),
            deferred("browser_navigate", log, "Open a public URL in a headless browser"),
            deferred("kb_search", log, "Search the user's knowledge bases"),
        ]
    )
    assert [t.name for t in ts.search("browser")] == ["browser_navigate"]
    assert [t.name for t in ts.search("kb_search, browser_navigate")] == [
        "kb_search",
        "browser_navigate",
    ]
    # Name words weigh more than description words; "the" and "tool" match nothing.
    assert [t.name for t in ts.search("convert the time tool")][:2] == [
        "mcp_time_convert_time",
        "mcp_time_get_current_time",
    ]
    assert ts.search("the tool") == [] and ts.search("zzz") == []


def test_restore_loads_what_earlier_runs_called_or_loaded() -> None:
    log: list[tuple[str, ...]] = []
    ts = ToolSet([deferred("a_one", log), deferred("b_two", log), deferred("c_three", log)])
    ts.restore(
        [
            {"role": "assistant", "toolCalls": [{"id": "1", "name": "a_one", "arguments": {}}]},
            {"role": "tool", "toolName": SEARCH_TOOL, "content": f"{LOADED_PREFIX}b_two\n{{}}"},
            {"role": "tool", "toolName": "a_one", "content": f"{LOADED_PREFIX}c_three"},
        ]
    )
    assert [t.name for t in ts.declared()] == [SEARCH_TOOL, "a_one", "b_two"]


def test_the_prompt_names_loadable_tools_within_a_budget(tmp_path: Path) -> None:
    prompt = build_system_prompt(tmp_path, None, [RecTool("read", [])], loadable=["tts", "stt"])
    assert "Tools: read\nLoad with tool_search before use: tts, stt" in prompt
    many = [f"mcp_big_tool_number_{i:03d}" for i in range(200)]
    prompt = build_system_prompt(tmp_path, None, [], loadable=many)
    line = next(x for x in prompt.splitlines() if x.startswith("Load with"))
    assert len(line) < LOADABLE_MAX_CHARS + 100 and line.endswith("more (search by words)")
    assert "mcp_big_tool_number_000" in line and "mcp_big_tool_number_199" not in line


async def test_a_run_searches_loads_and_calls_a_deferred_tool(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    tool = deferred("clock_now", log, "Tell the current wall-clock time", needs_approval=True)
    provider = ScriptedProvider(
        calls(call("s1", SEARCH_TOOL, query="clock time")),
        calls(call("c1", "clock_now", path="utc")),
        reply("noon"),
    )
    h = make_loop(
        provider, [RecTool("read", log), tool], tmp_path, approver=recording_approver(log)
    )
    out = await h.loop.run("what time is it?")
    assert out.content == "noon"
    first, second, third = (r.tools for r in provider.requests)
    assert names(first) == ["read", SEARCH_TOOL]
    assert names(second) == ["read", SEARCH_TOOL, "clock_now"] == names(third)
    found, ran = tool_results(h.transcript.messages())
    assert found["content"].splitlines()[0] == f"{LOADED_PREFIX}clock_now"
    assert json.loads(found["content"].splitlines()[1]) == tool.spec()["function"]
    # tool_search never asks; the loaded tool is approved like any other, then runs.
    assert log == [
        ("approve", "clock_now", "utc"),
        ("start", "clock_now", "utc"),
        ("end", "clock_now", "utc"),
    ]
    assert ran["content"] == "ok utc" and not ran["isError"]


async def test_a_loaded_tool_keeps_validation_and_denials(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    tool = deferred("clock_now", log, needs_approval=True)
    tool.parameters = {
        "type": "object",
        "properties": {"zone": {"type": "string"}},
        "required": ["zone"],
    }
    provider = ScriptedProvider(
        calls(call("c1", "clock_now")),  # called by name, unloaded: loaded, then validated
        calls(call("c2", "clock_now", zone="utc")),
        reply("no"),
    )
    approver = recording_approver(log, deny={"clock_now": "not now"})
    h = make_loop(provider, [tool], tmp_path, approver=approver)
    await h.loop.run("time?")
    invalid, denied = tool_results(h.transcript.messages())
    assert invalid["isError"] and "missing required argument(s): zone" in invalid["content"]
    assert denied["isError"] and denied["content"] == "denied: not now"
    assert names(provider.requests[1].tools) == [SEARCH_TOOL, "clock_now"]
    assert ("start", "clock_now", "") not in log


async def test_the_next_run_of_the_conversation_declares_what_it_loaded(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    transcript = InMemoryTranscript()
    first = ScriptedProvider(calls(call("s1", SEARCH_TOOL, query="clock_now")), reply("loaded"))
    tools = [deferred("clock_now", log), deferred("other", log)]
    await make_loop(first, tools, tmp_path, transcript=transcript).loop.run("load it")
    again = ScriptedProvider(reply("still here"))
    await make_loop(again, tools, tmp_path, transcript=transcript).loop.run("again")
    assert names(again.requests[0].tools) == [SEARCH_TOOL, "clock_now"]


async def test_the_loop_prompt_lists_deferred_tools_and_declares_eager_ones(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    provider = ScriptedProvider(reply("ok"))
    tools = [RecTool("read", log), deferred("browser_read", log)]
    h = make_loop(provider, tools, tmp_path, options=AgentOptions())
    await h.loop.run("hi")
    system = provider.requests[0].messages[0]["content"]
    assert f"Tools: read, {SEARCH_TOOL}\nLoad with tool_search before use: browser_read" in system
    assert names(provider.requests[0].tools) == ["read", SEARCH_TOOL]


def _grouped(name: str, group: str, size: int) -> RecTool:
    tool = deferred(name, [], desc="x" * size)
    tool.defer_group = group
    return tool


def test_groups_are_declared_up_front_while_they_fit_the_budget_largest_deferred_first() -> None:
    small = [_grouped("kb_search", "kb", 100)]
    medium = [_grouped(f"browser_{i}", "browser", 400) for i in range(2)]
    big = [_grouped(f"mcp_big_{i}", "mcp server big", 2000) for i in range(3)]
    tools = [RecTool("read", []), *big, *medium, *small]
    ts = ToolSet(tools, declare_budget=150)
    sizes = {g.name: g.tokens for g in ts.groups}
    assert sizes["browser"] > 150 > sizes["kb"]  # browser alone does not fit; kb does
    plan = {g.name: g.deferred for g in ts.groups}
    assert plan == {"mcp server big": True, "browser": True, "kb": False}
    assert [t.name for t in ts.declared()] == ["read", "kb_search", SEARCH_TOOL]
    assert ts.deferred_names == ["mcp_big_0", "mcp_big_1", "mcp_big_2", "browser_0", "browser_1"]
    # With room for everything nothing is deferred, and there is no tool_search at all.
    roomy = ToolSet(tools, declare_budget=100_000)
    assert not any(g.deferred for g in roomy.groups) and roomy.deferred_names == []
    assert SEARCH_TOOL not in [t.name for t in roomy.declared()]
    # The same tools and budget always give the same prefix (prompt caches stay warm).
    again = ToolSet(tools, declare_budget=150)
    assert [t.spec() for t in again.declared()] == [t.spec() for t in ts.declared()]


def test_without_a_budget_every_deferrable_tool_is_deferred() -> None:
    ts = ToolSet([RecTool("read", []), _grouped("kb_search", "kb", 10)], declare_budget=None)
    assert [t.name for t in ts.declared()] == ["read", SEARCH_TOOL]
    assert [g.deferred for g in ts.groups] == [True]


def test_the_loop_budget_is_a_share_of_the_context_window() -> None:
    assert AgentOptions(context_window=200_000).tool_budget() == 20_000
    assert AgentOptions(context_window=200_000, tool_share=0).tool_budget() is None
    assert AgentOptions(context_window=None).tool_budget() is None
