"""Event-level edge cases of the native kinds' stream assemblers (what the fakes never send)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ggd.providers import Completed, ProviderError, TextDelta
from ggd.providers.gemini import _Assembler as GeminiAssembler
from ggd.providers.openai_responses import _Assembler as ResponsesAssembler


def feed(asm: Any, *events: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for ev in events:
        out += asm.feed(json.dumps(ev))
    return out


def text(piece: str) -> dict[str, Any]:
    return {"type": "response.output_text.delta", "output_index": 0, "delta": piece}


def test_responses_error_event_keeps_partial_text() -> None:
    asm = ResponsesAssembler("r")
    feed(asm, text("half"))
    with pytest.raises(ProviderError) as exc:
        feed(asm, {"type": "error", "code": "server_error", "message": "boom"})
    assert exc.value.code == "server_error" and exc.value.retryable
    assert exc.value.partial_text == "half" and "boom" in exc.value.message


@pytest.mark.parametrize(
    ("status", "extra", "code"),
    [
        ("incomplete", {"incomplete_details": {"reason": "content_filter"}}, "bad_response"),
        ("failed", {"error": {"code": "rate_limit_exceeded", "message": "slow"}}, "rate_limited"),
        ("failed", {"error": {"code": "server_error", "message": "x"}}, "server_error"),
    ],
)
def test_responses_terminal_states(status: str, extra: dict[str, Any], code: str) -> None:
    asm = ResponsesAssembler("r")
    feed(
        asm, text("so far"), {"type": f"response.{status}", "response": {"status": status, **extra}}
    )
    with pytest.raises(ProviderError) as exc:
        asm.finish()
    assert exc.value.code == code and exc.value.partial_text == "so far"


def test_responses_refusal_streams_as_text_and_malformed_data_is_bad_response() -> None:
    asm = ResponsesAssembler("r")
    events = feed(asm, {"type": "response.refusal.delta", "delta": "I can't"})
    assert events == [TextDelta("I can't")]
    with pytest.raises(ProviderError) as exc:
        asm.feed("{not json")
    assert exc.value.code == "bad_response" and exc.value.partial_text == "I can't"


def test_responses_call_without_done_uses_the_deltas() -> None:
    asm = ResponsesAssembler("r")
    item = {"type": "function_call", "call_id": "c1", "name": "read", "arguments": ""}
    feed(
        asm,
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"pa'},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": 'th":"x"}'},
        {"type": "response.completed", "response": {"status": "completed"}},
    )
    done = asm.finish()
    assert done.tool_calls[0].arguments == {"path": "x"} and done.stop_reason == "tool_use"


def cand(parts: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0, **kw}]}


def test_gemini_error_chunk_mid_stream() -> None:
    asm = GeminiAssembler("g")
    feed(asm, cand([{"text": "part"}]))
    with pytest.raises(ProviderError) as exc:
        feed(asm, {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}})
    assert exc.value.code == "rate_limited" and exc.value.partial_text == "part"


def test_gemini_safety_stop_and_blocked_prompt() -> None:
    asm = GeminiAssembler("g")
    feed(asm, cand([{"text": "some"}], finishReason="SAFETY"))
    with pytest.raises(ProviderError) as exc:
        asm.finish()
    assert exc.value.code == "bad_response" and "SAFETY" in exc.value.message
    blocked = GeminiAssembler("g")
    feed(blocked, {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}})
    with pytest.raises(ProviderError) as exc:
        blocked.finish()
    assert "PROHIBITED_CONTENT" in exc.value.message


def test_gemini_text_merges_and_a_lone_signature_joins_the_last_part() -> None:
    asm = GeminiAssembler("g")
    feed(
        asm,
        cand([{"text": "thinking", "thought": True}]),
        cand([{"text": "Hel"}]),
        cand([{"text": "lo"}]),
        cand([{"text": "", "thoughtSignature": "U0lH"}], finishReason="STOP"),
    )
    done = asm.finish()
    assert isinstance(done, Completed) and done.text == "Hello" and done.thinking == "thinking"
    # The unsigned thought summary is not sent back; the text carries the signature.
    assert done.replay == {
        "kind": "gemini",
        "parts": [{"text": "Hello", "thoughtSignature": "U0lH"}],
    }


def test_responses_interleaved_parallel_call_deltas() -> None:
    asm = ResponsesAssembler("r")
    added = [
        {
            "type": "response.output_item.added",
            "output_index": i,
            "item": {"type": "function_call", "call_id": f"c{i}", "name": n, "arguments": ""},
        }
        for i, n in ((0, "read"), (1, "grep"))
    ]

    def delta(i: int, piece: str) -> dict[str, Any]:
        return {"type": "response.function_call_arguments.delta", "output_index": i, "delta": piece}

    feed(
        asm,
        *added,
        delta(1, '{"pattern"'),
        delta(0, '{"path"'),
        delta(1, ':"TODO"}'),
        delta(0, ':"a"}'),
        {"type": "response.completed", "response": {"status": "completed"}},
    )
    done = asm.finish()
    assert [(c.id, c.name, c.arguments) for c in done.tool_calls] == [
        ("c0", "read", {"path": "a"}),
        ("c1", "grep", {"pattern": "TODO"}),
    ]


def test_gemini_closing_empty_part_is_not_sent_back() -> None:
    asm = GeminiAssembler("g")
    call = {"functionCall": {"name": "read", "args": {"path": "a"}}, "thoughtSignature": "U0lH"}
    feed(asm, cand([call]), cand([{"text": ""}], finishReason="STOP"))
    done = asm.finish()
    assert done.replay == {"kind": "gemini", "parts": [call]}
    assert done.tool_calls[0].name == "read" and done.tool_calls[0].id.startswith("call_")


@pytest.mark.parametrize(
    ("usage", "cached", "reasoning"),
    [
        (
            {
                "prompt_tokens_details": {"cached_tokens": 1024},
                "completion_tokens_details": {"reasoning_tokens": 7},
            },
            1024,
            7,
        ),
        ({"prompt_cache_hit_tokens": 640, "prompt_cache_miss_tokens": 360}, 640, 0),
        ({"prompt_tokens_details": None}, 0, 0),
    ],
)
def test_chat_completions_usage_keeps_cache_and_reasoning_counts(
    usage: dict[str, Any], cached: int, reasoning: int
) -> None:
    from ggd.providers.assembly import StreamAssembler

    asm = StreamAssembler()
    chunk = {
        "choices": [],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 9, "total_tokens": 1009, **usage},
    }
    asm.feed_data(json.dumps(chunk))
    assert asm.usage is not None and asm.usage.prompt_tokens == 1000
    assert (asm.usage.cache_read_tokens, asm.usage.reasoning_tokens) == (cached, reasoning)
