"""The loop against the real OpenAI-compatible provider and the scripted fake model server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ggd.agent import AgentError, ToolCallFinishEvent, UsageEvent
from ggd.providers import OpenAICompatProvider, ProviderOptions
from tests.fakes.fake_openai import FakeModel

from .helpers import RecTool, make_loop


async def test_tool_round_trip_through_the_fake_model(tmp_path: Path) -> None:
    script: list[dict[str, Any]] = [
        {
            "text": "Let me look.",
            "toolCalls": [{"id": "call_a", "name": "read", "arguments": {"path": "a.txt"}}],
            "usage": {"prompt": 120, "completion": 9},
        },
        {"text": "The file says ok.", "expect": {"lastTool": "ok a.txt"}, "usage": True},
    ]
    with FakeModel(script, zero_latency=True) as fm:
        provider = OpenAICompatProvider(fm.base_url, "test-key", name="fake")
        try:
            h = make_loop(provider, [RecTool("read", [], parallel_safe=True)], tmp_path)
            out = await h.loop.run("what is in a.txt?")
        finally:
            await provider.aclose()
        bodies = fm.wait_for_requests(2)
        assert fm.mismatches == []
    assert out.content == "The file says ok."
    assert out.requests == 2
    finish = h.sink.of(ToolCallFinishEvent)
    assert [(f.tool_call_id, f.output) for f in finish] == [("call_a", "ok a.txt")]
    assert h.sink.of(UsageEvent)[0].prompt_tokens == 120
    second = bodies[1]["messages"]
    assert second[2]["tool_calls"][0]["function"]["name"] == "read"
    assert second[3] == {"role": "tool", "tool_call_id": "call_a", "content": "ok a.txt"}
    assert bodies[0]["tools"][0]["function"]["name"] == "read"


async def test_http_error_becomes_agent_error_with_partial_state(tmp_path: Path) -> None:
    with FakeModel([{"status": 500}], zero_latency=True) as fm:
        provider = OpenAICompatProvider(
            fm.base_url, "test-key", name="fake", options=ProviderOptions(max_retries=0)
        )
        try:
            h = make_loop(provider, [], tmp_path)
            with pytest.raises(AgentError) as err:
                await h.loop.run("hello")
        finally:
            await provider.aclose()
    assert err.value.code
    last = h.transcript.messages()[-1]
    assert last["role"] == "assistant" and last["stopReason"] == "error"
