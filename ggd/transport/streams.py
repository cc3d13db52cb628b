"""Stream listeners: stdio and the Unix socket, both with LSP Content-Length framing."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from ggd.rpc import Connection
from ggd.rpc.connection import SharedFramer
from ggd.rpc.pieces import Buffer, spans

from .endpoint import App, Endpoint
from .framing import ContentLengthDecoder, encode, encode_many

log = logging.getLogger("ggd.transport")

# Writes buffers in order, as one piece of the stream; returns once the transport has taken them.
WriteFn = Callable[[list[Buffer]], Awaitable[None]]

# One framer for every stream connection: a fan-out frames each event once (see `SharedFramer`).
_FRAME = SharedFramer(encode, encode_many)


async def _writer_loop(conn: Connection, write: WriteFn) -> None:
    while True:
        frames = await conn.next_frames()
        if frames is None:
            return
        try:
            for buffers in spans(frames):  # a pass's frames joined; a big answer in groups
                await write(buffers)
        except (ConnectionError, OSError):
            conn.close()
            return
        conn.written(frames)


async def serve_stream(
    app: App,
    reader: asyncio.StreamReader,
    write: WriteFn,
    *,
    transport: str,
    version: str,
) -> int:
    """Run one framed connection until EOF, `exit`, or a broken stream; returns `exit`'s code."""
    conn = Connection(transport=transport, framer=_FRAME)
    endpoint = Endpoint(app, conn, version)
    app.connection_opened(conn)
    decoder = ContentLengthDecoder()
    writer_task = asyncio.create_task(_writer_loop(conn, write))
    log.info("connection opened", extra={"conn": conn.id, "transport": transport})
    try:
        while not conn.closed:
            read = asyncio.ensure_future(reader.read(65536))
            closed = asyncio.ensure_future(conn.closed_event.wait())
            done, _ = await asyncio.wait({read, closed}, return_when=asyncio.FIRST_COMPLETED)
            closed.cancel()
            if read not in done:
                read.cancel()
                break
            data = read.result()
            if not data:
                break
            for item in decoder.feed(data):
                endpoint.feed(item)
    except (ConnectionError, OSError):
        pass
    finally:
        conn.close()
        with contextlib.suppress(asyncio.TimeoutError, Exception):
            await asyncio.wait_for(writer_task, 2)
        writer_task.cancel()
        app.connection_closed(conn)
        log.info("connection closed", extra={"conn": conn.id, "transport": transport})
    return conn.exit_code


async def serve_stdio(app: App, *, version: str) -> int:
    """Serve exactly one client on stdin/stdout until EOF or `exit`; returns `exit`'s code."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    out_fd = sys.stdout.buffer.fileno()

    # Blocking writes on a dedicated thread keep the loop free even if the parent reads slowly.
    async def write(buffers: list[Buffer]) -> None:
        await asyncio.to_thread(_write_all, out_fd, buffers)

    return await serve_stream(app, reader, write, transport="stdio", version=version)


def _write_all(fd: int, buffers: list[Buffer]) -> None:
    for data in buffers:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]


class SocketInUseError(OSError):
    """The socket path is taken: a live daemon answers there, or it is not a socket at all."""


async def claim_socket_path(path: Path) -> None:
    """Remove a stale socket at `path`; refuse a live one or anything that is not a socket.

    Deleting the path unconditionally let `ggd --private --socket PATH` take over a running
    daemon's socket, cutting its clients off from it for good.
    """
    try:
        st = path.lstat()  # noqa: ASYNC240 - once, at startup
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(st.st_mode):
        raise SocketInUseError(f"{path} exists and is not a socket; choose another --socket path")
    try:
        _, writer = await asyncio.wait_for(asyncio.open_unix_connection(str(path)), 2)
    except (ConnectionRefusedError, FileNotFoundError):
        path.unlink(missing_ok=True)  # noqa: ASYNC240 - nobody listens: a crashed daemon's
        return
    except (OSError, TimeoutError):
        # Present but not answering normally (permissions, a full backlog): not ours to delete.
        raise SocketInUseError(f"{path} is in use or not accessible; not replacing it") from None
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    raise SocketInUseError(f"a daemon is already listening on {path}; not replacing its socket")


async def start_unix(app: App, path: Path, *, version: str) -> asyncio.AbstractServer:
    """Listen on a Unix socket (0600) and serve each client on its own connection."""

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await _serve_client(reader, writer)
        except asyncio.CancelledError:
            # Shutdown cancels client tasks; this is the task's top level, and on 3.11 asyncio's
            # stream callback would log a cancelled client task as an "Exception in callback".
            return

    async def _serve_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async def write(buffers: list[Buffer]) -> None:
            for data in buffers:  # the transport sends what the socket takes, buffers the rest
                writer.write(data)
            await writer.drain()

        try:
            await serve_stream(app, reader, write, transport="unix", version=version)
        except asyncio.CancelledError:
            # Shutdown (SIGTERM) cancels every task: the connection is over either way, and a
            # cancelled client task makes 3.11's start_unix_server callback log a traceback.
            pass
        finally:
            # A client that stopped reading would keep a graceful close waiting forever.
            if writer.transport.get_write_buffer_size() > 0:
                writer.transport.abort()
            else:
                writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 2)

    await claim_socket_path(path)
    old = os.umask(0o177)
    try:
        server = await asyncio.start_unix_server(on_client, path=str(path), limit=2**20)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    return server
