"""Compaction: where to cut, the summary request, and the loop's automatic compaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggd.agent import (
    AgentError,
    AgentOptions,
    CompactionEvent,
    CompactionSettings,
    InMemoryTranscript,
    plan_cut,
)
from ggd.providers.prices import Price
from ggd.providers.types import Usage

from .helpers import ScriptedProvider, make_loop, provider_error, reply


def turn(n: int, groups: list[int], size: int = 40) -> list[dict[str, Any]]:
    """A user message, then assistant tool-call groups with their results, then an answer."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": f"u{n} " + "x" * size}]
    for g, count in enumerate(groups):
        ids = [f"t{n}.{g}.{k}" for k in range(count)]
        msgs.append(
            {
                "role": "assistant",
                "content": "",
                "toolCalls": [
                    {"id": i, "name": "read", "arguments": {"p": "y" * size}} for i in ids
                ],
            }
        )
        msgs += [{"role": "tool", "content": "r" * size, "toolCallId": i} for i in ids]
    msgs.append({"role": "assistant", "content": f"a{n} " + "z" * size})
    return msgs


conversations = st.lists(
    st.lists(st.integers(min_value=1, max_value=4), max_size=4), min_size=1, max_size=8
).map(lambda turns: [m for n, groups in enumerate(turns) for m in turn(n, groups)])


@settings(max_examples=200, deadline=None)
@given(
    conversations,
    st.integers(min_value=1, max_value=8),
    st.integers(min_value=50, max_value=3000),
)
def test_cut_never_separates_a_tool_call_from_its_results(
    msgs: list[dict[str, Any]], keep: int, budget: int
) -> None:
    cut = plan_cut(msgs, CompactionSettings(prompt_budget=budget, keep_tail_turns=keep))
    if cut is None:
        return
    assert 0 < cut < len(msgs)
    kept, dropped = msgs[cut:], msgs[:cut]
    assert kept[0]["role"] != "tool"
    kept_calls = {c["id"] for m in kept for c in m.get("toolCalls", [])}
    dropped_calls = {c["id"] for m in dropped for c in m.get("toolCalls", [])}
    assert {m["toolCallId"] for m in kept if m["role"] == "tool"} == kept_calls
    assert {m["toolCallId"] for m in dropped if m["role"] == "tool"} == dropped_calls


def test_cut_keeps_the_last_turns_when_they_fit() -> None:
    msgs = [m for n in range(5) for m in turn(n, [1])]
    starts = [i for i, m in enumerate(msgs) if m["role"] == "user"]
    cut = plan_cut(msgs, CompactionSettings(prompt_budget=100_000, keep_tail_turns=2))
    assert cut == starts[-2]
    assert plan_cut(msgs[:1], CompactionSettings()) is None


async def seeded(turns: int) -> InMemoryTranscript:
    t = InMemoryTranscript()
    for n in range(turns):
        for m in turn(n, [2], size=400):
            await t.append_message(m)
    return t


async def test_loop_compacts_before_a_request_over_budget(tmp_path: Path) -> None:
    transcript = await seeded(4)
    provider = ScriptedProvider(reply("SUMMARY OF OLD WORK"), reply("answer"))
    opts = AgentOptions(
        system_prompt="SYS",
        compaction=CompactionSettings(prompt_budget=1500, keep_tail_turns=1),
    )
    h = make_loop(provider, [], tmp_path, transcript=transcript, options=opts)
    out = await h.loop.run("new question")
    assert out.content == "answer"
    summary_req, main_req = provider.requests
    assert summary_req.tools == [] and "u0" in summary_req.messages[1]["content"]
    assert summary_req.max_tokens == 1200
    events = h.sink.of(CompactionEvent)
    assert [e.summary for e in events] == ["SUMMARY OF OLD WORK"]
    ctx = transcript.context()
    assert ctx.summary == "SUMMARY OF OLD WORK"
    assert ctx.messages[0][0] == events[0].first_kept_id
    assert ctx.messages[0][1]["role"] != "tool"
    assert "SUMMARY OF OLD WORK" in main_req.messages[0]["content"]
    sent = " ".join(str(m.get("content")) for m in main_req.messages)
    assert "u0 " not in sent and "new question" in sent
    # Every tool result sent still follows its call.
    ids_called = {c["id"] for m in main_req.messages for c in m.get("tool_calls", [])}
    assert {m["tool_call_id"] for m in main_req.messages if m["role"] == "tool"} <= ids_called


