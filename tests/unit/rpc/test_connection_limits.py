"""Connection's outbound limits: a client that stops reading is dropped; one big answer is not."""

from __future__ import annotations

from ggd.rpc.connection import HARD_LIMIT, SOFT_LIMIT, Connection


def test_one_answer_bigger_than_the_hard_limit_reaches_a_client_that_kept_up() -> None:
    conn = Connection(transport="test")
    assert conn.send_raw(b"e" * (SOFT_LIMIT // 2))  # some events not yet written
    big = b"x" * (HARD_LIMIT * 5)  # the snapshot of a 100k-entry session
    assert conn.send_raw(big) and not conn.closed
    assert conn.take_frames()[-1] is big


def test_a_client_that_stopped_reading_is_closed_past_the_hard_limit() -> None:
    conn = Connection(transport="test")
    chunk = b"r" * (256 * 1024)
    sent = 0
    while conn.send_raw(chunk):
        sent += 1
        assert sent * len(chunk) <= HARD_LIMIT
    assert conn.closed and sent * len(chunk) > SOFT_LIMIT


def test_events_behind_a_big_answer_are_judged_as_before_it() -> None:
    conn = Connection(transport="test")
    big = b"x" * (HARD_LIMIT + 1)
    assert conn.send_raw(big)
    assert conn.send_raw(b"event" * 100)  # a run's event while the answer is being written
    assert not conn.send_raw(b"d" * (SOFT_LIMIT + 1), droppable=True)  # shed as before
    frames = conn.take_frames()
    conn.written(frames)
    assert conn.send_raw(b"y" * (HARD_LIMIT - 1)) and not conn.closed  # nothing left counted


def test_a_second_big_answer_before_the_first_is_written_closes_the_connection() -> None:
    conn = Connection(transport="test")
    assert conn.send_raw(b"x" * (HARD_LIMIT + 1))
    assert not conn.send_raw(b"z" * (HARD_LIMIT + 1)) and conn.closed


def test_a_big_answer_to_a_client_already_behind_closes_the_connection() -> None:
    conn = Connection(transport="test")
    while conn.send_raw(b"r" * 1024 * 1024) and conn._pending <= SOFT_LIMIT:
        pass
    assert not conn.send_raw(b"x" * (HARD_LIMIT + 1)) and conn.closed
