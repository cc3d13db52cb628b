"""The WebSocket writer's own text framing is byte for byte what websockets would send."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode

from ggd.transport.websocket import text_frames


def _reference(body: bytes) -> bytes:
    return Frame(Opcode.TEXT, body).serialize(mask=False, extensions=[])


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70_000])
def test_every_length_encoding_matches_websockets(size: int) -> None:
    body = b"x" * size
    assert text_frames([body]) == _reference(body)


def test_several_bodies_are_consecutive_whole_frames() -> None:
    bodies = [b'{"a":1}', "é".encode() * 100, b"z" * 70_000]
    assert text_frames(bodies) == b"".join(_reference(b) for b in bodies)
