"""A lean in-process WebSocket client for the benches that drive many runs (bench/scale.py).

It records (receive time, raw frame) and parses after the run: tests/e2e/rpc_client.py rescans
every buffered notification per wait, which would make the bench's own client the bottleneck.
(bench/run_events.py measures fan-out with a raw-socket reader process per client instead,
bench/_ws_reader.py, so there the daemon and not this process is what is measured.)
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from typing import Any

from _common import TOKEN
from websockets.asyncio.client import ClientConnection, connect

TERMINAL_MARKERS = ('"type":"run_completed"', '"type":"run_failed"', '"type":"run_canceled"')
# A client that got nothing for this long after the run ended lost the tail.
IDLE_GIVE_UP_S = 3.0
MAX_WAIT_S = 120.0


class LeanClient:
    """A lean WebSocket client: records (receive time, raw frame) and parses after the run."""

    def __init__(self, batch: bool = False) -> None:
        self.batch = batch
        self.frames: list[tuple[float, str]] = []
        self.done = asyncio.Event()
        self.subscribed_ms = 0.0
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._acks: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)

    async def open(self, url: str) -> None:
        """Connect, initialize and start reading."""
        self._ws = await connect(
            url, additional_headers={"Authorization": f"Bearer {TOKEN}"}, max_size=2**25
        )
        self._reader = asyncio.create_task(self._read())
        params: dict[str, Any] = {"processId": None, "capabilities": {}}
        if self.batch:
            params["initializationOptions"] = {"batchFrames": True}
        result = await self.call("initialize", params)
        if self.batch and not result["capabilities"]["experimental"]["gg"].get("batchFrames"):
            raise RuntimeError("the daemon did not grant batchFrames")
        await self._ws.send(json.dumps({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

    async def subscribe(self, run_id: str) -> None:
        """gg/run.subscribe from the start of the run."""
        self.subscribed_ms = time.time() * 1000
        await self.call("gg/run.subscribe", {"runId": run_id, "afterSequence": 0})

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request and return its result (RuntimeError on an error answer)."""
        assert self._ws is not None
        mid = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._acks[mid] = fut
        await self._ws.send(
            json.dumps({"jsonrpc": "2.0", "id": mid, "method": method, "params": params})
        )
        resp = await asyncio.wait_for(fut, 15)
        if "error" in resp:
            raise RuntimeError(f"{method} failed: {resp['error']}")
        return resp.get("result")

    async def _read(self) -> None:
        assert self._ws is not None
        with contextlib.suppress(Exception):
            async for msg in self._ws:
                text = msg if isinstance(msg, str) else msg.decode()
                self.frames.append((time.time(), text))
                # Cheap checks on the hot path; full parsing waits until the run is over.
                if text[:1] == "[":  # a batch: responses may be inside
                    if '"id":' in text:
                        for resp in json.loads(text):
                            self._ack(resp)
                    if any(m in text for m in TERMINAL_MARKERS):
                        self.done.set()
                elif "gg/run.event" not in text[:80]:
                    self._ack(json.loads(text))
                elif any(m in text for m in TERMINAL_MARKERS):
                    self.done.set()

    def _ack(self, resp: dict[str, Any]) -> None:
        fut = self._acks.pop(resp.get("id"), None)
        if fut is not None and not fut.done():
            fut.set_result(resp)

    async def wait_done(self) -> bool:
        """Wait for the terminal event; False if the stream went idle without it."""
        deadline = time.monotonic() + MAX_WAIT_S
        seen = -1
        while time.monotonic() < deadline:
            try:
                await asyncio.wait_for(self.done.wait(), IDLE_GIVE_UP_S)
                return True
            except TimeoutError:
                if len(self.frames) == seen:
                    return False
                seen = len(self.frames)
        return False

    async def close(self) -> None:
        """Close the socket and stop reading."""
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()

    def events(self) -> list[tuple[float, dict[str, Any]]]:
        """(receive time in ms, event params) of every gg/run.event received."""
        out = []
        for t, text in self.frames:
            if text[:1] == "[":
                for msg in json.loads(text):
                    if msg.get("method") == "gg/run.event":
                        out.append((t * 1000, msg["params"]))
            elif "gg/run.event" in text[:80]:
                out.append((t * 1000, json.loads(text)["params"]))
        return out
