"""A big answer as Pieces: the same bytes as encoding it whole, cut into groups without copies."""

from __future__ import annotations

import json
import random

import msgspec
import pytest

from ggd.rpc.connection import HARD_LIMIT, SOFT_LIMIT, Connection
from ggd.rpc.pieces import Pieces, spans
from ggd.rpc.responses import SPLICE_MIN, encode_fast
from ggd.transport.websocket import _FRAME


def _whole(msg_id: int, result: dict[str, object]) -> bytes:
    return msgspec.json.encode({"id": msg_id, "jsonrpc": "2.0", "result": result})


def _list_raw(n: int) -> msgspec.Raw:
    """A raw JSON list of n messages, as the snapshot file splices one (a view of a buffer)."""
    items = [{"role": "user", "content": f"message {i} " + "é" * (i % 7)} for i in range(n)]
    data = b"xx" + msgspec.json.encode(items) + b"yy"
    return msgspec.Raw(memoryview(data)[2:-2])


@pytest.mark.parametrize("limit", [1, 7, 64, 1000])
def test_groups_hold_every_byte_in_order_and_at_most_the_limit_each(limit: int) -> None:
    rng = random.Random(limit)
    parts = [rng.randbytes(rng.randrange(0, 300)) for _ in range(30)]
    pieces = Pieces(parts)
    groups = pieces.groups(limit)
    assert b"".join(b"".join(g) for g in groups) == b"".join(parts) == bytes(pieces)
    sizes = [sum(map(len, g)) for g in groups]
    assert sum(sizes) == len(pieces) and all(0 < s <= limit for s in sizes)
    assert all(s == limit for s in sizes[:-1])  # full groups: as few writes as the limit allows


def test_a_long_part_is_cut_into_views_of_itself_not_copies() -> None:
    long = bytes(range(256)) * 4000
    groups = Pieces([b"head", long, b"tail"]).groups(100_000)
    views = [b for g in groups for b in g if isinstance(b, memoryview)]
    assert views and all(v.obj is long for v in views)


def test_spans_join_runs_of_frames_and_write_pieces_group_by_group() -> None:
    pieces = Pieces([b"<", b"p" * 600_000, b">"])
    writes = list(spans([b"a", b"b", pieces, b"c"]))
    assert writes[0] == [b"ab"] and writes[-1] == [b"c"]
    assert b"".join(b"".join(w) for w in writes[1:-1]) == bytes(pieces)
    assert len(writes) == 2 + len(pieces.groups())


def test_a_take_without_pieces_is_one_write_joined_as_the_writer_joins() -> None:
    seen: list[list[bytes]] = []

    def join(frames: list[bytes]) -> bytes:
        seen.append(list(frames))
        return b"|".join(frames)

    assert list(spans([b"a", b"b", b"c"], join)) == [[b"a|b|c"]]
    assert seen == [[b"a", b"b", b"c"]]  # the whole take in one call (batchFrames' arrays)
    assert list(spans([], join)) == []  # nothing queued: no write
    pieces = Pieces([b"<", b"p" * 10, b">"])
    assert list(spans([b"a", pieces], join)) == [[b"a"], list(pieces.parts)]


def test_a_result_with_a_long_raw_list_is_the_whole_encoding_in_pieces() -> None:
    messages, tree = _list_raw(3000), _list_raw(2000)
    assert len(messages) >= SPLICE_MIN and len(tree) >= SPLICE_MIN
    result = {"sessionId": "s\x00id", "messages": messages, "name": "é", "tree": tree, "n": 1}
    body = encode_fast(3, result)
    assert isinstance(body, Pieces)
    assert bytes(body) == _whole(3, result)
    assert json.loads(bytes(body))["result"]["sessionId"] == "s\x00id"  # escaped, not a cut
    # the lists are views of the spliced buffers, not copies of them
    assert [p.obj for p in body.parts if isinstance(p, memoryview)] == [messages, tree]


def test_short_raw_values_and_a_raw_nul_are_encoded_whole() -> None:
    small = {"messages": msgspec.Raw(b"[1,2]"), "tree": msgspec.Raw(b"[]")}
    assert encode_fast(1, small) == _whole(1, small)
    odd = {"messages": _list_raw(3000), "x": msgspec.Raw(b'"\x00"')}  # not msgspec's own text
    assert encode_fast(1, odd) == _whole(1, odd)


def test_a_websocket_connection_queues_pieces_unframed_and_counts_their_length() -> None:
    conn = Connection(transport="ws", wire=_FRAME)
    assert conn.send_raw(b"e" * (SOFT_LIMIT // 2))
    big = Pieces([b"{", b"x" * (HARD_LIMIT * 2), b"}"])
    assert conn.send_raw(big) and not conn.closed  # one big answer to a client that kept up
    assert conn.send_raw(b"event")  # judged as if the answer were not there
    frames = conn.take_frames()
    assert frames[1] is big  # the writer frames it (fragments), not the queue
    conn.written(frames)
    assert conn.pending_bytes == 0
