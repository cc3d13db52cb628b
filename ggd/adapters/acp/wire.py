"""ACP's transport: newline-delimited JSON-RPC 2.0 over stdin/stdout, both directions at once.

Requests from the client each run in their own task (a session/prompt stays open while
session/cancel arrives); the agent sends notifications and its own requests
(session/request_permission, fs/*) on the same stream and awaits their responses.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

log = logging.getLogger("ggd.acp")

MAX_LINE = 64 * 1024 * 1024

Handler = Callable[[str, Any], Awaitable[Any]]


class AcpError(Exception):
    """A JSON-RPC error to answer with (code, message)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


class PeerError(Exception):
    """The client answered one of our requests with an error."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(str(error.get("message", "error")))
        self.code = error.get("code")


class Connection:
    """One ACP connection: reads lines, dispatches them, and writes replies and requests."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        write: Callable[[bytes], None],
        on_request: Handler,
        on_notification: Handler,
        max_line: int = MAX_LINE,
    ) -> None:
        self._reader = reader
        self._max_line = max_line
        self._write = write
        self._on_request = on_request
        self._on_notification = on_notification
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def _send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        self._write(line.encode() + b"\n")

    def notify(self, method: str, params: Any) -> None:
        """Send a notification (e.g. session/update)."""
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any, within: float | None = None) -> Any:
        """Send a request to the client and await its result; an error raises PeerError."""
        rid = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            async with asyncio.timeout(within):
                return await fut
        finally:
            self._pending.pop(rid, None)

    async def serve(self) -> None:
        """Read until the client closes its end, then wait for the requests in flight."""
        try:
            async for line in self._lines():
                if line is None:
                    self._send(_error(None, -32600, "Message too large for ggd --acp"))
                elif line.strip():
                    self._dispatch(line)
        finally:
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("the ACP client closed the connection"))
            for task in list(self._tasks):
                task.cancel()
            for task in list(self._tasks):
                with contextlib.suppress(BaseException):
                    await task

    async def _lines(self) -> AsyncIterator[bytes | None]:
        """The stream's lines; None once for a line over max_line, whose bytes are dropped up
        to its newline (so its tail is never read as a message of its own)."""
        buf = bytearray()
        dropping = False
        while chunk := await self._reader.read(1 << 16):
            start = 0
            while (nl := chunk.find(b"\n", start)) >= 0:
                if not dropping and len(buf) + nl - start <= self._max_line:
                    buf += chunk[start:nl]
                    yield bytes(buf)
                else:
                    yield None
                buf.clear()
                dropping = False
                start = nl + 1
            if not dropping:
                buf += chunk[start:]
                if len(buf) > self._max_line:
                    buf.clear()
                    dropping = True
        if dropping:
            yield None
        elif buf:
            yield bytes(buf)

    def _dispatch(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            self._send(_error(None, -32700, "Parse error: each line must be one JSON-RPC message"))
            return
        if not isinstance(msg, dict):
            self._send(_error(None, -32600, "Invalid Request: expected a JSON object"))
            return
        if "method" not in msg:
            fut = self._pending.get(msg.get("id"))  # type: ignore[arg-type]
            if fut is not None and not fut.done():
                if "error" in msg:
                    fut.set_exception(PeerError(msg["error"] or {}))
                else:
                    fut.set_result(msg.get("result"))
            return
        task = asyncio.create_task(self._handle(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, msg: dict[str, Any]) -> None:
        method, rid, params = str(msg["method"]), msg.get("id"), msg.get("params") or {}
        if rid is None:
            try:
                await self._on_notification(method, params)
            except Exception:
                log.exception("ACP notification %s failed", method)
            return
        try:
            result = await self._on_request(method, params)
        except AcpError as exc:
            self._send(_error(rid, exc.code, str(exc), exc.data))
        except asyncio.CancelledError:
            self._send(_error(rid, -32800, "Request cancelled"))
            raise
        except Exception:
            log.exception("ACP request %s failed", method)
            self._send(_error(rid, -32603, "Internal error in gg; see the ggd log"))
        else:
            self._send({"jsonrpc": "2.0", "id": rid, "result": result})


def _error(rid: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": rid, "error": err}


async def stdio() -> tuple[asyncio.StreamReader, Callable[[bytes], None]]:
    """stdin as a StreamReader and a non-blocking writer to stdout."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    try:
        transport, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout)
    except (OSError, ValueError):  # stdout is a regular file: plain writes cannot block long
        out = sys.stdout.buffer

        def write(data: bytes) -> None:
            out.write(data)
            out.flush()

        return reader, write
    return reader, transport.write


__all__ = ["AcpError", "Connection", "PeerError", "stdio"]
