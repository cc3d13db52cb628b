"""StreamAssembler.feed_many (typed content-only decoding) against feed_data one chunk at a time."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggd.providers import ProviderError, TextDelta
from ggd.providers.assembly import StreamAssembler


def _content(text: str, **extra: Any) -> str:
    delta = {"content": text, **extra}
    return json.dumps(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }
    )


CHUNKS: list[str] = [
    _content("a"),
    _content("é日"),
    _content(""),
    _content("r", role="assistant"),
    json.dumps({"choices": [{"delta": {"reasoning_content": "think"}}]}),
    json.dumps({"choices": [{"delta": {"content": "x", "reasoning": "y"}}]}),
    json.dumps({"choices": [{"delta": {"content": "a"}}, {"delta": {"content": "b"}}]}),
    json.dumps({"choices": [{"delta": {"content": None}}]}),
    json.dumps({"choices": [{"delta": {"content": 5}}]}),
    json.dumps({"choices": [{"message": {"content": "whole"}}]}),
    json.dumps(
        {
            "choices": [
                {"delta": {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f"}}]}}
            ]
        }
    ),
    json.dumps({"choices": [{"delta": {"content": "z"}, "finish_reason": "stop"}]}),
    json.dumps({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}),
    json.dumps({"choices": [{"delta": {"content": "n"}}], "error": None, "usage": None}),
    '{"choices":[{"delta":{"content":"nan"}}],"x":NaN}',
]


def _one_at_a_time(datas: list[str]) -> tuple[list[Any], StreamAssembler]:
    asm = StreamAssembler(provider="t")
    events: list[Any] = []
    for data in datas:
        events += asm.feed_data(data)
        if asm.done:
            break
    return events, asm


def _outcome(asm: StreamAssembler) -> Any:
    try:
        return asm.finish()
    except ProviderError as exc:
        return (exc.code, exc.message, exc.partial_text)


@settings(max_examples=150, deadline=None)
@given(picks=st.lists(st.integers(0, len(CHUNKS) - 1), max_size=30), split=st.integers(1, 7))
def test_feed_many_gives_exactly_the_events_and_answer_of_one_chunk_at_a_time(
    picks: list[int], split: int
) -> None:
    datas = [CHUNKS[i] for i in picks] + ["[DONE]", _content("after the end")]
    want, ref = _one_at_a_time(datas)
    asm = StreamAssembler(provider="t")
    got: list[Any] = []
    for i in range(0, len(datas), split):  # reads of `split` events each
        got += asm.feed_many(datas[i : i + split])
        if asm.done:
            break
    assert got == want
    assert _outcome(asm) == _outcome(ref)


def test_an_error_after_text_in_one_read_comes_after_that_text() -> None:
    asm = StreamAssembler(provider="t")
    error = json.dumps({"error": {"message": "overloaded"}})
    events = asm.feed_many([_content("a"), _content("b"), error, _content("c")])
    assert events == [TextDelta("a"), TextDelta("b")]  # what arrived before the error goes out
    with pytest.raises(ProviderError, match="overloaded") as raised:
        asm.feed_many([_content("d")])
    assert raised.value.partial_text == "ab"
    with pytest.raises(ProviderError, match="overloaded"):
        asm.finish()


def test_a_stream_the_typed_decoder_keeps_refusing_still_assembles() -> None:
    asm = StreamAssembler(provider="t")
    datas = [_content(str(i), role="assistant") for i in range(20)] + [_content("!")]
    events = asm.feed_many(datas)
    assert "".join(e.text for e in events) == "".join(map(str, range(20))) + "!"
