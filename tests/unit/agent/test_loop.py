"""AgentLoop: requests, tool batches, approvals, steering, limits, errors and cancellation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from ggd.agent import (
    AgentError,
    AgentLoop,
    AgentOptions,
    InMemoryTranscript,
    PathLocks,
    SteeringQueue,
    TextDeltaEvent,
    ToolCallFinishEvent,
    ToolCallStartEvent,
    UsageEvent,
    UserMessageEvent,
    allow_all,
)
from ggd.providers.types import Completed, TextDelta
from ggd.tools.base import ToolContext, ToolResult

from .helpers import (
    WAIT,
    Hang,
    RecTool,
    ScriptedProvider,
    Step,
    call,
    calls,
    make_loop,
    provider_error,
    recording_approver,
    reply,
)


def tool_msgs(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m["role"] == "tool"]


async def test_final_answer_streams_and_persists(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply("hello there"))
    h = make_loop(provider, [], tmp_path)
    out = await h.loop.run("hi")
    assert out.content == "hello there"
    assert out.stop_reason == "end_turn"
    assert out.usage.total_tokens == 15
    assert "".join(e.text for e in h.sink.of(TextDeltaEvent)) == "hello there"
    msgs = h.transcript.messages()
    assert [m["role"] for m in msgs] == ["user", "assistant"]
    assert msgs[0]["content"] == "hi" and isinstance(msgs[0]["timestamp"], int)
    assert msgs[1]["stopReason"] == "end_turn"
    usage = h.sink.of(UsageEvent)
    assert usage[0].prompt_tokens == 10 and usage[0].context_tokens == 10
    assert h.transcript.usages()[0]["totalTokens"] == 15
    req = provider.requests[0]
    assert req.messages[0] == {"role": "system", "content": "SYSTEM"}
    assert req.messages[1] == {"role": "user", "content": "hi"}
    assert req.max_tokens == 4096


async def test_tool_round_trip_reaches_model_in_openai_form(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    tool = RecTool("read", log, parallel_safe=True)
    provider = ScriptedProvider(calls(call("c1", "read", path="a.txt")), reply("done"))
    h = make_loop(provider, [tool], tmp_path)
    await h.loop.run("read it")
    second = provider.requests[1].messages
    assert second[2]["tool_calls"][0]["function"] == {
        "name": "read",
        "arguments": json.dumps({"path": "a.txt"}),
    }
    assert second[3] == {"role": "tool", "tool_call_id": "c1", "content": "ok a.txt"}
    assert provider.requests[0].tools == [tool.spec()]
    start = h.sink.of(ToolCallStartEvent)[0]
    assert (start.tool_call_id, start.summary, start.arguments) == (
        "c1",
        "read a.txt",
        {"path": "a.txt"},
    )
    finish = h.sink.of(ToolCallFinishEvent)[0]
    assert (finish.is_error, finish.output) == (False, "ok a.txt")


async def test_all_approvals_are_asked_in_order_before_any_tool_runs(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    tools = [
        RecTool("edit", log, needs_approval=True),
        RecTool("read", log, parallel_safe=True),
        RecTool("bash", log, needs_approval=False, risk="dangerous"),
    ]
    provider = ScriptedProvider(
        calls(
            call("1", "edit", path="x"), call("2", "read", path="y"), call("3", "bash", path="z")
        ),
        reply("ok"),
    )
    h = make_loop(provider, tools, tmp_path, approver=recording_approver(log))
    await h.loop.run("go")
    # read needs no approval; bash is asked because it is dangerous; both before any start.
    assert log[:2] == [("approve", "edit", "x"), ("approve", "bash", "z")]
    assert sum(1 for e in log if e[0] == "approve") == 2
    assert [e for e in log if e[0] == "start"] == [
        ("start", "edit", "x"),
        ("start", "read", "y"),
        ("start", "bash", "z"),
    ]


async def test_parallel_safe_tools_run_at_most_four_at_once(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    state = {"active": 0, "max": 0}
    gate = asyncio.Event()

    async def counted(args: dict[str, Any]) -> ToolResult:
        state["active"] += 1
        state["max"] = max(state["max"], state["active"])
        if state["active"] >= 4:
            gate.set()
        # Every call waits until four run together: more than four would be seen in "max".
        await asyncio.wait_for(gate.wait(), WAIT)
        state["active"] -= 1
        return ToolResult("ok")

    tool = RecTool("grep", log, parallel_safe=True, behaviour=counted)
    batch = [call(f"c{i}", "grep", path=str(i)) for i in range(7)]
    h = make_loop(ScriptedProvider(calls(*batch), reply("ok")), [tool], tmp_path)
    await h.loop.run("search")
    assert state["max"] == 4
    results = tool_msgs(h.transcript.messages())
    assert [m["toolCallId"] for m in results] == [f"c{i}" for i in range(7)]


async def test_non_parallel_tool_is_a_barrier(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    first, second = asyncio.Event(), asyncio.Event()
    gates = {"a": first, "b": first, "d": second, "e": second}
    arrived: dict[int, int] = {}

    async def pair(args: dict[str, Any]) -> ToolResult:
        # Each read waits for its partner: the pair only finishes if both run together.
        gate = gates[args["path"]]
        arrived[id(gate)] = arrived.get(id(gate), 0) + 1
        if arrived[id(gate)] == 2:
            gate.set()
        await asyncio.wait_for(gate.wait(), WAIT)
        return ToolResult("ok")

    read = RecTool("read", log, parallel_safe=True, behaviour=pair)
    bash = RecTool("bash", log)
    batch = [
        call("1", "read", path="a"),
        call("2", "read", path="b"),
        call("3", "bash", path="c"),
        call("4", "read", path="d"),
        call("5", "read", path="e"),
    ]
    h = make_loop(ScriptedProvider(calls(*batch), reply("ok")), [read, bash], tmp_path)
    await h.loop.run("go")
    pos = {e: i for i, e in enumerate(log)}
    assert pos[("start", "bash", "c")] > max(pos[("end", "read", "a")], pos[("end", "read", "b")])
    assert pos[("end", "bash", "c")] < min(pos[("start", "read", "d")], pos[("start", "read", "e")])
    assert [m["toolCallId"] for m in tool_msgs(h.transcript.messages())] == list("12345")


async def test_denied_call_gets_error_result_and_does_not_run(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    tools = [RecTool("write", log, needs_approval=True), RecTool("read", log)]
    provider = ScriptedProvider(
        calls(call("1", "write", path="x"), call("2", "read", path="y")), reply("ok")
    )
    approver = recording_approver(log, deny={"write": "the user said no"})
    h = make_loop(provider, tools, tmp_path, approver=approver)
    await h.loop.run("go")
    assert ("start", "write", "x") not in log
    results = tool_msgs(h.transcript.messages())
    assert results[0]["content"] == "denied: the user said no" and results[0]["isError"]
    assert results[1]["content"] == "ok y" and not results[1]["isError"]
    finish = h.sink.of(ToolCallFinishEvent)[0]
    assert finish.is_error and finish.output.startswith("denied")


async def test_raising_unknown_and_invalid_calls_become_error_results(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []

    async def boom(args: dict[str, Any]) -> ToolResult:
        raise RuntimeError("disk on fire")

    tools = [RecTool("bad", log, behaviour=boom), RecTool("read", log)]
    provider = ScriptedProvider(
        calls(
            call("1", "bad", path="p"),
            call("2", "nope"),
            call("3", "read", n="not a number"),
            call("4", "read", path="ok"),
        ),
        reply("recovered"),
    )
    h = make_loop(provider, tools, tmp_path)
    out = await h.loop.run("go")
    assert out.content == "recovered"
    results = tool_msgs(h.transcript.messages())
    assert "disk on fire" in results[0]["content"] and results[0]["isError"]
    assert results[1]["content"] == "unknown tool: nope" and results[1]["isError"]
    assert "invalid arguments" in results[2]["content"] and results[2]["isError"]
    assert results[3]["content"] == "ok ok" and not results[3]["isError"]
    assert ("start", "read", "") not in log


async def test_steering_is_taken_at_the_next_model_boundary(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    started = asyncio.Event()
    release = asyncio.Event()

    async def wait(args: dict[str, Any]) -> ToolResult:
        started.set()
        await asyncio.wait_for(release.wait(), WAIT)
        return ToolResult("ok")

    provider = ScriptedProvider(calls(call("1", "bash", path="x")), reply("steered"))
    h = make_loop(provider, [RecTool("bash", log, behaviour=wait)], tmp_path)
    h.steering.push("early")  # queued before the run: not taken before the first request
    task = asyncio.create_task(h.loop.run("go"))
    await asyncio.wait_for(started.wait(), WAIT)
    h.steering.push("use tabs")
    release.set()
    await task
    first, second = provider.requests
    assert all(m["content"] != "early" for m in first.messages if m["role"] == "user")
    user_texts = [m["content"] for m in second.messages if m["role"] == "user"]
    assert user_texts == ["go", "early", "use tabs"]
    assert second.messages[-1] == {"role": "user", "content": "use tabs"}
    assert [e.text for e in h.sink.of(UserMessageEvent)] == ["early", "use tabs"]


async def test_follow_up_waits_for_the_answer_and_continues_the_run(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    provider = ScriptedProvider(calls(call("1", "read", path="x")), reply("first"), reply("second"))
    h = make_loop(provider, [RecTool("read", log)], tmp_path)
    h.steering.push("and also this", follow_up=True)
    out = await h.loop.run("go")
    assert out.content == "second" and out.requests == 3
    # Not taken at the tool boundary, only after the final answer.
    assert all(m["content"] != "and also this" for m in provider.requests[1].messages)
    assert provider.requests[2].messages[-1] == {"role": "user", "content": "and also this"}
    pairs = [(m["role"], m["content"]) for m in h.transcript.messages() if m["role"] != "tool"]
    assert pairs == [
        ("user", "go"),
        ("assistant", ""),
        ("assistant", "first"),
        ("user", "and also this"),
        ("assistant", "second"),
    ]
    assert [e.text for e in h.sink.of(UserMessageEvent)] == ["and also this"]


async def test_turn_limit_stops_the_run(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    provider = ScriptedProvider(
        calls(call("1", "read", path="a")), calls(call("2", "read", path="b"))
    )
    h = make_loop(
        provider,
        [RecTool("read", log)],
        tmp_path,
        options=AgentOptions(max_turns=2, system_prompt="S"),
    )
    with pytest.raises(AgentError) as err:
        await h.loop.run("loop forever")
    assert err.value.code == "turn_limit" and err.value.message.startswith("turn limit reached")
    assert len(provider.requests) == 2
    # Both batches ran and were recorded, so the history stays valid for the next run.
    assert [m["toolCallId"] for m in tool_msgs(h.transcript.messages())] == ["1", "2"]


async def test_provider_error_keeps_partial_text_and_raises_typed_error(tmp_path: Path) -> None:
    # The error carries no partial text here: the loop keeps what it streamed itself.
    step: Step = [TextDelta("half an ans"), provider_error()]
    h = make_loop(ScriptedProvider(step), [], tmp_path)
    with pytest.raises(AgentError) as err:
        await h.loop.run("go")
    assert (err.value.code, err.value.retryable) == ("rate_limited", True)
    last = h.transcript.messages()[-1]
    assert last["role"] == "assistant" and last["content"] == "half an ans"
    assert last["stopReason"] == "error" and last["error"] == "rate limited by the model service"


async def test_stream_without_completion_is_an_incomplete_stream_error(tmp_path: Path) -> None:
    h = make_loop(ScriptedProvider([TextDelta("cut")]), [], tmp_path)
    with pytest.raises(AgentError) as err:
        await h.loop.run("go")
    assert err.value.code == "incomplete_stream"
    assert h.transcript.messages()[-1]["content"] == "cut"


async def test_cancel_during_stream_keeps_partial_text(tmp_path: Path) -> None:
    hang = Hang()
    h = make_loop(ScriptedProvider([TextDelta("partial "), TextDelta("text"), hang]), [], tmp_path)
    task = asyncio.create_task(h.loop.run("go"))
    await asyncio.wait_for(hang.reached.wait(), WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    last = h.transcript.messages()[-1]
    assert (last["role"], last["content"], last["stopReason"]) == (
        "assistant",
        "partial text",
        "canceled",
    )


async def test_cancel_kills_a_hanging_tool_and_records_canceled_results(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    started = asyncio.Event()
    seen_cancel = asyncio.Event()

    async def hang(args: dict[str, Any]) -> ToolResult:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen_cancel.set()
            raise
        return ToolResult("never")

    tools = [RecTool("bash", log, behaviour=hang), RecTool("write", log)]
    provider = ScriptedProvider(
        calls(call("1", "bash", path="sleep"), call("2", "write", path="f"), text="working")
    )
    h = make_loop(provider, tools, tmp_path)
    task = asyncio.create_task(h.loop.run("go"))
    await asyncio.wait_for(started.wait(), WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen_cancel.is_set()
    assert ("start", "write", "f") not in log
    msgs = h.transcript.messages()
    assert msgs[1]["content"] == "working" and msgs[1]["stopReason"] == "tool_use"
    results = tool_msgs(msgs)
    assert [(m["toolCallId"], m["content"], m["isError"]) for m in results] == [
        ("1", "canceled", True),
        ("2", "canceled", True),
    ]
    finish = h.sink.of(ToolCallFinishEvent)
    assert [(f.tool_call_id, f.output) for f in finish] == [("1", "canceled")]


async def test_resume_repairs_a_dangling_tool_call_before_the_next_request(tmp_path: Path) -> None:
    transcript = InMemoryTranscript()
    await transcript.append_message({"role": "user", "content": "edit", "timestamp": 1})
    await transcript.append_message(
        {
            "role": "assistant",
            "content": "",
            "toolCalls": [
                {"id": "a", "name": "edit", "arguments": {"path": "x"}},
                {"id": "b", "name": "edit", "arguments": {"path": "y"}},
            ],
            "stopReason": "tool_use",
            "timestamp": 2,
        }
    )
    await transcript.append_message(
        {"role": "tool", "content": "ok", "toolCallId": "a", "toolName": "edit", "timestamp": 3}
    )
    provider = ScriptedProvider(reply("resumed"))
    h = make_loop(provider, [], tmp_path, transcript=transcript)
    await h.loop.run("continue")
    msgs = transcript.messages()
    assert msgs[3]["toolCallId"] == "b" and msgs[3]["isError"]
    assert msgs[3]["content"] == "interrupted, result unavailable"
    assert msgs[4] == {**msgs[4], "role": "user", "content": "continue"}
    sent = provider.requests[0].messages
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool", "user"]
    assert sent[4] == {
        "role": "tool",
        "tool_call_id": "b",
        "content": "interrupted, result unavailable",
    }


async def test_writers_hold_path_locks(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []
    held: list[bool] = []
    h_ref: list[Any] = []

    async def write(args: dict[str, Any]) -> ToolResult:
        locks = h_ref[0].locks
        held.append(len(locks) == 1)
        return ToolResult("written")

    provider = ScriptedProvider(calls(call("1", "write", path="f.txt")), reply("ok"))
    h = make_loop(provider, [RecTool("write", log, behaviour=write, writes=True)], tmp_path)
    h_ref.append(h)
    await h.loop.run("go")
    assert held == [True]
    assert len(h.locks) == 0


async def test_sink_failure_does_not_break_the_run(tmp_path: Path) -> None:
    def broken(ev: object) -> None:
        raise ValueError("sink bug")

    log: list[tuple[str, ...]] = []
    provider = ScriptedProvider(calls(call("1", "read", path="a")), reply("fine"))
    loop = AgentLoop(
        provider,
        "m",
        [RecTool("read", log)],
        ToolContext(workspace=tmp_path, log_dir=tmp_path),
        InMemoryTranscript(),
        broken,
        allow_all,
        SteeringQueue(),
        PathLocks(),
        AgentOptions(system_prompt="S"),
    )
    out = await loop.run("go")
    assert out.content == "fine" and ("end", "read", "a") in log


async def test_failing_approver_denies_and_long_output_is_cut_for_display(tmp_path: Path) -> None:
    log: list[tuple[str, ...]] = []

    async def approver(*args: Any) -> Any:
        raise RuntimeError("approval service down")

    async def big(args: dict[str, Any]) -> ToolResult:
        return ToolResult("x" * 20_000, details={"lines": 1})

    tools = [RecTool("write", log, needs_approval=True), RecTool("read", log, behaviour=big)]
    provider = ScriptedProvider(
        calls(call("1", "write", path="f"), call("2", "read", path="g")), reply("ok")
    )
    h = make_loop(provider, tools, tmp_path, approver=approver)
    await h.loop.run("go")
    results = tool_msgs(h.transcript.messages())
    assert results[0]["isError"] and results[0]["content"].startswith("denied")
    assert ("start", "write", "f") not in log
    assert len(results[1]["content"]) == 20_000
    finish = h.sink.of(ToolCallFinishEvent)[1]
    assert len(finish.output) < 8 * 1024 + 100 and finish.details == {"lines": 1}


async def test_usage_reports_context_window_and_estimates_without_usage(tmp_path: Path) -> None:
    provider = ScriptedProvider([Completed("no usage", [], "end_turn", None)])
    opts = AgentOptions(system_prompt="S", context_window=32_000)
    h = make_loop(provider, [], tmp_path, options=opts)
    await h.loop.run("hello")
    ev = h.sink.of(UsageEvent)[0]
    assert ev.context_window == 32_000 and ev.prompt_tokens == 0 and ev.context_tokens > 0
    assert h.transcript.usages()[0]["contextWindow"] == 32_000


async def test_a_result_is_persisted_before_its_finish_event_even_mid_group(
    tmp_path: Path,
) -> None:
    log: list[tuple[str, ...]] = []
    release = asyncio.Event()
    persisted_at_finish: dict[str, bool] = {}

    async def slow_or_fast(args: dict[str, Any]) -> ToolResult:
        if args["path"] == "slow":
            await asyncio.wait_for(release.wait(), WAIT)
        return ToolResult(f"done {args['path']}")

    tool = RecTool("grep", log, parallel_safe=True, behaviour=slow_or_fast)
    batch = [call("c_slow", "grep", path="slow"), call("c_fast", "grep", path="fast")]
    h = make_loop(ScriptedProvider(calls(*batch), reply("ok")), [tool], tmp_path)
    inner = h.loop._executor._sink

    def sink(ev: Any) -> None:
        if isinstance(ev, ToolCallFinishEvent):
            ids = {m["toolCallId"] for m in tool_msgs(h.transcript.messages())}
            persisted_at_finish[ev.tool_call_id] = ev.tool_call_id in ids
        inner(ev)

    h.loop._executor._sink = sink
    task = asyncio.create_task(h.loop.run("search"))
    await h.sink.wait_for(lambda e: isinstance(e, ToolCallFinishEvent))
    # the fast result is on record while its group is still running
    assert [m["toolCallId"] for m in tool_msgs(h.transcript.messages())] == ["c_fast"]
    release.set()
    await asyncio.wait_for(task, WAIT)
    assert persisted_at_finish == {"c_fast": True, "c_slow": True}
    # the model still sees the results in call order
    sent = h.provider.requests[1].messages  # type: ignore[attr-defined]
    assert [m.get("tool_call_id") for m in sent if m["role"] == "tool"] == ["c_slow", "c_fast"]


async def test_begin_persists_the_prompt_before_the_model_is_asked(tmp_path: Path) -> None:
    h = make_loop(ScriptedProvider(reply("hi")), [], tmp_path)
    await h.loop.begin("remember me")
    assert [m["content"] for m in h.transcript.messages()] == ["remember me"]
    assert h.provider.requests == []  # type: ignore[attr-defined]
    outcome = await h.loop.run_from_begun()
    assert outcome.content == "hi"
    assert [m["role"] for m in h.transcript.messages()] == ["user", "assistant"]


class _TextSink:
    """A sink with the delta fast path (as the daemon's run sink has); it fails once."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.events: list[object] = []

    def __call__(self, ev: object) -> None:
        self.events.append(ev)

    def delta(self, kind: str, text: str) -> None:
        assert kind == "text_delta"
        if text == "bo":
            raise ValueError("sink bug")
        self.texts.append(text)


async def test_text_deltas_go_to_a_sinks_delta_and_its_failures_are_contained(
    tmp_path: Path,
) -> None:
    sink = _TextSink()
    provider = ScriptedProvider(reply("hi"), reply("boom"))
    loop = AgentLoop(
        provider,
        "m",
        [],
        ToolContext(workspace=tmp_path, log_dir=tmp_path),
        InMemoryTranscript(),
        sink,
        allow_all,
        SteeringQueue(),
        PathLocks(),
        AgentOptions(system_prompt="S"),
    )
    assert (await loop.run("go")).content == "hi"
    assert (await loop.run("again")).content == "boom"  # "bo" failed in the sink: run goes on
    assert sink.texts == ["h", "i", "om"]
    assert not any(isinstance(ev, TextDeltaEvent) for ev in sink.events)
