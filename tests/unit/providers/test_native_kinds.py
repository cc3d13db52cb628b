"""The openai-responses and gemini kinds against their honest fakes: streaming, replay, errors."""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from ggd.providers import ChatRequest, Completed, ProviderOptions, TextDelta, ThinkingDelta, Usage
from ggd.providers.gemini import GeminiProvider
from ggd.providers.gemini_convert import SKIP_SIGNATURE
from ggd.providers.native import NativeProvider
from ggd.providers.openai_responses import ResponsesProvider
from tests.fakes.fake_gemini import FakeGemini
from tests.fakes.fake_openai import FakeModel
from tests.fakes.fake_responses import FakeResponses
from tests.fakes.prefix_cache import common_prefix
from tests.unit.providers.helpers import collect, failure, request

KINDS = {
    "openai-responses": (FakeResponses, ResponsesProvider),
    "gemini": (FakeGemini, GeminiProvider),
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read a file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
                "required": ["path"],
                "additionalProperties": False,
            },
        },
    }
]


@pytest.fixture(params=sorted(KINDS))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def fake_of(kind: str) -> Iterator[Any]:
    started: list[FakeModel] = []

    def make(script: Any, **kw: Any) -> FakeModel:
        fm = KINDS[kind][0](script, **kw).start()
        started.append(fm)
        return fm

    yield make
    for fm in started:
        fm.stop()


@pytest.fixture
async def provider_of(kind: str, options: ProviderOptions) -> AsyncIterator[Any]:
    made: list[NativeProvider] = []

    def make(fm: FakeModel) -> NativeProvider:
        p = KINDS[kind][1](fm.base_url, "sk-test", name="fake", options=options)
        made.append(p)
        return p

    yield make
    for p in made:
        await p.aclose()


def chat(system: str = "You are gg.") -> list[dict[str, Any]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": "fix the bug"}]


def follow_up(messages: list[dict[str, Any]], done: Completed, results: list[str]) -> None:
    """The loop's next messages: the answer (with its replay) and one result per call."""
    calls = [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
        }
        for c in done.tool_calls
    ]
    msg: dict[str, Any] = {"role": "assistant", "content": done.text or None, "tool_calls": calls}
    if done.replay:
        msg["gg_replay"] = done.replay
    messages.append(msg)
    for c, out in zip(done.tool_calls, results, strict=True):
        messages.append({"role": "tool", "tool_call_id": c.id, "content": out})


async def test_text_thinking_and_parallel_calls_then_replay(fake_of: Any, provider_of: Any) -> None:
    calls = [
        {"name": "read", "arguments": {"path": "src/app.py"}},
        {"name": "read", "arguments": {"path": "src/util.py", "offset": 3}},
    ]
    fm = fake_of(
        [
            {"thinking": "first look at both files", "toolCalls": calls, "chunkSize": 4},
            {"text": "fixed it", "expect": {"lastTool": "def greet"}},
        ]
    )
    provider = provider_of(fm)
    messages = chat()
    events = await collect(provider, ChatRequest("m1", list(messages), TOOLS))
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    assert thinking == "first look at both files"
    done = events[-1]
    assert isinstance(done, Completed) and done.stop_reason == "tool_use"
    assert [(c.name, c.arguments) for c in done.tool_calls] == [
        ("read", {"path": "src/app.py"}),
        ("read", {"path": "src/util.py", "offset": 3}),
    ]
    assert len({c.id for c in done.tool_calls}) == 2 and all(c.id for c in done.tool_calls)
    assert done.replay is not None and json.loads(json.dumps(done.replay)) == done.replay
    follow_up(messages, done, ["print(greet('x'))", "def greet(name): ..."])
    events = await collect(provider, ChatRequest("m1", messages, TOOLS))
    final = events[-1]
    assert isinstance(final, Completed) and final.text == "fixed it" and not fm.mismatches
    assert final.stop_reason == "end_turn"
    # The reasoning came back: the encrypted item / the signature this fake issued.
    body = fm.requests[1]
    if "input" in body:
        sent = [i["encrypted_content"] for i in body["input"] if i.get("type") == "reasoning"]
    else:
        model_turn = next(c for c in body["contents"] if c["role"] == "model")
        sent = [p["thoughtSignature"] for p in model_turn["parts"] if "thoughtSignature" in p]
        assert "thoughtSignature" in next(p for p in model_turn["parts"] if "functionCall" in p)
    assert len(sent) == 1 and sent[0] in fm.issued and sent[0] != SKIP_SIGNATURE


async def test_a_replay_that_was_not_issued_is_refused(fake_of: Any, provider_of: Any) -> None:
    fm = fake_of(
        [{"thinking": "x", "toolCalls": [{"name": "read", "arguments": {}}]}, {"text": "no"}]
    )
    provider = provider_of(fm)
    messages = chat()
    done = (await collect(provider, ChatRequest("m1", list(messages), TOOLS)))[-1]
    assert isinstance(done, Completed) and done.replay is not None
    kind = done.replay["kind"]
    forged = (
        {"kind": kind, "items": [{**done.replay["items"][0], "encrypted_content": "forged"}]}
        if kind == "openai-responses"
        else {"kind": kind, "parts": [{**done.replay["parts"][0], "thoughtSignature": "forged"}]}
    )
    done.replay = forged
    follow_up(messages, done, ["x"])
    err, _ = await failure(provider, ChatRequest("m1", messages, TOOLS))
    assert err.code == "bad_request" and err.status == 400


