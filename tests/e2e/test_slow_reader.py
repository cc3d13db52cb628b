"""A client that stops reading mid-run loses no event: once it has read its backlog, ggd replays
what it missed from the run's ring and it follows live again (no request of its own needed)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from ggd.transport.framing import ContentLengthDecoder

from .runs_helpers import new_session

# ~2.4 MB of thinking in 60 kB deltas, then text: far past the 1 MiB a connection may have
# queued (the live events are paused there), well within the 4 MB the ring keeps.
FLOOD = {
    "thinking": ("y" * 99 + "\n") * 24_000,
    "chunkSize": 60_000,
    "text": "the end of a long think",
}


class _Raw:
    """A framed client over the Unix socket whose reading the test controls."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.ids = reader, writer, 0
        self.early: list[dict[str, Any]] = []  # notifications read while waiting for an answer
        self.decoder = ContentLengthDecoder()
        self.parsed: list[dict[str, Any]] = []

    async def send(self, method: str, params: Any, request: bool = True) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.ids += 1
            msg["id"] = self.ids
        data = json.dumps(msg).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        await self.writer.drain()

    async def message(self) -> dict[str, Any]:
        if self.early:
            return self.early.pop(0)
        return await self._read()

    async def _read(self) -> dict[str, Any]:
        while not self.parsed:  # read only when asked: the test decides when this client reads
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError("ggd closed the connection")
            self.parsed += [json.loads(b) for b in self.decoder.feed(data) if isinstance(b, bytes)]
        return self.parsed.pop(0)

    async def answer(self) -> dict[str, Any]:
        while "id" not in (msg := await self._read()):
            self.early.append(msg)
        return msg


async def test_a_reader_that_stops_gets_every_event_once_it_reads_again(
    fake_daemon: Any, workspace: Path
) -> None:
    d, _fm = fake_daemon([FLOOD])
    watcher = await d.connect("unix")
    # A small buffer: asyncio stops reading the socket past it, as a busy client would.
    reader, writer = await asyncio.open_unix_connection(str(d.socket), limit=2**16)
    slow = _Raw(reader, writer)
    try:
        await slow.send(
            "initialize", {"processId": None, "capabilities": {}, "rootUri": workspace.as_uri()}
        )
        await slow.answer()
        await slow.send("initialized", {}, request=False)
        sid = await new_session(watcher)
        await slow.send("gg/run.start", {"sessionId": sid, "prompt": "think hard"})
        run_id = (await slow.answer())["result"]["runId"]

        # The slow client reads nothing until the run is over (its live events pause at 1 MiB).
        async def done() -> bool:
            return bool(
                (await watcher.request("gg/run.get", {"runId": run_id}))["status"] != "running"
            )

        for _ in range(300):
            if await done():
                break
            await asyncio.sleep(0.05)
        assert "fell behind" in d.logs() or "paused" in d.logs()

        seqs: list[int] = []
        texts: list[str] = []
        async with asyncio.timeout(30):
            while True:
                msg = await slow.message()
                if msg.get("method") != "gg/run.event":
                    continue
                ev = msg["params"]
                if seqs and ev["sequence"] <= seqs[-1]:
                    continue  # a replayed duplicate: dropped by sequence, as clients do
                seqs.append(ev["sequence"])
                if ev["type"] == "text_delta":
                    texts.append(ev["text"])
                if ev["type"] == "run_completed":
                    break
        assert seqs == list(range(1, seqs[-1] + 1))  # every event, in order, none missing
        assert "".join(texts) == FLOOD["text"]
    finally:
        writer.close()
        await watcher.close()
