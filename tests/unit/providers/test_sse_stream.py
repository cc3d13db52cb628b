"""SSEStream (bytes -> event data) agrees with httpx's line splitting + SSEDecoder, however split."""

from __future__ import annotations

import pytest
from httpx._decoders import LineDecoder
from hypothesis import given, settings
from hypothesis import strategies as st

from ggd.providers.assembly import SSEDecoder, SSEStream
from ggd.providers.scripted import plan_reply


def reference(raw: bytes) -> list[str]:
    """What the line-based path made of a whole stream: httpx's lines through SSEDecoder."""
    lines = LineDecoder()
    out_lines = lines.decode(raw.decode("utf-8", "replace")) + lines.flush()
    dec = SSEDecoder()
    out = [d for d in (dec.feed(line) for line in out_lines) if d is not None]
    tail = dec.flush()
    return [*out, tail] if tail is not None else out


def chunked(raw: bytes, cuts: list[int]) -> list[str]:
    sse = SSEStream()
    out: list[str] = []
    start = 0
    for cut in [*sorted(cuts), len(raw)]:
        out += sse.feed(raw[start:cut])
        start = cut
    return out + sse.flush()


STREAMS = [
    b'data: {"a":1}\n\ndata: {"b":"\xc3\xa9"}\n\ndata: [DONE]\n\n',
    b": keep-alive\n\nevent: message\ndata: one\ndata: two\n\ndata:x\n\n\n\ndata: tail",
    b"data: crlf\r\n\r\ndata: also\r\n\r\n",
    b"data: lone cr\r\rdata: next\r\r",
    b'data: {"a":1}\n\ndata: switch\r\n\r\ndata: after\n\n',
    b"id: 3\nretry: 10\ndata: with fields\n\n: comment only\n\ndata: \n\n",
    b"",
]


@pytest.mark.parametrize("raw", STREAMS)
def test_every_split_point_gives_the_line_based_result(raw: bytes) -> None:
    want = reference(raw)
    assert chunked(raw, []) == want
    for cut in range(len(raw) + 1):
        assert chunked(raw, [cut]) == want, cut


def test_a_scripted_answer_streams_its_payloads_in_order() -> None:
    reply = plan_reply(
        {"text": "héllo wörld", "chunkSize": 1}, {"messages": [], "stream": True}, seq=0
    )
    raw = b"".join(reply.frames)
    got = chunked(raw, list(range(0, len(raw), 7)))
    assert got == reference(raw) and got[-1] == "[DONE]" and len(got) == len(reply.frames)


@settings(max_examples=150, deadline=None)
@given(
    parts=st.lists(
        st.sampled_from(
            ["data: x", 'data: {"é":1}', "data:y", ": c", "event: e", "", "\n", "\r\n", "\r"]
        ),
        max_size=25,
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=6),
)
def test_random_streams_and_splits_agree(parts: list[str], cuts: list[int]) -> None:
    raw = "\n".join(parts).encode()
    assert chunked(raw, [c for c in cuts if c <= len(raw)]) == reference(raw)
