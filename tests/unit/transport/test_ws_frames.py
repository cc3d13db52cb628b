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
