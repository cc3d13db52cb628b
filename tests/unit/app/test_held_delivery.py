"""A loop pass's deltas handed to each connection once: order, replay, limits and framing hold."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ggd.app.bus import SessionBus
from ggd.app.run import Run
from ggd.protocol import SessionEvent
from ggd.protocol import events as W
from ggd.rpc.connection import SOFT_LIMIT, Connection
from ggd.transport import framing, streams
from ggd.transport.websocket import _FRAME, text_frame


def _ws() -> Connection:
    conn = Connection(transport="ws")
    conn.wire = _FRAME
    return conn


def _run(*subs: Connection) -> Run:
    run = Run(session_id="s_1", interactive=False, approval_mode="yolo", model="m")
    for sub in subs:
        run.subscribe(sub, 0)
    return run


def _parse_ws(data: bytes) -> list[dict[str, Any]]:
    """Unmasked RFC 6455 text frames -> their JSON messages (fails on anything else)."""
    out, pos = [], 0
    while pos < len(data):
        assert data[pos] == 0x81
        n, pos = data[pos + 1], pos + 2
        if n == 126:
            n, pos = int.from_bytes(data[pos : pos + 2], "big"), pos + 2
        elif n == 127:
            n, pos = int.from_bytes(data[pos : pos + 8], "big"), pos + 8
        out.append(json.loads(data[pos : pos + n]))
        pos += n
    assert pos == len(data)
    return out


def _messages(conn: Connection) -> list[dict[str, Any]]:
    frames = conn.take_frames()
    conn.written(frames)
    return _parse_ws(b"".join(frames))


def _seqs(msgs: list[dict[str, Any]]) -> list[int]:
    return [
        m["params"]["sequence"]
        for m in msgs
        if isinstance(m, dict) and m.get("method") == "gg/run.event"
    ]


async def _next_pass() -> None:
    await asyncio.sleep(0)  # one loop iteration: the run's deferred hand-over runs


async def test_a_pass_is_handed_over_when_the_loop_runs_once_for_every_connection() -> None:
    a, b = _ws(), _ws()
    run = _run(a, b)
    for ch in "abc":
        run.emit_delta("text_delta", ch)
    await _next_pass()
    (fa,), (fb,) = list(a._queue), list(b._queue)
    assert fa is fb  # framed and joined once, one queue entry each
    assert [m["params"]["text"] for m in _parse_ws(fa)] == ["a", "b", "c"]
    assert a.pending_bytes == len(fa)


async def test_a_response_after_deltas_of_the_same_pass_arrives_after_them() -> None:
    conn = _ws()
    run = _run(conn)
    run.emit_delta("text_delta", "x")
    run.emit_delta("text_delta", "y")
    conn.send_raw(b'{"jsonrpc":"2.0","id":1,"result":null}')
    run.emit_delta("text_delta", "z")
    await _next_pass()
    msgs = _messages(conn)
    assert [m.get("id") or m["params"]["text"] for m in msgs] == ["x", "y", 1, "z"]


async def test_session_events_and_other_run_events_keep_their_place() -> None:
    conn = _ws()
    run = _run(conn)
    bus = SessionBus()
    bus.subscribe("s_1", conn)
    run.emit_delta("text_delta", "a")
    bus.publish(SessionEvent(session_id="s_1", type="renamed", title="t"))
    run.emit_delta("text_delta", "b")
    run.emit(W.UserMessageEvent, text="steer")
    run.emit_delta("text_delta", "c")
    await _next_pass()
    msgs = _messages(conn)
    kinds = [m["params"]["type"] for m in msgs]
    assert kinds == ["text_delta", "renamed", "text_delta", "user_message", "text_delta"]
    assert _seqs(msgs) == [1, 2, 3, 4]


async def test_subscribing_in_the_middle_of_a_pass_gets_every_event_once() -> None:
    early = _ws()
    run = _run(early)
    run.emit_delta("text_delta", "1")
    run.emit_delta("text_delta", "2")
    late = _ws()
    run.subscribe(late, 0)  # replays 1 and 2; the rest comes live
    run.emit_delta("text_delta", "3")
    again = _ws()
    run.subscribe(again, 2)
    run.emit_delta("text_delta", "4")
    await _next_pass()
    assert _seqs(_messages(early)) == [1, 2, 3, 4]
    assert _seqs(_messages(late)) == [1, 2, 3, 4]
    assert _seqs(_messages(again)) == [3, 4]


async def test_an_unsubscribe_or_a_close_first_delivers_what_came_before() -> None:
    gone, closing, stays = _ws(), _ws(), _ws()
    run = _run(gone, closing, stays)
    run.emit_delta("text_delta", "1")
    run.subscribers.discard(gone)  # what gg/run.unsubscribe does
    closing.close()
    run.emit_delta("text_delta", "2")
    await _next_pass()
    assert _seqs(_messages(gone)) == [1]
    assert _seqs(_messages(closing)) == [1]  # the writer drains it before the socket goes
    assert _seqs(_messages(stays)) == [1, 2]
    assert closing not in run.subscribers


async def test_a_pass_past_the_soft_limit_keeps_exactly_what_one_by_one_would() -> None:
    held, reference = _ws(), _ws()
    filler = b'"' + b"f" * (SOFT_LIMIT - 5002) + b'"'  # an answer that leaves ~5 KB of room
    for conn in (held, reference):
        conn.send_raw(filler)
    run = _run(held)
    texts = ["y" * 1000 for _ in range(10)]
    wires = [run.emit_delta("text_delta", t) for t in texts]
    await _next_pass()
    kept = 0
    for wire in wires:  # the per-message path the pass replaces
        if not reference.notify("gg/run.event", wire, droppable=True):
            break
        kept += 1
    assert 0 < kept < len(texts)
    assert held not in run.subscribers and not held.closed
    assert held.dropped_notifications == reference.dropped_notifications == 1
    assert held.pending_bytes == reference.pending_bytes <= SOFT_LIMIT
    assert _seqs(_messages(held)) == list(range(1, kept + 1))


async def test_stream_and_batching_connections_get_their_own_framing_of_a_pass() -> None:
    stream = Connection(transport="unix", framer=streams._FRAME)
    batching = Connection(transport="ws")
    assert batching.start_batching()
    run = _run(stream, batching)
    wires = [run.emit_delta("text_delta", t) for t in ("p", "q")]
    await _next_pass()
    bodies = batching.take_frames()
    assert [json.loads(b)["params"] for b in bodies] == wires  # bodies: the writer makes arrays
    data = b"".join(stream.take_frames())
    assert data == b"".join(framing.encode(b) for b in bodies)
    assert _parse_ws(text_frame(bodies[0]))[0]["params"] == wires[0]
