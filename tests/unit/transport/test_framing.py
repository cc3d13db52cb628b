"""Content-Length framing: any split of the byte stream decodes to the same messages."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ggd.transport.framing import BadHeader, ContentLengthDecoder, Oversized, encode

bodies = st.lists(st.binary(min_size=0, max_size=300), min_size=1, max_size=8)


@given(bodies, st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=50))
@settings(max_examples=300)
def test_any_chunking_yields_the_same_messages(msgs: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(encode(m) for m in msgs)
    dec = ContentLengthDecoder()
    out: list[object] = []
    i = 0
    for n in cuts:
        out += dec.feed(stream[i : i + n])
        i += n
    out += dec.feed(stream[i:])
    assert out == msgs


def test_an_oversized_message_is_skipped_and_the_stream_stays_in_sync() -> None:
    dec = ContentLengthDecoder(max_size=10)
    stream = encode(b"x" * 50) + encode(b"ok")
    out = []
    for i in range(0, len(stream), 7):
        out += dec.feed(stream[i : i + 7])
    assert out == [Oversized(50), b"ok"]


def test_other_headers_are_accepted_and_a_missing_length_is_reported() -> None:
    dec = ContentLengthDecoder()
    msg = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}"
    assert dec.feed(msg) == [b"{}"]
    bad = ContentLengthDecoder()
    out = bad.feed(b"Content-Type: x\r\n\r\n{}")
    assert len(out) == 1 and isinstance(out[0], BadHeader)


@given(st.binary(max_size=2000))
@settings(max_examples=300)
def test_garbage_never_raises(data: bytes) -> None:
    dec = ContentLengthDecoder(max_size=1000)
    for item in dec.feed(data):
        assert isinstance(item, bytes | Oversized | BadHeader)


def test_only_plain_digits_and_one_consistent_length_are_accepted() -> None:
    for header in (b"+2", b"2_0", b"-1", b"0x2", b"\xd9\xa5", b"", b"9" * 20):
        out = ContentLengthDecoder().feed(b"Content-Length: " + header + b"\r\n\r\n{}")
        assert len(out) == 1 and isinstance(out[0], BadHeader), header
    twice = b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}x"
    assert isinstance(ContentLengthDecoder().feed(twice)[0], BadHeader)
    same = b"Content-Length: 2\r\ncontent-length:  2 \r\n\r\n{}"
    assert ContentLengthDecoder().feed(same) == [b"{}"]
