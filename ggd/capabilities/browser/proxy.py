"""The guard proxy: the one door between Chromium and the network.

Chromium is started with `--proxy-server` pointing here and `--proxy-bypass-list=<-loopback>`, so
every request it makes (each redirect hop, subresources, frames, workers, WebSockets, its own
background traffic) reaches this proxy with the URL Chromium itself computed: already parsed the
WHATWG way, so `/\\host`, `http:\\\\host` and friends arrive as the plain host they became. Each one
is checked against the guard before a byte leaves, and the connection goes to the very addresses
that were checked (no second DNS lookup a rebinding server could answer differently).

Plain `http://` requests arrive in absolute form; they are forwarded one per connection with
`Connection: close` both ways, so Chromium never sends a second request down a connection opened
for another host. `https://` and WebSockets arrive as `CONNECT host:port` and are tunnelled once
the host passed; TLS stays end to end between Chromium and the site.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from .ssrf import BlockedURLError, Guard

log = logging.getLogger("ggd.browser")

# host, port -> the addresses to connect to (BlockedURLError when refused).
Checker = Callable[[str, int], Awaitable[list[str]]]

HEAD_LIMIT = 64 * 1024
_HOP_HEADERS = {b"connection", b"proxy-connection", b"keep-alive", b"proxy-authorization"}


@dataclass(frozen=True)
class Blocked:
    """A request the proxy refused: its target as Chromium asked for it, host, port and why."""

    target: str
    host: str
    port: int
    reason: str


class GuardProxy:
    """An HTTP proxy on 127.0.0.1 that lets through only what `check` allows."""

    def __init__(self, check: Checker, timeout: float) -> None:
        self.check = check
        self.timeout = timeout
        self.blocked: list[Blocked] = []
        self.port = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        """Listen on a free loopback port; returns it."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=HEAD_LIMIT)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self.port

    async def close(self) -> None:
        """Stop listening and cut every open connection."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._one(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        except TimeoutError:
            pass
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.timeout)
        lines = head[:-4].split(b"\r\n")
        parts = lines[0].split(b" ")
        if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
            await _answer(writer, 400, "not an HTTP/1.x proxy request")
            return
        method = parts[0].decode("ascii", "replace")
        target = parts[1].decode("ascii", "replace")
        try:
            if method == "CONNECT":
                host, port = _authority(target)
            else:
                _scheme, host, port = _plain_target(target)
            addresses = await self.check(host, port)
        except BlockedURLError as exc:
            await self._refuse(writer, target, str(exc))
            return
        upstream = await _connect(addresses, port, self.timeout)
        if upstream is None:
            await _answer(writer, 502, f"cannot connect to {host}:{port}")
            return
        up_reader, up_writer = upstream
        try:
            if method == "CONNECT":
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                await writer.drain()
                await _tunnel(reader, writer, up_reader, up_writer)
            else:
                await self._forward(lines, target, reader, writer, up_reader, up_writer)
        finally:
            up_writer.close()

    async def _forward(
        self,
        lines: list[bytes],
        target: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        up_reader: asyncio.StreamReader,
        up_writer: asyncio.StreamWriter,
    ) -> None:
        split = urlsplit(target)
        path = (split.path or "/") + (f"?{split.query}" if split.query else "")
        method = lines[0].split(b" ")[0]
        length = 0
        out = [method + b" " + path.encode("ascii", "replace") + b" HTTP/1.1"]
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            key = name.strip().lower()
            if key == b"transfer-encoding":
                await _answer(writer, 501, "streamed request bodies are not supported")
                return
            if key == b"content-length":
                length = int(value.strip())
            if key not in _HOP_HEADERS:
                out.append(line)
        out.append(b"Connection: close")
        up_writer.write(b"\r\n".join(out) + b"\r\n\r\n")
        if length:
            up_writer.write(await asyncio.wait_for(reader.readexactly(length), self.timeout))
        await up_writer.drain()
        # The answer's head gets `Connection: close` too, then the body is copied to the end.
        head = await asyncio.wait_for(up_reader.readuntil(b"\r\n\r\n"), self.timeout)
        rows = [
            r
            for r in head[:-4].split(b"\r\n")
            if r.split(b":")[0].strip().lower() not in _HOP_HEADERS
        ]
        writer.write(b"\r\n".join([*rows, b"Connection: close"]) + b"\r\n\r\n")
        await _copy(up_reader, writer, self.timeout)

    async def _refuse(self, writer: asyncio.StreamWriter, target: str, reason: str) -> None:
        host, port = _host_port(target)
        self.blocked.append(Blocked(target[:2048], host, port, reason))
        log.info("browser request blocked", extra={"reason": reason})
        body = f"gg's SSRF guard blocked this request: {reason}\n".encode()
        writer.write(
            b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Cache-Control: no-store\r\nConnection: close\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        await writer.drain()


def _authority(target: str) -> tuple[str, int]:
    """host, port of a CONNECT target, validated as the guard validates any host."""
    if "/" in target or "@" in target:
        raise BlockedURLError("not a valid CONNECT target")
    _scheme, host, port = Guard.parse(f"https://{target}/")
    if urlsplit(f"//{target}").port is None:
        raise BlockedURLError("a CONNECT target needs a port")
    return host, port


def _plain_target(target: str) -> tuple[str, str, int]:
    """scheme, host, port of an absolute-form http:// request (https comes as CONNECT)."""
    if not target.lower().startswith("http://"):
        raise BlockedURLError("only http:// requests and CONNECT go through this proxy")
    return Guard.parse(target)


def _host_port(target: str) -> tuple[str, int]:
    """Best-effort host and port of a refused target, for matching it to a page's URL."""
    with contextlib.suppress(BlockedURLError, ValueError):
        if "://" in target:
            _scheme, host, port = Guard.parse(target)
            return host, port
        return _authority(target)
    return "", 0


async def _connect(
    addresses: list[str], port: int, seconds: float
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    for address in addresses:
        with contextlib.suppress(OSError, TimeoutError):
            return await asyncio.wait_for(asyncio.open_connection(address, port), seconds)
    return None


async def _copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter, idle: float | None) -> None:
    while True:
        chunk = await (asyncio.wait_for(src.read(65536), idle) if idle else src.read(65536))
        if not chunk:
            return
        dst.write(chunk)
        await dst.drain()


async def _tunnel(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    """Copy both ways until either side ends (tunnels may idle: a WebSocket, HTTP/2)."""
    tasks = [
        asyncio.ensure_future(_copy(reader, up_writer, None)),
        asyncio.ensure_future(_copy(up_reader, writer, None)),
    ]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _answer(writer: asyncio.StreamWriter, status: int, why: str) -> None:
    body = f"{why}\n".encode()
    writer.write(
        f"HTTP/1.1 {status} {why[:40]}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
