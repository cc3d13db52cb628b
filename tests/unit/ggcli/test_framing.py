"""Content-Length framing: round trips, split reads, malformed input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ggcli.framing import FrameDecoder, FramingError, encode

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@given(st.lists(json_values, min_size=1, max_size=5), st.integers(min_value=1, max_value=17))
def test_round_trip_through_arbitrary_chunking(messages: list[object], chunk: int) -> None:
    stream = b"".join(encode(m) for m in messages)
    dec = FrameDecoder()
    out: list[object] = []
    for i in range(0, len(stream), chunk):
        out += dec.feed(stream[i : i + chunk])
    assert out == messages
    assert dec.pending == 0


def test_length_counts_utf8_bytes_not_characters() -> None:
    frame = encode({"text": "héllo ✓"})
    header, body = frame.split(b"\r\n\r\n", 1)
    assert int(header.split(b":")[1]) == len(body)
    assert json.loads(body)["text"] == "héllo ✓"


def test_other_headers_and_case_are_accepted() -> None:
    body = b'{"a":1}'
    raw = b"content-type: application/vscode-jsonrpc\r\ncontent-LENGTH: 7\r\n\r\n" + body
    assert FrameDecoder().feed(raw) == [{"a": 1}]


@pytest.mark.parametrize(
    "raw",
    [
        b"Content-Type: x\r\n\r\n{}",
        b"Content-Length: abc\r\n\r\n{}",
        b"garbage\r\n\r\n",
        b"Content-Length: 3\r\n\r\nnot",
        b"Content-Length: 999999999999\r\n\r\n",
        b"x" * 9000,
    ],
)
def test_malformed_input_raises(raw: bytes) -> None:
    with pytest.raises(FramingError):
        FrameDecoder().feed(raw)
