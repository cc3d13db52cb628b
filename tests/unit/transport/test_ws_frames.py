"""The WebSocket writer's own text framing is byte for byte what websockets would send."""

from __future__ import annotations

import json

import pytest
from websockets.frames import Frame, Opcode

from ggd.transport.websocket import BATCH_MAX_BYTES, batch_frames, text_frames


def _reference(body: bytes) -> bytes:
    return Frame(Opcode.TEXT, body).serialize(mask=False, extensions=[])


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70_000])
def test_every_length_encoding_matches_websockets(size: int) -> None:
    body = b"x" * size
    assert text_frames([body]) == _reference(body)


def test_several_bodies_are_consecutive_whole_frames() -> None:
    bodies = [b'{"a":1}', "é".encode() * 100, b"z" * 70_000]
    assert text_frames(bodies) == b"".join(_reference(b) for b in bodies)


def test_batches_are_json_arrays_in_order_and_capped_in_size() -> None:
    bodies = [
        json.dumps({"jsonrpc": "2.0", "method": "m", "params": {"i": i}}).encode() for i in range(5)
    ]
    (one,) = batch_frames(bodies)
    assert [m["params"]["i"] for m in json.loads(one)] == [0, 1, 2, 3, 4]
    big = [b'{"x":"' + b"y" * (BATCH_MAX_BYTES // 3) + b'"}' for _ in range(7)]
    frames = batch_frames(big)
    assert len(frames) > 1 and all(len(f) <= BATCH_MAX_BYTES for f in frames)
    flat = [m for f in frames for m in (json.loads(f) if f[:1] == b"[" else [json.loads(f)])]
    assert flat == [json.loads(b) for b in big]


def test_a_lone_or_oversize_message_goes_as_itself() -> None:
    assert batch_frames([b'{"a":1}']) == [b'{"a":1}']
    huge = b'{"x":"' + b"y" * BATCH_MAX_BYTES + b'"}'
    assert batch_frames([b'{"a":1}', huge, b'{"b":2}']) == [b'{"a":1}', huge, b'{"b":2}']


def _parse_all(data: bytes) -> list[Frame]:
    """Every frame in data, parsed by websockets' own reader."""
    from websockets.streams import StreamReader

    reader = StreamReader()
    reader.feed_data(data)
    out: list[Frame] = []
    while reader.buffer:
        parser = Frame.parse(reader.read_exact, mask=False)
        with pytest.raises(StopIteration) as done:
            next(parser)
        out.append(done.value.value)
    return out


def test_a_big_answer_goes_as_fragments_websockets_reassembles() -> None:
    from ggd.rpc.pieces import GROUP_BYTES, Pieces
    from ggd.transport.websocket import fragments

    body = b'{"result":' + "é".encode() * (GROUP_BYTES + 5000) + b"}"
    pieces = Pieces([body[:10], body[10:-1], body[-1:]])
    frames = _parse_all(b"".join(b"".join(f) for f in fragments(pieces)))
    assert [f.opcode for f in frames] == [Opcode.TEXT] + [Opcode.CONT] * (len(frames) - 1)
    assert [f.fin for f in frames] == [False] * (len(frames) - 1) + [True]
    assert len(frames) == 3 and all(len(f.data) <= GROUP_BYTES for f in frames)
    assert b"".join(f.data for f in frames) == body
    (alone,) = _parse_all(b"".join(b"".join(f) for f in fragments(Pieces([b"[", b"1]"]))))
    assert alone.opcode is Opcode.TEXT and alone.fin and alone.data == b"[1]"
