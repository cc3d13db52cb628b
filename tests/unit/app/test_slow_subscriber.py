"""A subscriber that falls behind is paused, then resumed from the ring once it has caught up."""

from __future__ import annotations

from ggd.app.run import Run
from ggd.rpc.connection import DRAINED, SOFT_LIMIT, Connection

from .test_held_delivery import _messages, _next_pass, _run, _seqs, _ws


def _behind(conn: Connection) -> None:
    conn.send_raw(b'"' + b"f" * (SOFT_LIMIT - 5002) + b'"')  # an answer leaving ~5 KB of room


async def _fell_behind(follow: bool = True) -> tuple[Connection, Run]:
    conn = _ws()
    _behind(conn)
    run = _run(conn)
    if follow:
        conn.run_subs.add(run.id)  # what gg/run.subscribe records
    for _ in range(10):
        run.emit_delta("text_delta", "y" * 1000)
    await _next_pass()
    assert conn not in run.subscribers and not conn.closed  # paused, not closed
    return conn, run


async def test_a_paused_subscriber_gets_what_it_missed_once_it_has_read_its_backlog() -> None:
    conn, run = await _fell_behind()
    first = _seqs(_messages(conn))  # the writer wrote it all: the run resumes it right then
    assert conn in run.subscribers
    replayed = _seqs(_messages(conn))
    got = sorted(set(first + replayed))
    assert got == list(range(1, 11))  # every event; a duplicate at most, dropped by sequence
    run.emit_delta("text_delta", "live")
    await _next_pass()
    assert _seqs(_messages(conn)) == [11]  # and it follows live again


async def test_it_is_not_resumed_while_its_backlog_is_unwritten() -> None:
    conn, run = await _fell_behind()
    frames = conn.take_frames()  # the writer took the backlog but has not written it yet
    assert conn.pending_bytes > DRAINED and conn not in run.subscribers
    conn.written(frames)
    assert conn in run.subscribers


async def test_an_unsubscribed_or_closed_subscriber_is_not_resumed() -> None:
    gone, run = await _fell_behind(follow=False)  # gg/run.unsubscribe discards run_subs
    _messages(gone)
    assert gone not in run.subscribers
    closed, run2 = await _fell_behind()
    frames = closed.take_frames()
    closed.close()
    closed.written(frames)
    assert closed not in run2.subscribers


async def test_two_paused_runs_resume_one_backlog_at_a_time() -> None:
    conn = _ws()
    _behind(conn)
    runs = [_run(conn), _run(conn)]
    for run in runs:
        conn.run_subs.add(run.id)
        for _ in range(6):
            run.emit_delta("text_delta", "z" * 200_000)
    await _next_pass()
    assert all(conn not in run.subscribers for run in runs)
    conn.written(conn.take_frames())  # the first resumes: its replay is now queued
    assert [conn in run.subscribers for run in runs].count(True) == 1
    assert conn.pending_bytes > DRAINED and not conn.closed
    conn.written(conn.take_frames())  # that replay written: the second resumes
    assert all(conn in run.subscribers for run in runs) and not conn.closed
