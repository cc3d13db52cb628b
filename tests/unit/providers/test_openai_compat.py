"""OpenAICompatProvider against the scripted fake server over real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import pytest

from ggd.providers import (
    ChatRequest,
    Completed,
    OpenAICompatProvider,
    ProviderOptions,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    Usage,
)
from tests.unit.providers.helpers import collect, failure, request

SCRIPTS = Path(__file__).resolve().parents[2] / "data" / "scripts"
TOOLS = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]


async def test_text_streams_in_fragments_and_tool_calls_are_assembled(
    fake: Any, provider_for: Any
) -> None:
    fm = fake(
        [
            {
                "text": "Reading the file now.",
                "chunkSize": 4,
                "toolCalls": [
                    {
                        "id": "call_a",
                        "name": "read",
                        "arguments": {"path": "src/main.py", "limit": 20},
                    },
                    {"id": "call_b", "name": "grep", "arguments": {"pattern": "TODO"}},
                ],
            }
        ]
    )
    events = await collect(provider_for(fm), request(tools=TOOLS))
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert deltas == ["Read", "ing ", "the ", "file", " now", "."]
    done = events[-1]
    assert isinstance(done, Completed)
    assert done.text == "Reading the file now."
    assert done.stop_reason == "tool_use"
    assert done.tool_calls == [
        ToolCall("call_a", "read", {"path": "src/main.py", "limit": 20}),
        ToolCall("call_b", "grep", {"pattern": "TODO"}),
    ]


async def test_request_body_carries_model_tools_stream_options_and_key(
    fake: Any, provider_for: Any
) -> None:
    fm = fake([{"text": "ok"}])
    await collect(
        provider_for(fm, api_key="sk-secret"), request(tools=TOOLS, max_tokens=99, model="m1")
    )
    body = fm.requests[0]
    assert body["model"] == "m1" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["tools"] == TOOLS and body["max_tokens"] == 99
    assert fm.request_headers[0]["authorization"] == "Bearer sk-secret"


async def test_usage_chunk_becomes_usage_event_and_completed_usage(
    fake: Any, provider_for: Any
) -> None:
    fm = fake([{"text": "hi", "usage": {"prompt": 11, "completion": 3}}])
    events = await collect(provider_for(fm), request())
    assert Usage(11, 3, 14) in events
    done = events[-1]
    assert isinstance(done, Completed) and done.usage == Usage(11, 3, 14)
    assert done.stop_reason == "end_turn" and done.tool_calls == []


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_deltas_become_thinking(fake: Any, provider_for: Any, field: str) -> None:
    fm = fake([{"thinking": "let me think", "thinkingField": field, "chunkSize": 5, "text": "42"}])
    events = await collect(provider_for(fm), request())
    thinking = [e.text for e in events if isinstance(e, ThinkingDelta)]
    assert "".join(thinking) == "let me think" and len(thinking) == 3
    done = events[-1]
    assert isinstance(done, Completed) and done.thinking == "let me think" and done.text == "42"


async def test_429_with_retry_after_is_honoured_then_succeeds(
    fake: Any, provider_for: Any, sleeps: Any
) -> None:
    fm = fake([{"status": 429, "headers": {"Retry-After": "2"}}, {"text": "after the wait"}])
    events = await collect(provider_for(fm), request())
    assert isinstance(events[-1], Completed) and events[-1].text == "after the wait"
    assert sleeps.delays == [2.0]
    assert len(fm.requests) == 2


async def test_retry_after_is_capped(fake: Any, provider_for: Any, sleeps: Any) -> None:
    fm = fake([{"status": 429, "headers": {"Retry-After": "3600"}}, {"text": "ok"}])
    await collect(provider_for(fm), request())
    assert sleeps.delays == [5.0]  # options.retry_after_cap


async def test_500_then_success_uses_jittered_backoff(
    fake: Any, provider_for: Any, sleeps: Any
) -> None:
    fm = fake([{"status": 500}, {"status": 503}, {"text": "third time lucky"}])
    events = await collect(provider_for(fm), request())
    assert isinstance(events[-1], Completed) and events[-1].text == "third time lucky"
    assert len(sleeps.delays) == 2
    assert 0 <= sleeps.delays[0] <= 0.1 and 0 <= sleeps.delays[1] <= 0.2  # base * 2**attempt


async def test_500_three_times_fails_after_two_retries(
    fake: Any, provider_for: Any, sleeps: Any
) -> None:
    fm = fake([{"status": 500, "errorBody": {"error": {"message": "overloaded"}}, "repeat": 3}])
    err, seen = await failure(provider_for(fm), request())
    assert err.code == "server_error" and err.retryable and err.status == 500
    assert "overloaded" in err.message
    assert seen == [] and len(fm.requests) == 3 and len(sleeps.delays) == 2


async def test_auth_errors_are_not_retried_and_hide_server_text(
    fake: Any, provider_for: Any
) -> None:
    fm = fake([{"status": 401, "errorBody": {"error": {"message": "Incorrect API key sk-abc"}}}])
    err, _ = await failure(provider_for(fm), request())
    assert err.code == "auth" and not err.retryable and err.status == 401
    assert "sk-abc" not in err.message and len(fm.requests) == 1


async def test_other_4xx_is_bad_request(fake: Any, provider_for: Any) -> None:
    fm = fake([{"status": 404, "errorBody": {"error": {"message": "model not found"}}}])
    err, _ = await failure(provider_for(fm), request())
    assert err.code == "bad_request" and "model not found" in err.message and len(fm.requests) == 1


async def test_torn_stream_is_interrupted_with_partial_text(fake: Any, provider_for: Any) -> None:
    fm = fake([{"text": "abcdefghijkl", "chunkSize": 3, "torn": True}])
    err, seen = await failure(provider_for(fm), request())
    assert err.code == "stream_interrupted" and err.retryable
    streamed = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert streamed and err.partial_text == streamed and "abcdefghijkl".startswith(streamed)
    assert len(fm.requests) == 1  # no retry once streaming started


async def test_stream_without_finish_or_done_is_interrupted(
    provider_for: Any, options: Any
) -> None:
    # A server that closes cleanly after some text but never says it is finished.
    import httpx

    body = b'data: {"choices":[{"index":0,"delta":{"content":"half"}}]}\n\n'
    options.transport = httpx.MockTransport(
        lambda r: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    )
    provider = OpenAICompatProvider("http://x.invalid/v1", None, name="x", options=options)
    err, _ = await failure(provider, request())
    assert err.code == "stream_interrupted" and err.partial_text == "half"
    await provider.aclose()


@pytest.mark.parametrize(
    "call",
    [
        {"name": "read", "rawArguments": '{"path": "a.txt"'},  # truncated JSON
        {"name": "read", "rawArguments": '["a.txt"]'},  # JSON, but not an object
        {"name": "read", "rawArguments": '"a.txt"'},
        {"name": "", "arguments": {"path": "a.txt"}},  # empty name
        {"id": "", "name": "read", "arguments": {"path": "a.txt"}},  # empty id
    ],
)
async def test_bad_tool_calls_are_errors_never_calls(
    fake: Any, provider_for: Any, call: dict[str, Any]
) -> None:
    fm = fake([{"text": "calling", "toolCalls": [call]}])
    err, _ = await failure(provider_for(fm), request())
    assert err.code == "bad_tool_call" and err.partial_text == "calling"


async def test_empty_arguments_mean_an_empty_object(fake: Any, provider_for: Any) -> None:
    fm = fake([{"toolCalls": [{"id": "c1", "name": "list", "rawArguments": ""}]}])
    events = await collect(provider_for(fm), request())
    assert isinstance(events[-1], Completed)
    assert events[-1].tool_calls == [ToolCall("c1", "list", {})]


async def test_length_stop_is_an_error_keeping_the_text(fake: Any, provider_for: Any) -> None:
    fm = fake([{"text": "a long answer that was cu", "finishReason": "length"}])
    err, _ = await failure(provider_for(fm), request())
    assert err.code == "length" and err.partial_text == "a long answer that was cu"


async def test_stream_options_fallback_is_remembered(fake: Any, provider_for: Any) -> None:
    fm = fake(
        [
            {
                "status": 400,
                "errorBody": {
                    "error": {"message": "Unrecognized request argument: stream_options"}
                },
            },
            {"text": "one"},
            {"text": "two"},
        ]
    )
    provider = provider_for(fm)
    assert isinstance((await collect(provider, request()))[-1], Completed)
    assert isinstance((await collect(provider, request()))[-1], Completed)
    assert "stream_options" in fm.requests[0]
    assert "stream_options" not in fm.requests[1] and "stream_options" not in fm.requests[2]


async def test_max_tokens_fallback_switches_the_field_name(fake: Any, provider_for: Any) -> None:
    msg = "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead."
    fm = fake(
        [{"status": 400, "errorBody": {"error": {"message": msg}}}, {"text": "ok"}, {"text": "ok"}]
    )
    provider = provider_for(fm)
    await collect(provider, request(max_tokens=50))
    await collect(provider, request(max_tokens=60))
    assert fm.requests[0]["max_tokens"] == 50
    assert fm.requests[1]["max_completion_tokens"] == 50 and "max_tokens" not in fm.requests[1]
    assert fm.requests[2]["max_completion_tokens"] == 60


async def test_a_400_that_persists_is_not_retried_forever(fake: Any, provider_for: Any) -> None:
    bad = {"status": 400, "errorBody": {"error": {"message": "stream_options is not supported"}}}
    fm = fake([bad, bad, bad])
    err, _ = await failure(provider_for(fm), request())
    assert err.code == "bad_request" and len(fm.requests) == 2


async def test_connection_refused_is_network_error_after_retries(
    options: ProviderOptions, sleeps: Any
) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    provider = OpenAICompatProvider(
        f"http://127.0.0.1:{port}/v1", None, name="local", options=options
    )
    err, _ = await failure(provider, request())
    assert err.code == "network" and err.retryable and len(sleeps.delays) == 2
    assert f"http://127.0.0.1:{port}/v1/chat/completions" in err.message
    await provider.aclose()


async def test_non_streaming_json_answer_is_accepted(provider_for: Any, options: Any) -> None:
    import httpx

    completion = {
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": "sure",
                    "tool_calls": [
                        {
                            "id": "c9",
                            "type": "function",
                            "function": {"name": "read", "arguments": '{"path":"x"}'},
                        }
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
    }
    options.transport = httpx.MockTransport(lambda r: httpx.Response(200, json=completion))
    provider = OpenAICompatProvider("http://x.invalid/v1", None, name="x", options=options)
    events = await collect(provider, request())
    done = events[-1]
    assert isinstance(done, Completed) and done.text == "sure" and done.usage == Usage(1, 2, 3)
    assert done.tool_calls == [ToolCall("c9", "read", {"path": "x"})]
    await provider.aclose()


async def test_mid_stream_error_object_is_server_error(options: ProviderOptions) -> None:
    import httpx

    body = (
        b'data: {"choices":[{"index":0,"delta":{"content":"par"}}]}\n\n'
        b'data: {"error":{"message":"upstream overloaded"}}\n\n'
    )
    options.transport = httpx.MockTransport(
        lambda r: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    )
    provider = OpenAICompatProvider("http://x.invalid/v1", None, name="x", options=options)
    err, _ = await failure(provider, request())
    assert err.code == "server_error" and err.partial_text == "par" and "overloaded" in err.message
    await provider.aclose()


async def test_cancelling_a_hanging_stream_releases_the_server(
    fake: Any, provider_for: Any
) -> None:
    fm = fake([{"text": "thinking forever", "hang": True}, {"text": "next"}])
    provider = provider_for(fm)
    got_text = asyncio.Event()

    async def consume() -> None:
        async for ev in provider.stream(request()):
            if isinstance(ev, TextDelta):
                got_text.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_text.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The same provider (and server) still work afterwards.
    events = await asyncio.wait_for(collect(provider, request()), 5)
    assert isinstance(events[-1], Completed) and events[-1].text == "next"


async def test_read_timeout_mid_stream_is_interrupted(fake: Any, options: ProviderOptions) -> None:
    fm = fake([{"text": "slow", "hang": True}])
    options.read_timeout = 0.3
    provider = OpenAICompatProvider(fm.base_url, None, name="fake", options=options)
    err, _ = await failure(provider, ChatRequest(model="m", messages=[]))
    assert err.code == "stream_interrupted" and err.partial_text == "slow"
    await provider.aclose()


async def test_example_failure_script_gives_each_error_code(fake: Any, provider_for: Any) -> None:
    fm = fake(SCRIPTS / "failures.json")
    provider = provider_for(fm)
    codes = [(await failure(provider, request()))[0].code for _ in range(4)]
    assert codes == ["stream_interrupted", "length", "bad_tool_call", "auth"]


async def test_example_retry_script_recovers(fake: Any, provider_for: Any, sleeps: Any) -> None:
    fm = fake(SCRIPTS / "retry_then_success.json")
    events = await collect(provider_for(fm), request())
    assert isinstance(events[-1], Completed) and events[-1].text == "Recovered after two retries."
    assert sleeps.delays[0] == 0.0 and len(sleeps.delays) == 2
