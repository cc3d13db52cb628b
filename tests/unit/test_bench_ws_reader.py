"""bench/_ws_reader.py: the fan-out bench's own frame parser and sequence checks are right."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from ggd.transport.websocket import text_frames
from tests.unit.bench_module import load_bench


def _reader() -> ModuleType:
    return load_bench("_ws_reader.py", "bench_ws_reader")


def _event(seq: int, type_: str = "text_delta", ts: int = 1000) -> dict[str, Any]:
    return {"sequence": seq, "timestamp": ts + seq, "type": type_}


def test_frames_of_every_length_parse_and_a_partial_one_waits() -> None:
    r = _reader()
    bodies = [b"a", b"b" * 126, b"c" * 70_000]
    data = text_frames(bodies)
    frames, pos = r.parse_frames(data, 0)
    assert [data[a:b] for _, a, b in frames] == bodies and pos == len(data)
    frames, pos = r.parse_frames(data[:-1], 0)  # the last frame is one byte short
    assert len(frames) == 2 and pos == len(text_frames(bodies[:2]))


def test_the_client_frame_is_masked_and_decodes_to_its_payload() -> None:
    r = _reader()
    payload = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize"}).encode()
    raw = r.masked_text_frame(payload)
    assert raw[1] & 0x80  # masked, as RFC 6455 requires of clients
    n = len(payload)
    mask, body = raw[2:6], raw[6:]
    assert bytes(b ^ mask[i % 4] for i, b in enumerate(body)) == payload and len(body) == n
    # websockets' own parser (the daemon's side) reads the same text frame.
    stream = StreamReader()
    stream.feed_data(raw)
    parser = Frame.parse(stream.read_exact, mask=True)
    with pytest.raises(StopIteration) as done:
        next(parser)
    assert done.value.value == Frame(Opcode.TEXT, payload)


def test_loss_duplicates_and_disorder_are_counted() -> None:
    r = _reader()
    seqs = [1, 2, 4, 3, 3, 5]
    evs = [(2000.0 + s, _event(s)) for s in seqs] + [(2010.0, _event(6, "run_completed"))]
    out = r.analyse(evs, subscribed_ms=0)
    assert out["final_sequence"] == 6 and out["got_terminal"]
    assert (out["lost"], out["duplicates"], out["out_of_order"]) == (0, 1, 2)
    gappy = [(t, e) for t, e in evs if e["sequence"] != 4]
    assert r.analyse(gappy, subscribed_ms=0)["lost"] == 1
    no_end = [(t, e) for t, e in evs if e["type"] != "run_completed"]
    assert not r.analyse(no_end, subscribed_ms=0)["got_terminal"]
