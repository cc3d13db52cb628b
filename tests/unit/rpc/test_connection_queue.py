"""Connection's outbound queue: shared per-event framing, the batchFrames switch, the limits."""

from __future__ import annotations

import asyncio
import json

from websockets.frames import Frame, Opcode

from ggd.app.run import Run
from ggd.protocol import encode_message
from ggd.rpc.connection import HARD_LIMIT, SOFT_LIMIT, Connection, SharedFramer
from ggd.transport import framing
from ggd.transport.websocket import _FRAME, text_frame


def _ws() -> Connection:
    conn = Connection(transport="ws")
    conn.wire = _FRAME
    return conn


def _run_with(*subs: Connection) -> Run:
    run = Run(session_id="s_1", interactive=False, approval_mode="yolo", model="m")
    run.subscribers.update(subs)
    return run


def test_one_event_is_framed_once_for_every_websocket_subscriber() -> None:
    a, b = _ws(), _ws()
    run = _run_with(a, b)
    wire = run.emit_delta("text_delta", "hé")
    (fa,), (fb,) = a.take_frames(), b.take_frames()
    assert fa is fb  # the same bytes object: built once
    body = encode_message({"jsonrpc": "2.0", "method": "gg/run.event", "params": wire})
    assert fa == Frame(Opcode.TEXT, body).serialize(mask=False, extensions=[])
    assert a.pending_bytes == len(fa)


def test_every_length_of_frame_matches_websockets() -> None:
    for size in (0, 125, 126, 65535, 65536):
        body = b"x" * size
        assert text_frame(body) == Frame(Opcode.TEXT, body).serialize(mask=False, extensions=[])


def test_the_shared_framer_never_hands_out_another_bodys_frame() -> None:
    frame = SharedFramer(framing.encode)
    one, two = b'{"a":1}', b'{"b":22}'
    assert frame(one) == framing.encode(one)
    assert frame(two) == framing.encode(two)
    assert frame(one) == framing.encode(one)


def test_responses_and_notifications_on_a_websocket_are_whole_frames_in_order() -> None:
    conn = _ws()
    conn.send_raw(b'{"id":1}')
    conn.notify("m", {"x": 1})
    frames = conn.take_frames()
    assert frames[0] == text_frame(b'{"id":1}')
    assert frames[1] == text_frame(
        encode_message({"jsonrpc": "2.0", "method": "m", "params": {"x": 1}})
    )


def test_batching_starts_only_on_an_empty_websocket_queue() -> None:
    busy = _ws()
    busy.send_raw(b'{"id":0}')
    assert not busy.start_batching()  # a frame is queued: it must go out as one
    assert busy.wire is _FRAME and not busy.batch_frames
    stream = Connection(transport="unix", framer=framing.encode)
    assert not stream.start_batching()
    fresh = _ws()
    assert fresh.start_batching()
    fresh.send_raw(b'{"id":1}')
    assert fresh.take_frames() == [b'{"id":1}']  # bodies: the writer joins them into arrays


def test_a_written_frame_no_longer_counts_and_batching_may_start() -> None:
    conn = _ws()
    conn.send_raw(b'{"id":0}')
    frames = conn.take_frames()
    assert not conn.start_batching()  # taken by the writer but not yet written
    conn.written(frames)
    assert conn.pending_bytes == 0 and conn.start_batching()


def test_a_subscriber_past_the_soft_limit_loses_its_live_subscription() -> None:
    slow, fast = _ws(), _ws()
    run = _run_with(slow, fast)
    sent = 0
    while slow in run.subscribers:
        run.emit_delta("text_delta", "y" * 1000)
        sent += 1
        fast.written(fast.take_frames())  # this one keeps up
        assert sent < 2 * SOFT_LIMIT // 1000
    assert slow.dropped_notifications == 1 and not slow.closed
    assert slow.pending_bytes <= SOFT_LIMIT < slow.pending_bytes + 1100
    assert fast in run.subscribers and fast.dropped_notifications == 0
    # Not droppable (a response, a replay): queued past the soft limit, closed past the hard one.
    assert slow.send_raw(b"z" * 1000)
    assert not slow.send_raw(b"z" * HARD_LIMIT)
    assert slow.closed


async def _parked(conn: Connection) -> None:
    """Yield to the loop until the writer waits on the empty queue (bounded)."""
    for _ in range(100):
        if conn._waiter is not None:
            return
        await asyncio.sleep(0)
    raise AssertionError("next_frames never waited")


async def test_the_writer_wakes_for_a_message_and_once_closed() -> None:
    conn = _ws()
    waiting = asyncio.create_task(conn.next_frames())
    await _parked(conn)
    conn.notify("m", {})
    frames = await asyncio.wait_for(waiting, 5)
    assert frames is not None and json.loads(frames[0][2:])["method"] == "m"
    conn.written(frames)
    waiting = asyncio.create_task(conn.next_frames())
    await _parked(conn)
    conn.close()
    assert await asyncio.wait_for(waiting, 5) is None


def test_an_answer_is_not_kept_by_the_shared_framer_and_leaves_the_fan_out_memo_alone() -> None:
    # An answer goes to one client: the memo would keep a tens-of-MB gg/session.open answer
    # alive until the next event, and evict the event the other subscribers are framing.
    a, b = _ws(), _ws()
    run = _run_with(a, b)
    run.emit_delta("text_delta", "x")
    event_body = _FRAME.body
    answer = b'{"id":7,"result":"' + b"y" * 100_000 + b'"}'
    assert a.send_raw(answer)
    assert _FRAME.body is event_body
    assert a.take_frames()[-1] == text_frame(answer)
