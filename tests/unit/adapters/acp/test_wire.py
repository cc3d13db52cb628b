"""ACP's line transport: a message past the size limit is refused once, whole, and the
connection goes on with the next line (its tail is never read as a message of its own)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ggd.adapters.acp.wire import Connection


async def test_an_oversized_line_is_one_error_and_the_next_message_is_served() -> None:
    reader = asyncio.StreamReader()
    sent: list[dict[str, Any]] = []

    async def on_request(method: str, params: Any) -> Any:
        return {"method": method}

    async def on_notification(method: str, params: Any) -> None:
        return None

    conn = Connection(
        reader, lambda b: sent.append(json.loads(b)), on_request, on_notification, max_line=100
    )
    serving = asyncio.create_task(conn.serve())

    async def until(n: int) -> None:
        async with asyncio.timeout(5):
            while len(sent) < n:
                await asyncio.sleep(0.01)

    def request(rid: int, method: str) -> bytes:
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method}).encode() + b"\n"

    reader.feed_data(request(1, "first"))
    await until(1)
    # Too long, arriving in pieces: the limit is crossed before its newline is seen.
    for _ in range(3):
        reader.feed_data(b'{"pad": "' + b"x" * 60)
        await asyncio.sleep(0.01)
    reader.feed_data(b'"}\n' + request(2, "second"))
    await until(3)
    # Too long and whole in one chunk, then a message in the same chunk.
    reader.feed_data(b"y" * 150 + b"\n" + request(3, "third"))
    await until(5)
    reader.feed_eof()
    await serving
    assert [m.get("result") for m in sent if "result" in m] == [
        {"method": "first"},
        {"method": "second"},
        {"method": "third"},
    ]
    errors = [m["error"] for m in sent if "error" in m]
    assert [e["code"] for e in errors] == [-32600, -32600], sent
    assert all("too large" in e["message"] for e in errors)


async def test_a_last_line_without_a_newline_is_still_read() -> None:
    reader = asyncio.StreamReader()
    sent: list[dict[str, Any]] = []

    async def ignore(method: str, params: Any) -> None:
        return None

    conn = Connection(reader, lambda b: sent.append(json.loads(b)), ignore, ignore, max_line=100)
    reader.feed_data(b"[1, 2]\n" + b"{not json")  # the last line ends with the stream
    reader.feed_eof()
    await conn.serve()
    assert [m["error"]["code"] for m in sent] == [-32600, -32700], sent