async def test_no_compaction_under_budget(tmp_path: Path) -> None:
    transcript = await seeded(2)
    provider = ScriptedProvider(reply("answer"))
    h = make_loop(provider, [], tmp_path, transcript=transcript)
    await h.loop.run("q")
    assert h.sink.of(CompactionEvent) == [] and len(provider.requests) == 1


async def test_compact_on_demand_and_nothing_to_compact(tmp_path: Path) -> None:
    empty = make_loop(ScriptedProvider(), [], tmp_path)
    assert await empty.loop.compact() is None
    transcript = await seeded(3)
    provider = ScriptedProvider(reply("S1"), reply("S2"))
    h = make_loop(provider, [], tmp_path, transcript=transcript)
    assert await h.loop.compact("focus on tests") == "S1"
    assert "focus on tests" in provider.requests[0].messages[0]["content"]
    # A second compaction folds the earlier summary into the new one.
    assert await h.loop.compact() == "S2"
    assert "S1" in provider.requests[1].messages[1]["content"]
    assert transcript.context().summary == "S2"


async def test_failed_summary_raises_agent_error(tmp_path: Path) -> None:
    transcript = await seeded(3)
    h = make_loop(ScriptedProvider([provider_error()]), [], tmp_path, transcript=transcript)
    with pytest.raises(AgentError) as err:
        await h.loop.compact()
    assert err.value.code == "rate_limited"
    assert transcript.context().summary is None


def test_budget_leaves_room_for_the_answer_in_small_windows() -> None:
    s = CompactionSettings()
    assert s.budget(None) == 24000
    assert s.budget(128_000) == 24000
    assert s.budget(16_000) == 12_000


def test_the_summariser_is_told_about_images_it_cannot_see() -> None:
    from ggd.agent.compaction import render_for_summary

    msg = {"role": "user", "content": "why red?", "images": [{"id": "img_a"}, {"id": "img_b"}]}
    text = render_for_summary(None, [msg])
    assert "[user]\nwhy red?\n" in text
    assert "[user attached 2 image(s), not shown here]" in text


async def test_a_summary_request_is_counted_and_priced_like_any_request(tmp_path: Path) -> None:
    transcript = await seeded(4)
    provider = ScriptedProvider(
        reply("SUMMARY", Usage(prompt_tokens=1000, completion_tokens=100, total_tokens=1100)),
        reply("answer", Usage(prompt_tokens=500, completion_tokens=50, total_tokens=550)),
    )
    opts = AgentOptions(
        system_prompt="SYS",
        compaction=CompactionSettings(prompt_budget=1500, keep_tail_turns=1),
        price=Price(input=2, output=8),
    )
    h = make_loop(provider, [], tmp_path, transcript=transcript, options=opts)
    out = await h.loop.run("new question")
    assert out.content == "answer"
    summary, answer = transcript.usages()
    assert summary["purpose"] == "compaction" and summary["promptTokens"] == 1000
    assert summary["costUsd"] == pytest.approx((1000 * 2 + 100 * 8) / 1e6)
    assert "purpose" not in answer
    # The run's totals (what its budgets count) include the summary's tokens and cost.
    assert out.spend.requests == 2 and out.spend.total_tokens == 1650
    assert out.spend.cost_usd == pytest.approx((1500 * 2 + 150 * 8) / 1e6)
