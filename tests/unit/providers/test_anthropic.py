"""AnthropicProvider against the fake Messages API over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ggd.providers import ChatRequest, Completed, TextDelta, ThinkingDelta, ToolCall, Usage
from ggd.providers.anthropic import AnthropicProvider
from ggd.providers.openai_compat import ProviderOptions
from tests.fakes.fake_anthropic import FakeAnthropic
from tests.unit.providers.helpers import collect, failure

SCRIPTS = Path(__file__).resolve().parents[2] / "data" / "scripts"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    },
    {"type": "function", "function": {"name": "grep", "parameters": {"type": "object"}}},
]
# Long enough for the cache's minimum (1024 tokens), as gg's own system prompt is.
CONFIG_THINKING = {"type": "enabled", "budget_tokens": 1024}
SYSTEM = "You are a careful coding agent.\n" + "Rule: keep the prefix stable.\n" * 200


@pytest.fixture
def fake_anthropic() -> Iterator[Any]:
    """fake_anthropic(script) starts a FakeAnthropic stopped after the test."""
    started: list[FakeAnthropic] = []

    def make(script: Any, **kw: Any) -> FakeAnthropic:
        fa = FakeAnthropic(script, **kw).start()
        started.append(fa)
        return fa

    yield make
    for fa in started:
        fa.stop()


@pytest.fixture
async def claude(options: ProviderOptions) -> AsyncIterator[Any]:
    """claude(fake) -> an AnthropicProvider pointed at it."""
    made: list[AnthropicProvider] = []

    def make(fa: FakeAnthropic, key: str | None = "sk-ant-test") -> AnthropicProvider:
        p = AnthropicProvider(fa.base_url, key, name="claude", options=options)
        made.append(p)
        return p

    yield make
    for p in made:
        await p.aclose()


def ask(text: str = "hi", **kw: Any) -> ChatRequest:
    """A request with a system prompt and one user message."""
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]
    return ChatRequest(model=kw.pop("model", "claude-fake"), messages=messages, **kw)


async def test_text_and_parallel_tool_calls_stream_from_many_deltas(
    fake_anthropic: Any, claude: Any
) -> None:
    fa = fake_anthropic(
        [
            {
                "text": "Reading both.",
                "chunkSize": 3,
                "toolCalls": [
                    {"id": "toolu_a", "name": "read", "arguments": {"path": "src/main.py"}},
                    {"name": "grep", "arguments": {"pattern": "TODO", "literal": True}},
                ],
            }
        ]
    )
    events = await collect(claude(fa), ask(tools=TOOLS))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Rea", "din", "g b", "oth", "."]
    done = events[-1]
    assert isinstance(done, Completed) and done.stop_reason == "tool_use"
    assert done.text == "Reading both." and done.replay is None
    assert done.tool_calls == [
        ToolCall("toolu_a", "read", {"path": "src/main.py"}),
        ToolCall("toolu_fake_0_1", "grep", {"pattern": "TODO", "literal": True}),
    ]
    body, headers = fa.requests[0], fa.request_headers[0]
    assert headers["x-api-key"] == "sk-ant-test" and headers["anthropic-version"] == "2023-06-01"
    assert body["stream"] is True and body["max_tokens"] == 8192 and "thinking" not in body
    assert body["system"] == [
        {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}
    ]
    assert body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}],
        }
    ]
    assert body["tools"][0] == {
        "name": "read",
        "description": "Read a file.",
        "input_schema": TOOLS[0]["function"]["parameters"],
    }
    assert body["tools"][1]["cache_control"] == {"type": "ephemeral"}
    assert fa.rejections == [] and fa.mismatches == []


async def test_usage_counts_cache_reads_and_writes_into_prompt_tokens(
    fake_anthropic: Any, claude: Any
) -> None:
    call = {"id": "toolu_1", "name": "read", "arguments": {"path": "a.py"}}
    fa = fake_anthropic([{"text": "Looking.", "toolCalls": [call]}, {"text": "Done."}])
    provider = claude(fa)
    first = await collect(provider, ask("fix it", tools=TOOLS))
    done = first[-1]
    assert isinstance(done, Completed)
    history = [
        *ask("fix it", tools=TOOLS).messages,
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "a.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "print('hi')\n" * 50},
    ]
    second = await collect(provider, ChatRequest("claude-fake", history, TOOLS))
    one, two = fa.cache_uses
    assert one.cache_read_input_tokens == 0 and one.cache_creation_input_tokens > 1024
    # The second request reads all the first one wrote, and writes only its new turn.
    assert two.cache_read_input_tokens == one.cache_creation_input_tokens
    usage = [e for e in second if isinstance(e, Usage)][-1]
    assert usage.cache_read_tokens == two.cache_read_input_tokens
    assert usage.cache_write_tokens == two.cache_creation_input_tokens > 0
    assert usage.prompt_tokens == two.total and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    final = second[-1]
    assert isinstance(final, Completed) and final.usage == usage
    # The tool result went back as a tool_result block of a user message, cached up to it.
    last = fa.requests[1]["messages"][-1]
    assert last["role"] == "user" and last["content"][0]["type"] == "tool_result"
    assert last["content"][0]["tool_use_id"] == "toolu_1"
    assert last["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert fa.rejections == []


async def test_thinking_streams_apart_and_goes_back_signed_before_the_tool_result(
    fake_anthropic: Any, claude: Any
) -> None:
    call = {"id": "toolu_t", "name": "read", "arguments": {"path": "a.py"}}
    fa = fake_anthropic(
        [
            {"thinking": "The bug is in a.py; read it.", "chunkSize": 8, "toolCalls": [call]},
            {"thinking": "Fixed.", "text": "Done."},
            {"text": "again"},
        ]
    )
    provider = claude(fa)
    events = await collect(provider, ask("fix", tools=TOOLS, reasoning_effort="low"))
    assert fa.requests[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert fa.requests[0]["max_tokens"] == 8192 + 2048
    thought = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    done = events[-1]
    assert isinstance(done, Completed) and thought == done.thinking
    assert done.thinking == "The bug is in a.py; read it." and done.text == ""
    assert (
        done.usage is not None and 0 < done.usage.reasoning_tokens <= done.usage.completion_tokens
    )
    assert done.replay is not None and done.replay["kind"] == "anthropic"
    (block,) = done.replay["thinking"]
    assert block["type"] == "thinking" and block["signature"]
    turn = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "toolu_t",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "a.py"}'},
            }
        ],
        "gg_replay": json.loads(json.dumps(done.replay)),  # as stored in the session
    }
    result = {"role": "tool", "tool_call_id": "toolu_t", "content": "x = 1"}
    history = [*ask("fix").messages, turn, result]
    req = ChatRequest("claude-fake", history, TOOLS, reasoning_effort="low")
    final = (await collect(provider, req))[-1]
    assert isinstance(final, Completed) and final.text == "Done."
    sent = fa.requests[1]["messages"][1]["content"]
    assert [b["type"] for b in sent] == ["thinking", "tool_use"] and sent[0] == block
    assert fa.rejections == []  # the fake checked the signature and the thinking-first rule
    # A tampered thinking block is refused, as by the API.
    turn["gg_replay"] = {"kind": "anthropic", "thinking": [{**block, "thinking": "edited"}]}
    err, _ = await failure(provider, req)
    assert err.code == "bad_request" and "signature" in err.message


async def test_a_tool_loop_begun_without_thinking_continues_without_it(
    fake_anthropic: Any, claude: Any
) -> None:
    fa = fake_anthropic([{"text": "ok"}])
    turn = {
        "role": "assistant",
        "content": "reading",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        ],
    }
    history = [*ask("fix").messages, turn, {"role": "tool", "tool_call_id": "c1", "content": "x"}]
    req = ChatRequest("claude-fake", history, TOOLS, reasoning_effort="high")
    provider = claude(fa)
    assert isinstance((await collect(provider, req))[-1], Completed)
    assert "thinking" not in fa.requests[0] and fa.rejections == []
    # Thinking set outright in extraBody goes too, for that loop only.
    from ggd.providers.params import parse_params

    provider.params = parse_params("p", {"extraBody": {"thinking": CONFIG_THINKING}})
    fa.add_steps([{"text": "ok"}, {"text": "fresh"}])
    assert isinstance((await collect(provider, req))[-1], Completed)
    assert "thinking" not in fa.requests[1] and fa.rejections == []
    await collect(provider, ask("a new question"))
    assert fa.requests[2]["thinking"] == CONFIG_THINKING


async def test_parameters_from_config_in_the_apis_names(fake_anthropic: Any, claude: Any) -> None:
    from ggd.providers.params import parse_params

    fa = fake_anthropic([{"text": "a"}, {"text": "b"}])
    provider = claude(fa)
    provider.params = parse_params(
        "p",
        {
            "temperature": 0.2,
            "topP": 0.9,
            "seed": 3,
            "maxTokens": 1000,
            "toolChoice": "required",
            "extraBody": {"top_k": 5},
        },
    )
    await collect(provider, ask(tools=TOOLS))
    body = fa.requests[0]
    assert body["temperature"] == 0.2 and body["top_p"] == 0.9 and body["top_k"] == 5
    assert body["max_tokens"] == 1000 and body["tool_choice"] == {"type": "any"}
    assert "seed" not in body  # the Messages API has none
    assert provider.request_params(ask(tools=TOOLS))["max_tokens"] == 1000
    # With thinking, the sampling fields go: the API takes only their defaults then.
    await collect(provider, ask(tools=TOOLS, reasoning_effort="1500"))
    body = fa.requests[1]
    assert body["thinking"]["budget_tokens"] == 1500 and body["max_tokens"] == 2500
    assert "temperature" not in body and "top_p" not in body


async def test_a_bad_reasoning_effort_is_a_clear_error(claude: Any, fake_anthropic: Any) -> None:
    fa = fake_anthropic([])
    err, _ = await failure(claude(fa), ask(reasoning_effort="extreme"))
    assert err.code == "bad_request" and "'extreme'" in err.message and "low" in err.message
    assert fa.requests == []


@pytest.mark.parametrize("status", [429, 529])
async def test_rate_limits_and_overload_are_retried_after_retry_after(
    fake_anthropic: Any, claude: Any, sleeps: Any, status: int
) -> None:
    fa = fake_anthropic([{"status": status, "headers": {"retry-after": "2"}}, {"text": "ok"}])
    events = await collect(claude(fa), ask())
    assert isinstance(events[-1], Completed) and events[-1].text == "ok"
    assert sleeps.delays == [2.0] and len(fa.requests) == 2


async def test_overload_that_persists_fails_retryable_after_two_retries(
    fake_anthropic: Any, claude: Any, sleeps: Any
) -> None:
    fa = fake_anthropic([{"status": 529, "errorBody": "Overloaded", "repeat": 3}])
    err, _ = await failure(claude(fa), ask())
    assert err.code == "server_error" and err.retryable and err.status == 529
    assert "Overloaded" in err.message and len(sleeps.delays) == 2


async def test_auth_and_bad_requests_are_final(fake_anthropic: Any, claude: Any) -> None:
    fa = fake_anthropic([{"status": 400, "errorBody": "messages: too long"}])
    err, _ = await failure(claude(fa), ask())
    assert err.code == "bad_request" and "messages: too long" in err.message
    err, _ = await failure(claude(fa, key=None), ask())  # the fake wants x-api-key
    assert err.code == "auth" and not err.retryable


async def test_no_key_for_the_official_api_fails_before_any_request(options: Any) -> None:
    options.transport = httpx.MockTransport(lambda r: pytest.fail("no request expected"))
    provider = AnthropicProvider(
        "https://api.anthropic.com", None, name="anthropic", options=options
    )
    err, _ = await failure(provider, ask())
    assert err.code == "auth" and "ANTHROPIC_API_KEY" in err.message
    await provider.aclose()


@pytest.mark.parametrize(
    ("step", "code", "partial"),
    [
        ({"text": "partial answer cut", "chunkSize": 4, "torn": True}, "stream_interrupted", True),
        ({"text": "half of it", "chunkSize": 2, "errorBody": "Overloaded"}, "server_error", True),
        ({"text": "a long answer", "finishReason": "length"}, "length", True),
        (
            {"text": "calling", "toolCalls": [{"name": "read", "rawArguments": '{"path": "a'}]},
            "bad_tool_call",
            True,
        ),
        ({"text": "no", "finishReason": "refusal"}, "bad_response", True),
    ],
)
async def test_broken_answers_are_errors_that_keep_the_streamed_text(
    fake_anthropic: Any, claude: Any, step: dict[str, Any], code: str, partial: bool
) -> None:
    fa = fake_anthropic([step])
    err, seen = await failure(claude(fa), ask(tools=TOOLS))
    assert err.code == code, err.message
    streamed = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert streamed and err.partial_text == streamed
    assert step["text"].startswith(streamed)
    assert err.retryable == (code in ("stream_interrupted", "server_error"))


async def test_a_whole_message_from_a_gateway_is_accepted(options: ProviderOptions) -> None:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "text", "text": "sure"},
            {"type": "tool_use", "id": "toolu_9", "name": "read", "input": {"path": "x"}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 3, "cache_read_input_tokens": 10, "output_tokens": 2},
    }
    options.transport = httpx.MockTransport(lambda r: httpx.Response(200, json=message))
    provider = AnthropicProvider("http://x.invalid", "k", name="gw", options=options)
    done = (await collect(provider, ask()))[-1]
    assert isinstance(done, Completed) and done.text == "sure" and done.thinking == "hmm"
    assert done.tool_calls == [ToolCall("toolu_9", "read", {"path": "x"})]
    assert done.usage == Usage(13, 2, 15, cache_read_tokens=10)
    assert done.replay == {
        "kind": "anthropic",
        "thinking": [{"type": "thinking", "thinking": "hmm", "signature": "sig"}],
    }
    await provider.aclose()


async def test_the_shared_failure_script_gives_each_error_code(
    fake_anthropic: Any, claude: Any
) -> None:
    fa = fake_anthropic(SCRIPTS / "failures.json")
    provider = claude(fa)
    codes = [(await failure(provider, ask(tools=TOOLS)))[0].code for _ in range(4)]
    assert codes == ["stream_interrupted", "length", "bad_tool_call", "auth"]


async def test_a_model_that_takes_no_thinking_budget_is_asked_adaptively_from_then_on(
    fake_anthropic: Any, claude: Any
) -> None:
    fa = fake_anthropic(
        [{"thinking": "hm", "text": "one"}, {"text": "two"}, {"text": "three"}],
        adaptive_only=frozenset({"claude-next"}),
    )
    provider = claude(fa)
    done = (await collect(provider, ask(model="claude-next", reasoning_effort="high")))[-1]
    assert isinstance(done, Completed) and done.text == "one" and done.thinking == "hm"
    assert len(fa.rejections) == 1 and "adaptive" in fa.rejections[0]
    assert [r.get("thinking") for r in fa.requests] == [
        {"type": "enabled", "budget_tokens": 32000},
        {"type": "adaptive"},
    ]
    assert fa.requests[1]["output_config"] == {"effort": "high"}
    # Remembered for that model: the next request is adaptive at once; others keep budgets.
    await collect(provider, ask(model="claude-next", reasoning_effort="3000"))
    assert fa.requests[2]["output_config"] == {"effort": "low"} and len(fa.rejections) == 1
    await collect(provider, ask(reasoning_effort="low"))
    assert fa.requests[3]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    # A 400 about anything else is not retried with another thinking form.
    fa.add_steps([{"status": 400, "errorBody": "thinking blocks are wrong"}])
    err, _ = await failure(provider, ask(reasoning_effort="low"))
    assert err.code == "bad_request" and len(fa.requests) == 5
    forced = "Thinking may not be enabled when tool_choice forces tool use."
    fa.add_steps([{"status": 400, "errorBody": forced}])
    err, _ = await failure(provider, ask(reasoning_effort="low"))
    assert err.code == "bad_request" and "tool_choice" in err.message and len(fa.requests) == 6
    # A named level goes to an adaptive model as it is.
    fa.add_steps([{"text": "four"}])
    await collect(provider, ask(model="claude-next", reasoning_effort="max"))
    assert fa.requests[-1]["output_config"] == {"effort": "max"}
    assert fa.requests[-1]["max_tokens"] == 8192 + 60000


async def test_an_overloaded_error_event_before_any_answer_is_retried(
    fake_anthropic: Any, claude: Any, sleeps: Any
) -> None:
    fa = fake_anthropic([{"errorBody": "Overloaded"}, {"text": "ok"}])
    done = (await collect(claude(fa), ask()))[-1]
    assert isinstance(done, Completed) and done.text == "ok"
    assert len(fa.requests) == 2 and len(sleeps.delays) == 1
    # One that persists fails after the retries; one after text began is never retried.
    fa.add_steps([{"errorBody": "Overloaded", "repeat": 3}])
    err, _ = await failure(claude(fa), ask())
    assert err.code == "server_error" and err.retryable and len(fa.requests) == 5
    fa.add_steps([{"text": "begun", "chunkSize": 1, "errorBody": "Overloaded"}, {"text": "no"}])
    err, _ = await failure(claude(fa), ask())
    assert err.partial_text == "be" and len(fa.requests) == 6


async def test_cancelling_a_hanging_stream_releases_it(fake_anthropic: Any, claude: Any) -> None:
    import asyncio

    fa = fake_anthropic([{"text": "thinking forever", "hang": True}, {"text": "next"}])
    provider = claude(fa)
    got_text = asyncio.Event()

    async def consume() -> None:
        async for ev in provider.stream(ask()):
            if isinstance(ev, TextDelta):
                got_text.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_text.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    events = await asyncio.wait_for(collect(provider, ask()), 5)
    assert isinstance(events[-1], Completed) and events[-1].text == "next"
