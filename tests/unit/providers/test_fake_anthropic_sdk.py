"""The official `anthropic` SDK reads the fake's answers: the fake cannot drift from the API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.anthropic_script import sign
from tests.fakes.fake_anthropic import FakeAnthropic

anthropic = pytest.importorskip("anthropic")

TOOLS = [{"name": "read", "input_schema": {"type": "object"}}]
SYSTEM = [{"type": "text", "text": "rules\n" * 1000, "cache_control": {"type": "ephemeral"}}]


@pytest.fixture
def sdk() -> Iterator[Any]:
    """sdk(script) -> (FakeAnthropic, an SDK client for it, without retries)."""
    started: list[FakeAnthropic] = []

    def make(script: list[dict[str, Any]]) -> tuple[FakeAnthropic, Any]:
        fa = FakeAnthropic(script).start()
        started.append(fa)
        root = fa.base_url.removesuffix("/v1")
        return fa, anthropic.Anthropic(base_url=root, api_key="sk-test", max_retries=0)

    yield make
    for fa in started:
        fa.stop()


def test_the_sdk_assembles_a_streamed_message_with_thinking_text_and_tool_calls(sdk: Any) -> None:
    calls = [
        {"name": "read", "arguments": {"path": "a.py"}},
        {"name": "read", "arguments": {"path": "b.py", "limit": 5}},
    ]
    fa, client = sdk(
        [{"thinking": "two files", "text": "Reading.", "chunkSize": 2, "toolCalls": calls}]
    )
    with client.messages.stream(
        model="claude-fake",
        max_tokens=4096,
        system=SYSTEM,
        tools=TOOLS,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=[{"role": "user", "content": "read both"}],
    ) as stream:
        texts = [e.text for e in stream if e.type == "text"]
        message = stream.get_final_message()
    assert "".join(texts) == "Reading." and len(texts) == 4
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use", "tool_use"]
    assert message.content[0].thinking == "two files"
    assert message.content[0].signature == sign("two files")
    assert [b.input for b in message.content[2:]] == [c["arguments"] for c in calls]
    assert message.stop_reason == "tool_use" and message.role == "assistant"
    usage = message.usage
    assert usage.cache_creation_input_tokens > 1024 and usage.cache_read_input_tokens == 0
    assert usage.output_tokens > 1 and fa.rejections == []
    assert 0 < usage.output_tokens_details.thinking_tokens <= usage.output_tokens


def test_the_sdk_sees_the_cache_read_on_the_next_request(sdk: Any) -> None:
    _, client = sdk([{"text": "one"}, {"text": "two"}])
    ask = {"model": "claude-fake", "max_tokens": 100, "system": SYSTEM}
    first = client.messages.create(**ask, messages=[{"role": "user", "content": "a"}])
    second = client.messages.create(**ask, messages=[{"role": "user", "content": "b"}])
    assert first.content[0].text == "one" and second.content[0].text == "two"
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens > 0


@pytest.mark.parametrize(
    ("status", "error"),
    [(429, "RateLimitError"), (529, "OverloadedError"), (401, "AuthenticationError")],
)
def test_the_sdk_maps_the_fakes_error_answers(sdk: Any, status: int, error: str) -> None:
    _, client = sdk([{"status": status, "headers": {"retry-after": "1"}}])
    with pytest.raises(getattr(anthropic, error)) as caught:
        client.messages.create(
            model="claude-fake", max_tokens=10, messages=[{"role": "user", "content": "x"}]
        )
    assert caught.value.status_code == status
    assert caught.value.response.headers["retry-after"] == "1"


def test_the_sdk_raises_on_the_error_event_mid_stream(sdk: Any) -> None:
    _, client = sdk([{"text": "partial answer", "chunkSize": 3, "errorBody": "Overloaded"}])
    seen: list[str] = []
    with pytest.raises(anthropic.APIStatusError) as caught:
        with client.messages.stream(
            model="claude-fake", max_tokens=10, messages=[{"role": "user", "content": "x"}]
        ) as stream:
            seen.extend(e.text for e in stream if e.type == "text")
    assert "overloaded_error" in str(caught.value) and "".join(seen)


def test_the_fake_refuses_what_the_api_refuses(sdk: Any) -> None:
    fa, client = sdk([])
    with pytest.raises(anthropic.BadRequestError, match="without `tool_result`"):
        client.messages.create(
            model="claude-fake",
            max_tokens=10,
            messages=[
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": {}}],
                },
                {"role": "user", "content": "never answered the call"},
            ],
        )
    assert len(fa.rejections) == 1
