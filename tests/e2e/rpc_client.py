"""A test client for ggd over stdio, the Unix socket or WebSocket, generic over the method table.

It buffers every notification so a test can wait for one by predicate, with a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

NO_REPLY = object()  # on_request's answer for "leave this request unanswered"


class RpcError(Exception):
    """An error response."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.code = error.get("code")
        self.message = error.get("message", "")
        self.data = error.get("data") or {}
        self.symbol = self.data.get("code")


class RpcClient:
    """One JSON-RPC connection to ggd."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._pending: dict[Any, asyncio.Future[Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        self.orphans: list[dict[str, Any]] = []
        # Requests the server sent us, and who answers them (method, params) -> result.
        self.server_requests: list[dict[str, Any]] = []
        self.on_request: Callable[[str, Any], Any] | None = None
        self._cond = asyncio.Condition()
        self._reader: asyncio.Task[None] | None = None
        self._send_raw: Callable[[bytes], Any] | None = None
        self._close: Callable[[], Any] | None = None
        self.proc: asyncio.subprocess.Process | None = None
        self.ws: ClientConnection | None = None  # the WebSocket itself, on that transport
        self.closed = asyncio.Event()
        # WebSocket frames received, and how many were JSON arrays (initializationOptions
        # batchFrames): each element of one is a whole message, handled in order.
        self.frames_received = 0
        self.batches_received = 0

    # -- constructors ------------------------------------------------------------------------

    @classmethod
    async def stdio(cls, args: list[str], env: dict[str, str], cwd: str | None = None) -> RpcClient:
        """Spawn `ggd --stdio` and talk to it over pipes."""
        self = cls()
        proc = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        self.proc = proc
        assert proc.stdin and proc.stdout

        async def send(data: bytes) -> None:
            assert proc.stdin
            proc.stdin.write(data)
            await proc.stdin.drain()

        async def close() -> None:
            if proc.stdin and not proc.stdin.is_closing():
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except TimeoutError:
                proc.kill()
                await proc.wait()

        self._send_raw, self._close = send, close
        self._reader = asyncio.create_task(self._read_framed(proc.stdout))
        return self

    @classmethod
    async def unix(cls, path: str | Path) -> RpcClient:
        """Connect to the daemon's Unix socket."""
        self = cls()
        reader, writer = await asyncio.open_unix_connection(str(path), limit=2**24)

        async def send(data: bytes) -> None:
            writer.write(data)
            await writer.drain()

        async def close() -> None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

        self._send_raw, self._close = send, close
        self._reader = asyncio.create_task(self._read_framed(reader))
        return self

    @classmethod
    async def ws(cls, url: str, token: str | None, **kw: Any) -> RpcClient:
        """Connect over WebSocket with a bearer token."""
        self = cls()
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        ws: ClientConnection = await connect(url, additional_headers=headers, max_size=2**25, **kw)
        self.framed = False
        self.ws = ws  # for WebSocket-level steps (a ping while an answer streams)

        async def send(data: bytes) -> None:
            await ws.send(data.decode())

        async def close() -> None:
            await ws.close()

        self._send_raw, self._close = send, close
        self._reader = asyncio.create_task(self._read_ws(ws))
        return self

    # -- io ----------------------------------------------------------------------------------

    framed = True

    def _frame(self, body: bytes) -> bytes:
        return b"Content-Length: %d\r\n\r\n" % len(body) + body if self.framed else body

    async def send_body(self, body: bytes) -> None:
        """Send one raw message body (framed as the transport needs)."""
        assert self._send_raw is not None
        await self._send_raw(self._frame(body))

    async def send_bytes(self, data: bytes) -> None:
        """Send raw bytes with no framing added."""
        assert self._send_raw is not None
        await self._send_raw(data)

    async def _read_framed(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                length = None
                while True:
                    line = await reader.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    k, _, v = line.partition(b":")
                    if k.strip().lower() == b"content-length":
                        length = int(v)
                assert length is not None
                body = await reader.readexactly(length)
                await self._dispatch(json.loads(body))
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            self.closed.set()

    async def _read_ws(self, ws: ClientConnection) -> None:
        try:
            async for msg in ws:
                self.frames_received += 1
                decoded = json.loads(msg)
                if isinstance(decoded, list):
                    self.batches_received += 1
                    for one in decoded:
                        await self._dispatch(one)
                else:
                    await self._dispatch(decoded)
        except Exception:
            return
        finally:
            self.closed.set()

    async def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg and "id" not in msg:
            async with self._cond:
                self.notifications.append(msg)
                self._cond.notify_all()
            return
        if "method" in msg:  # server -> client request: on_request answers (default null)
            async with self._cond:
                self.server_requests.append(msg)
                self._cond.notify_all()
            result = self.on_request(msg["method"], msg.get("params")) if self.on_request else None
            if result is NO_REPLY:  # the test plays a client that never answers
                return
            await self.send_body(
                json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode()
            )
            return
        fut = self._pending.pop(msg.get("id"), None)
        if fut is None:
            async with self._cond:
                self.orphans.append(msg)
                self._cond.notify_all()
        elif not fut.done():
            fut.set_result(msg)

    # -- api ---------------------------------------------------------------------------------

    async def raw_request(
        self, method: str, params: Any = None, timeout: float = 15
    ) -> dict[str, Any]:
        """Send a request and return the whole response message."""
        mid = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[mid] = fut
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": mid, "method": method}
        if params is not None:
            msg["params"] = params
        await self.send_body(json.dumps(msg).encode())
        return await asyncio.wait_for(fut, timeout)

    async def request(self, method: str, params: Any = None, timeout: float = 15) -> Any:
        """Send a request; return its result or raise RpcError."""
        resp = await self.raw_request(method, params, timeout)
        if "error" in resp:
            raise RpcError(resp["error"])
        return resp.get("result")

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification."""
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        await self.send_body(json.dumps(msg).encode())

    async def initialize(
        self,
        root: Path | None = None,
        name: str = "tests",
        capabilities: dict[str, Any] | None = None,
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """LSP initialize + initialized (options: initializationOptions)."""
        params: dict[str, Any] = {
            "processId": None,
            "clientInfo": {"name": name},
            "capabilities": capabilities or {},
        }
        if options is not None:
            params["initializationOptions"] = options
        if root is not None:
            params["rootUri"] = root.resolve().as_uri()
        result = await self.request("initialize", params)
        await self.notify("initialized", {})
        return dict(result)

    async def wait_for(
        self,
        method: str,
        pred: Callable[[dict[str, Any]], bool] = lambda p: True,
        timeout: float = 15,
        start: int = 0,
    ) -> dict[str, Any]:
        """The params of the first buffered-or-future notification that matches."""

        async def find() -> dict[str, Any]:
            async with self._cond:
                while True:
                    for n in self.notifications[start:]:
                        if n["method"] == method and pred(n["params"]):
                            return dict(n["params"])
                    await self._cond.wait()

        return await asyncio.wait_for(find(), timeout)

    async def wait_request(self, method: str, timeout: float = 15) -> dict[str, Any]:
        """The params of the first server -> client request of a method (already sent or not)."""

        async def find() -> dict[str, Any]:
            async with self._cond:
                while True:
                    for r in self.server_requests:
                        if r["method"] == method:
                            return dict(r.get("params") or {})
                    await self._cond.wait()

        return await asyncio.wait_for(find(), timeout)

    def events(
        self, method: str = "gg/run.event", run_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Buffered notification params of one method (optionally of one run)."""
        out = [n["params"] for n in self.notifications if n["method"] == method]
        return [p for p in out if run_id is None or p.get("runId") == run_id]

    async def close(self) -> None:
        """Close the connection (and the child, for stdio)."""
        if self._close is not None:
            await self._close()
        if self._reader is not None:
            self._reader.cancel()