async def test_usage_reports_cache_and_reasoning(fake_of: Any, provider_of: Any) -> None:
    fm = fake_of([{"text": "a"}, {"thinking": "hmm " * 10, "text": "b"}])
    provider = provider_of(fm)
    messages = chat("rules " * 2000)  # past the 1024-token minimum of prefix caching
    first = [
        e
        for e in await collect(provider, ChatRequest("m1", list(messages)))
        if isinstance(e, Usage)
    ]
    assert first and first[-1].cache_read_tokens == 0 and first[-1].prompt_tokens > 1024
    messages += [{"role": "assistant", "content": "a"}, {"role": "user", "content": "more"}]
    usage = [
        e for e in await collect(provider, ChatRequest("m1", messages)) if isinstance(e, Usage)
    ][-1]
    assert usage.cache_read_tokens >= 0.9 * first[-1].prompt_tokens
    assert usage.reasoning_tokens == 10 and usage.completion_tokens >= 10
    assert usage.prompt_tokens > usage.cache_read_tokens


async def test_prefix_is_byte_stable_across_steps(fake_of: Any, provider_of: Any) -> None:
    steps = [
        {"toolCalls": [{"name": "read", "arguments": {"path": f"f{i}"}}], "thinking": "t"}
        for i in range(4)
    ]
    fm = fake_of([*steps, {"text": "done"}, {"text": "again"}])
    provider = provider_of(fm)
    messages = chat("system prompt " * 50)
    for _ in range(5):
        done = (await collect(provider, ChatRequest("m1", messages, TOOLS, session_id="s-1")))[-1]
        assert isinstance(done, Completed)
        if done.tool_calls:
            follow_up(messages, done, ["contents " * 20])
    raw = list(fm.raw_requests)
    await collect(provider, ChatRequest("m1", messages, TOOLS, session_id="s-1"))
    assert fm.raw_requests[-1] == raw[-1], "the same request must be the same bytes"
    for prev, cur in itertools.pairwise(raw):
        # All of the request before but its closing brackets: the body only grows at its end.
        assert common_prefix(prev, cur) >= len(prev) - 4


async def test_429_retry_after_is_honoured(fake_of: Any, provider_of: Any, sleeps: Any) -> None:
    fm = fake_of([{"status": 429, "headers": {"Retry-After": "2"}}, {"text": "ok"}])
    events = await collect(provider_of(fm), request())
    assert isinstance(events[-1], Completed) and events[-1].text == "ok"
    assert sleeps.delays == [2.0] and len(fm.requests) == 2


async def test_a_dropped_stream_keeps_the_partial_text(fake_of: Any, provider_of: Any) -> None:
    fm = fake_of([{"text": "partial answer that breaks", "chunkSize": 3, "torn": 6}])
    err, seen = await failure(provider_of(fm), request())
    assert err.code == "stream_interrupted" and err.retryable
    streamed = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert streamed and err.partial_text == streamed and streamed != "partial answer that breaks"


async def test_a_length_stop_is_an_error_keeping_text(fake_of: Any, provider_of: Any) -> None:
    fm = fake_of([{"text": "cut off here", "finishReason": "length"}])
    err, _ = await failure(provider_of(fm), request())
    assert err.code == "length" and err.partial_text == "cut off here"


async def test_broken_tool_arguments_are_bad_tool_call(fake_of: Any, provider_of: Any) -> None:
    fm = fake_of(
        [{"text": "calling", "toolCalls": [{"name": "read", "rawArguments": '{"path": '}]}]
    )
    err, _ = await failure(provider_of(fm), request())
    assert err.code == "bad_tool_call" and err.partial_text == "calling"


async def test_401_is_auth_without_retry(fake_of: Any, provider_of: Any, sleeps: Any) -> None:
    fm = fake_of([{"status": 401}])
    err, _ = await failure(provider_of(fm), request())
    assert err.code == "auth" and sleeps.delays == []


async def test_an_image_goes_as_the_apis_image_block(
    fake_of: Any, provider_of: Any, kind: str
) -> None:
    png = base64.b64encode(b"\x89PNG fake").decode()
    content = [
        {"type": "text", "text": "what is this"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}},
    ]
    fm = fake_of([{"text": "a cat"}])
    await collect(provider_of(fm), ChatRequest("m1", [{"role": "user", "content": content}]))
    body = fm.requests[0]
    if kind == "gemini":
        parts = body["contents"][0]["parts"]
        assert parts[1] == {"inlineData": {"mimeType": "image/png", "data": png}}
    else:
        parts = body["input"][0]["content"]
        assert parts[1]["type"] == "input_image"
        assert parts[1]["image_url"] == f"data:image/png;base64,{png}"


async def test_models_are_listed(fake_of: Any, provider_of: Any) -> None:
    fm = fake_of([], models=["m-one", "m-two"])
    assert await provider_of(fm).list_models() == ["m-one", "m-two"]
