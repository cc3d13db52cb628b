"""A WebSocket text frame reaches the guard as the bytes that came, as on the other transports."""

from __future__ import annotations

import asyncio
import json

from websockets.asyncio.client import connect

from .daemon import TOKEN, Daemon

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"processId": None, "rootUri": None, "capabilities": {}},
}


async def test_a_text_frame_that_is_not_utf8_is_a_parse_error_and_the_connection_survives(
    daemon: Daemon,
) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with connect(daemon.ws_url, additional_headers=headers) as ws:
        for bad in (b"\xff", b"\xed\xa0\x80", b"\xc0\xaf"):
            body = b'{"jsonrpc":"2.0","id":"u","method":"gg/session.create","params":{"name":"x'
            # a text frame whose payload is not UTF-8 (websockets sends bytes as they are)
            await ws.send(body + bad + b'"}}', text=True)
            reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert reply["id"] is None and reply["error"]["code"] == -32700, reply
            assert "UTF-8" in reply["error"]["message"]
        await ws.send(json.dumps(INITIALIZE))
        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert reply["id"] == 1 and "gg" in reply["result"]["capabilities"]["experimental"]
