"""A small asyncio gg protocol client for the adapters (`ggd --mcp`, `ggd --acp`): socket or child.

An adapter is a protocol client like the CLI: with a running daemon (GG_HOME/run/ggd.json and its
Unix socket) it attaches to it; otherwise it starts a private `ggd --stdio` child and talks over
its pipes. Either way runs go through the one runtime.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("ggd.adapter")

_HEADER_END = b"\r\n\r\n"
MAX_FRAME = 64 * 1024 * 1024


class GgRpcError(Exception):
    """An error response from ggd."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(str(error.get("message", "error")))
        self.code = error.get("code")
        self.symbol = (error.get("data") or {}).get("code")


class ServeError(Exception):
    """A JSON-RPC error a request handler answers ggd's request with."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


# Serves one of ggd's server->client requests (gg/client.*): (method, params) -> result.
RequestHandler = Callable[[str, Any], Awaitable[Any]]


def gg_home(env: dict[str, str] | None = None) -> Path:
    """GG_HOME, else ~/.gg."""
    value = (env or dict(os.environ)).get("GG_HOME")
    return Path(value).expanduser() if value else Path.home() / ".gg"


def live_socket(home: Path) -> str | None:
    """The running daemon's socket from its discovery file, if that daemon is alive."""
    try:
        info = json.loads((home / "run" / "ggd.json").read_text(encoding="utf-8"))
        pid, sock = int(info["pid"]), str(info["socket"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return sock if Path(sock).exists() else None


class GgClient:
    """One JSON-RPC connection to ggd with Content-Length framing."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: Any,
        proc: Any = None,
        on_request: RequestHandler | None = None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.proc = proc
        self.on_request = on_request
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._serving: dict[Any, asyncio.Task[None]] = {}  # ggd's requests being answered
        self._task = asyncio.create_task(self._read_loop())
        self.attached = proc is None

    @classmethod
    async def open(
        cls,
        workspace: Path,
        home: Path,
        name: str = "ggd --mcp",
        on_request: RequestHandler | None = None,
    ) -> GgClient:
        """Attach to the running daemon, else start a private `ggd --stdio` child."""
        sock = await asyncio.to_thread(live_socket, home)
        if sock is not None:
            try:
                reader, writer = await asyncio.open_unix_connection(sock, limit=MAX_FRAME)
                self = cls(reader, writer, on_request=on_request)
                await self.initialize(workspace, name)
                return self
            except OSError:
                pass
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "ggd.daemon",
            "--stdio",
            "--workspace",
            str(workspace),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=MAX_FRAME,
        )
        assert proc.stdout is not None and proc.stdin is not None
        self = cls(proc.stdout, proc.stdin, proc, on_request)
        await self.initialize(workspace, name)
        return self

    async def initialize(self, workspace: Path, name: str = "ggd --mcp") -> dict[str, Any]:
        """LSP initialize + initialized, rooted at the workspace."""
        result = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "clientInfo": {"name": name},
                "capabilities": {},
                "rootUri": workspace.as_uri(),  # resolved by the caller
            },
        )
        await self._send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        return dict(result)

    async def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
        self._writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await self._writer.drain()

    async def request(self, method: str, params: Any, within: float | None = 60.0) -> Any:
        """Send a request and wait for its result; an error response raises GgRpcError."""
        rid = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        try:
            await self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            async with asyncio.timeout(within):
                return await fut
        finally:
            self._pending.pop(rid, None)

    async def _read_loop(self) -> None:
        try:
            while True:
                header = await self._reader.readuntil(_HEADER_END)
                length = 0
                for line in header.decode("ascii", "replace").split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if not 0 < length <= MAX_FRAME:
                    raise ConnectionError("bad frame from ggd")
                msg = json.loads(await self._reader.readexactly(length))
                fut = self._pending.get(msg.get("id")) if "method" not in msg else None
                if fut is not None and not fut.done():
                    if "error" in msg:
                        fut.set_exception(GgRpcError(msg["error"]))
                    else:
                        fut.set_result(msg.get("result"))
                elif "method" in msg and "id" in msg:
                    self._serve(msg)
                elif msg.get("method") == "$/cancelRequest":
                    # ggd withdrew a request (a run cancel, bash's timeout): stop its work.
                    task = self._serving.get((msg.get("params") or {}).get("id"))
                    if task is not None:
                        task.cancel()
        except (
            asyncio.IncompleteReadError,
            ConnectionError,
            ValueError,
            asyncio.LimitOverrunError,
        ):
            pass
        finally:
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("the connection to ggd closed"))

    def _serve(self, msg: dict[str, Any]) -> None:
        rid = msg["id"]
        task = asyncio.create_task(self._answer(rid, str(msg["method"]), msg.get("params")))
        self._serving[rid] = task
        task.add_done_callback(lambda _t: self._serving.pop(rid, None))

    async def _answer(self, rid: Any, method: str, params: Any) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": rid}
        try:
            if self.on_request is None:
                raise ServeError(-32601, "not supported")
            reply["result"] = await self.on_request(method, params)
        except ServeError as exc:
            reply["error"] = {"code": exc.code, "message": str(exc)}
        except asyncio.CancelledError:
            reply["error"] = {"code": -32800, "message": "request cancelled"}
        except Exception:
            log.exception("answering ggd's %s failed", method)
            reply["error"] = {"code": -32603, "message": "the adapter failed; see its log"}
        # Answered even when ggd withdrew it: a late answer is expected and dropped there.
        with contextlib.suppress(ConnectionError, OSError):
            await self._send(reply)

    async def aclose(self) -> None:
        """Close the connection (and stop a private child)."""
        with contextlib.suppress(Exception):
            self._writer.close()
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task
        for task in list(self._serving.values()):
            task.cancel()
        if self.proc is not None:
            try:
                await asyncio.wait_for(self.proc.wait(), 10)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


__all__ = ["GgClient", "GgRpcError", "RequestHandler", "ServeError", "gg_home", "live_socket"]
