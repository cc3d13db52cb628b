"""Pure parsing: SSE decoding, chunk assembly, error mapping and Retry-After."""

from __future__ import annotations

import email.utils
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggd.providers import Completed, ProviderError, TextDelta, ToolCall
from ggd.providers.assembly import SSEDecoder, StreamAssembler
from ggd.providers.errors import from_httpx, from_status, retry_after_seconds
from ggd.providers.scripted import plan_reply


def test_sse_decoder_handles_comments_crlf_and_multiline_data() -> None:
    dec = SSEDecoder()
    lines = [": keep-alive", "event: message", 'data: {"a":', "data: 1}\r", "", "", "data:[DONE]"]
    out = [d for d in (dec.feed(line) for line in lines) if d is not None]
    assert out == ['{"a":\n1}']
    assert dec.flush() == "[DONE]" and dec.flush() is None


def assemble(frames: list[bytes]) -> tuple[list[Any], StreamAssembler]:
    asm = StreamAssembler(provider="t")
    dec = SSEDecoder()
    events: list[Any] = []
    for line in b"".join(frames).decode().split("\n"):
        data = dec.feed(line)
        if data is not None:
            events.extend(asm.feed_data(data))
    return events, asm


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(min_size=0, max_size=60),
    args=st.dictionaries(
        st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=20)), max_size=4
    ),
    size=st.integers(min_value=1, max_value=9),
)
def test_any_fragmentation_reassembles_exactly(text: str, args: dict[str, Any], size: int) -> None:
    step = {
        "text": text,
        "chunkSize": size,
        "toolCalls": [{"id": "c1", "name": "edit", "arguments": args}],
    }
    reply = plan_reply(step, {"stream": True})
    events, asm = assemble(reply.frames)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == text
    done = asm.finish()
    assert done.text == text and done.tool_calls == [ToolCall("c1", "edit", args)]


def test_calls_without_index_are_split_by_id() -> None:
    asm = StreamAssembler()
    for frag in (
        {"id": "a", "function": {"name": "read", "arguments": '{"pa'}},
        {"function": {"arguments": 'th": "x"}'}},
        {"id": "b", "function": {"name": "list", "arguments": {"path": "."}}},
    ):
        asm.feed_chunk({"choices": [{"delta": {"tool_calls": [frag]}}]})
    asm.feed_chunk({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    assert asm.finish().tool_calls == [
        ToolCall("a", "read", {"path": "x"}),
        ToolCall("b", "list", {"path": "."}),
    ]


def test_done_without_finish_reason_is_accepted_but_neither_is_not() -> None:
    asm = StreamAssembler()
    asm.feed_data('{"choices":[{"delta":{"content":"hi"}}]}')
    with pytest.raises(ProviderError) as info:
        asm.finish()
    assert info.value.code == "stream_interrupted" and info.value.partial_text == "hi"
    asm.feed_data("[DONE]")
    assert isinstance(asm.finish(), Completed)


@pytest.mark.parametrize(("data", "code"), [("not json", "bad_response"), ("[1]", "bad_response")])
def test_malformed_stream_data(data: str, code: str) -> None:
    with pytest.raises(ProviderError) as info:
        StreamAssembler().feed_data(data)
    assert info.value.code == code


def test_content_filter_stop_is_an_error() -> None:
    asm = StreamAssembler()
    asm.feed_chunk({"choices": [{"delta": {"content": "x"}, "finish_reason": "content_filter"}]})
    with pytest.raises(ProviderError) as info:
        asm.finish()
    assert info.value.code == "bad_response" and info.value.partial_text == "x"


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (429, "rate_limited", True),
        (500, "server_error", True),
        (503, "server_error", True),
        (401, "auth", False),
        (403, "auth", False),
        (400, "bad_request", False),
        (422, "bad_request", False),
    ],
)
def test_status_mapping(status: int, code: str, retryable: bool) -> None:
    err = from_status(status, '{"error": {"message": "why"}}', provider="p")
    assert (err.code, err.retryable, err.status) == (code, retryable, status)


def test_httpx_mapping_depends_on_the_phase() -> None:
    req = httpx.Request("POST", "http://user:pw@127.0.0.1:1/v1/chat/completions?key=SECRET")
    before = from_httpx(httpx.ConnectError("refused", request=req), provider="p", streaming=False)
    assert before.code == "network" and before.retryable
    # the URL is named (a newcomer must see which endpoint is down), its credentials are not
    assert "http://127.0.0.1:1/v1/chat/completions" in before.message
    assert "SECRET" not in before.message and "pw" not in before.message
    timeout = from_httpx(httpx.ReadTimeout("slow", request=req), provider="p", streaming=False)
    assert timeout.code == "network"
    during = from_httpx(
        httpx.RemoteProtocolError("eof", request=req),
        provider="p",
        streaming=True,
        partial_text="ab",
    )
    assert during.code == "stream_interrupted" and during.partial_text == "ab"


def test_retry_after_seconds_and_http_date() -> None:
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"Retry-After": "1.5"}) == 1.5
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 10, usegmt=True)
    assert retry_after_seconds({"retry-after": date}, now=now) == pytest.approx(10.0)
    assert (
        retry_after_seconds({"retry-after": email.utils.formatdate(now - 10, usegmt=True)}, now=now)
        == 0.0
    )
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None
