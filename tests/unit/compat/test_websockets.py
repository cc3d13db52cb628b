"""ggd.compat.websockets over a real websockets connection: the fast path and the public fallback.

The first test fails loudly when a websockets upgrade removes what the adapter writes frames
through; the listener would still work (through `send()`), only slower.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from ggd.compat.websockets import write_frames, writes_frames
from ggd.rpc.pieces import Pieces
from ggd.transport.websocket import _send_messages, fragments, text_frames

BODIES = [b'{"a":1}', json.dumps({"t": "\u00e9" * 300}).encode(), b'{"z":"' + b"y" * 70_000 + b'"}']


async def _received(send: Callable[[ServerConnection], Awaitable[None]], n: int) -> list[Any]:
    """What a websockets client receives (as text) from a server that runs `send` on accept."""
    checked: list[bool] = []

    async def handler(ws: ServerConnection) -> None:
        checked.append(writes_frames(ws))
        await send(ws)
        await ws.wait_closed()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", compression=None) as client:
            got = [await asyncio.wait_for(client.recv(), 10) for _ in range(n)]
    assert all(isinstance(m, str) for m in got)
    return [checked[0], *got]


async def test_this_websockets_lets_gg_write_its_own_frames() -> None:
    async def send(ws: ServerConnection) -> None:
        await write_frames(ws, [text_frames(BODIES)])

    fast, *got = await _received(send, len(BODIES))
    assert fast, "websockets changed: ggd/compat/websockets.py can no longer write frames"
    assert [m.encode() for m in got] == BODIES


async def test_a_big_answer_goes_as_fragments_of_one_message() -> None:
    big = Pieces([b'{"x":"', b"q" * 600_000, b'"}'])

    async def send(ws: ServerConnection) -> None:
        for buffers in fragments(big):
            await write_frames(ws, buffers)

    _fast, got = await _received(send, 1)
    assert got.encode() == bytes(big)


async def test_the_public_fallback_sends_the_same_messages() -> None:
    big = Pieces([b'{"x":"', b"q" * 600_000, b'"}'])

    async def send(ws: ServerConnection) -> None:
        await _send_messages(ws, [*BODIES, big, b'{"b":2}'], batch=False)
        await _send_messages(ws, [b'{"c":3}', b'{"d":4}'], batch=True)

    _fast, *got = await _received(send, len(BODIES) + 3)
    assert [m.encode() for m in got[:-1]] == [*BODIES, bytes(big), b'{"b":2}']
    assert json.loads(got[-1]) == [{"c": 3}, {"d": 4}]
