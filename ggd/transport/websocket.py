"""The WebSocket listener: /ws JSON-RPC (a message per text frame, or arrays when asked), /healthz, /health, the web UI."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import mimetypes
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

from ggd.compat.websockets import write_frames, writes_frames
from ggd.rpc import Connection
from ggd.rpc.connection import SharedFramer
from ggd.rpc.pieces import Buffer, Pieces, spans

from .endpoint import Endpoint
from .framing import MAX_MESSAGE_BYTES, HeaderTable
from .origins import normalize_origin, origin_of

log = logging.getLogger("ggd.transport")

SUBPROTOCOL = "gg.v1"
TOKEN_PREFIX = "gg-token."
# Headers the access checks read; a request must carry each at most once.
_SINGLE_HEADERS = ("Host", "Origin", "Authorization")
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self' ws://127.0.0.1:* ws://localhost:*; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)


def is_loopback_host(host: str) -> bool:
    """True for loopback names and addresses."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class WsOptions:
    """How the WebSocket listener authenticates and what it serves."""

    token: str
    host: str
    port: int
    allow_remote: bool = False
    web_root: Path | None = None
    version: str = "0"
    # Browser origins allowed besides the daemon's own (`--allow-origin`), already normalized.
    allowed_origins: frozenset[str] = frozenset()


def _host_of(value: str) -> str:
    try:
        return urlsplit("//" + value).hostname or ""
    except ValueError:  # e.g. "[evil": an unclosed IPv6 bracket
        return ""


def _bearer(headers: Headers) -> str | None:
    auth = headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    for proto in _offered_subprotocols(headers):
        if proto.startswith(TOKEN_PREFIX):
            return proto[len(TOKEN_PREFIX) :]
    return None


def _offered_subprotocols(headers: Headers) -> list[str]:
    out: list[str] = []
    for value in headers.get_all("Sec-WebSocket-Protocol"):
        out += [p.strip() for p in value.split(",") if p.strip()]
    return out


class WebSocketListener:
    """Owns the websockets server; builds one Endpoint per accepted connection."""

    def __init__(self, app: Any, opts: WsOptions) -> None:
        self.app = app
        self.opts = opts
        self.server: Server | None = None

    @property
    def port(self) -> int:
        """The bound port (useful with port 0)."""
        assert self.server is not None
        sock = next(iter(self.server.sockets))
        return int(sock.getsockname()[1])

    async def start(self) -> None:
        """Bind and listen."""
        self.server = await serve(
            self._handle,
            self.opts.host,
            self.opts.port,
            process_request=self._process_request,
            select_subprotocol=self._select_subprotocol,
            max_size=4 * MAX_MESSAGE_BYTES,
            max_queue=64,
            compression=None,
            server_header="ggd",
            close_timeout=2,
        )

    async def close(self) -> None:
        """Stop accepting and close every connection."""
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await self.server.wait_closed()

    # -- HTTP ---------------------------------------------------------------------------------

    def _own_origins(self) -> set[str]:
        """The origins of the pages ggd serves itself (the web UI, Electron's window)."""
        port = self.port
        hosts = {"127.0.0.1", "localhost", "::1", self.opts.host}
        return {origin_of("http", h, port) for h in hosts}

    def _origin_ok(self, origin: str | None) -> bool:
        """No Origin (not a browser), ggd's own, or one of `--allow-origin`; never `null`.

        Another loopback port is another program's page (a dev server, a local app showing web
        content), and `null` comes from any site's sandboxed iframe: both are refused. The token
        still guards every connection; this stops a page from trying.
        """
        if origin is None:
            return True
        normal = normalize_origin(origin)  # `null` and anything unparsable give None
        if normal is None:
            return False
        return normal in self._own_origins() or normal in self.opts.allowed_origins

    def _host_ok(self, host: str | None) -> bool:
        if host is None:
            return False
        name = _host_of(host)
        if is_loopback_host(name):
            return True
        return self.opts.allow_remote and name == self.opts.host

    def _token_ok(self, headers: Headers) -> bool:
        got = _bearer(headers)
        return got is not None and hmac.compare_digest(got.encode(), self.opts.token.encode())

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path).path
        for name in _SINGLE_HEADERS:
            # Headers.get() raises on repeats (an uncaught error was a 500); two values of a
            # header that decides access are ambiguous, so refuse them outright.
            if len(request.headers.get_all(name)) > 1:
                return _text(HTTPStatus.BAD_REQUEST, f"bad request: more than one {name} header\n")
        if not self._host_ok(request.headers.get("Host")):
            return _text(HTTPStatus.FORBIDDEN, "forbidden: unexpected Host header\n")
        if path == "/healthz":
            return _json(HTTPStatus.OK, {"status": "ok"})
        origin = request.headers.get("Origin")
        if not self._origin_ok(origin):
            log.warning("refused a cross-origin request", extra={"path": path})
            return _text(HTTPStatus.FORBIDDEN, "forbidden: this Origin may not use ggd\n")
        if path == "/health":
            if not self._token_ok(request.headers):
                return _text(HTTPStatus.UNAUTHORIZED, "unauthorized: missing or wrong token\n")
            return _json(HTTPStatus.OK, self.app.health())
        if path == "/ws":
            if not self._token_ok(request.headers):
                return _text(HTTPStatus.UNAUTHORIZED, "unauthorized: missing or wrong token\n")
            return None
        return self._static(path)

    def _select_subprotocol(
        self, connection: ServerConnection, subprotocols: Sequence[Subprotocol]
    ) -> Subprotocol | None:
        return Subprotocol(SUBPROTOCOL) if SUBPROTOCOL in subprotocols else None

    def _static(self, path: str) -> Response:
        root = self.opts.web_root
        if root is None or not (root / "index.html").is_file():
            return _html(
                HTTPStatus.OK,
                "<!doctype html><title>gg</title><p>ggd is running, but the web UI is not built."
                " Build it with <code>make ui</code>.</p>",
            )
        rel = path.lstrip("/") or "index.html"
        target = (root / rel).resolve()
        if not target.is_relative_to(root.resolve()) or not target.is_file():
            if "." in rel.rsplit("/", 1)[-1]:
                return _text(HTTPStatus.NOT_FOUND, "not found\n")
            target = root / "index.html"  # client-side routes fall back to the app
        ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        body = target.read_bytes()
        headers = Headers()
        headers["Content-Type"] = ctype + ("; charset=utf-8" if ctype.startswith("text/") else "")
        headers["Content-Length"] = str(len(body))
        headers["Content-Security-Policy"] = CSP
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Referrer-Policy"] = "no-referrer"
        headers["Cache-Control"] = "no-cache" if target.name == "index.html" else "max-age=3600"
        return Response(200, "OK", headers, body)

    # -- WebSocket ------------------------------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        remote_ip = (ws.remote_address or ("",))[0]
        conn = Connection(transport="ws", remote=not is_loopback_host(remote_ip))
        if writes_frames(ws):
            conn.wire = _FRAME  # until the client opts in to batchFrames
        endpoint = Endpoint(self.app, conn, self.opts.version)
        self.app.connection_opened(conn)

        writer = asyncio.create_task(self._writer(ws, conn))
        log.info("connection opened", extra={"conn": conn.id, "transport": "ws"})
        try:
            while not conn.closed:
                # A text frame's payload as the bytes that came (decode=False): the endpoint
                # checks and decodes UTF-8 once, as for the other transports.
                endpoint.feed(await ws.recv(decode=False))
        except ConnectionClosed:
            pass
        finally:
            conn.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 2)
            writer.cancel()
            self.app.connection_closed(conn)
            log.info("connection closed", extra={"conn": conn.id, "transport": "ws"})
            with contextlib.suppress(Exception):
                await ws.close()

    async def _writer(self, ws: ServerConnection, conn: Connection) -> None:
        loop = asyncio.get_running_loop()
        last_write = -FLUSH_INTERVAL_S
        own_frames = writes_frames(ws)
        while True:
            frames = await conn.next_frames()
            if frames is None:
                return
            wait = last_write + FLUSH_INTERVAL_S - loop.time()
            if wait > 0:
                # Written moments ago: the connection is streaming, so let the next few
                # milliseconds of messages join this write (one wake and one syscall per
                # interval, not per event). A quiet connection's message goes out at once.
                await asyncio.sleep(wait)
                frames += conn.take_frames()
            last_write = loop.time()
            try:
                if not own_frames:
                    await _send_messages(ws, frames, conn.batch_frames)
                else:
                    # Runs of whole frames joined, or (batching) bodies joined into array
                    # frames; a big answer (Pieces, a bare body) as fragments.
                    join = _batched if conn.wire is None else b"".join
                    for buffers in spans(frames, join, fragments):
                        await write_frames(ws, buffers)
            except ConnectionClosed:
                conn.close()
                return
            conn.written(frames)


# Server frames are never masked and this listener negotiates no extension (compression=None),
# so a text frame is a fixed header and the body: built here rather than by a websockets Frame
# object per message, which cost more than the rest of an event's path.
_SMALL_HEADERS = [bytes((0x81, n)) for n in range(126)]


def _header(n: int) -> bytes:
    if n < 126:
        return _SMALL_HEADERS[n]
    return _frame_head(0x81, n)


def _frame_head(b0: int, n: int) -> bytes:
    """An unmasked frame's header: FIN and opcode byte b0, then the payload length n."""
    if n < 126:
        return bytes((b0, n))
    if n < 65536:
        return bytes((b0, 0x7E)) + n.to_bytes(2, "big")
    return bytes((b0, 0x7F)) + n.to_bytes(8, "big")


def fragments(message: Pieces) -> list[list[Buffer]]:
    """A big text message as RFC 6455 fragments, each a header and its views (no copy).

    A text frame without FIN, continuation frames, the last with FIN: control frames
    websockets writes itself (a pong) may come between fragments (RFC 6455 5.4), never
    inside one, since a fragment's buffers are written without yielding to the loop.
    """
    groups = message.groups()
    last = len(groups) - 1
    out: list[list[Buffer]] = []
    for i, group in enumerate(groups):
        b0 = (0x80 if i == last else 0) | (0x1 if i == 0 else 0x0)
        out.append([_frame_head(b0, sum(map(len, group))), *group])
    return out


_HEADERS = HeaderTable(_header)


def text_frame(body: bytes) -> bytes:
    """One RFC 6455 unmasked, unfragmented text frame of a UTF-8 body."""
    return _HEADERS[len(body)] + body


def text_frames(bodies: list[bytes]) -> bytes:
    """RFC 6455 unmasked, unfragmented text frames of UTF-8 bodies, concatenated."""
    return _HEADERS.join(bodies)


# One framer for every WebSocket connection: a fan-out frames each event once (see `SharedFramer`),
# and a loop pass's deltas together (`text_frames`).
_FRAME = SharedFramer(text_frame, text_frames)


# The least time between two writes of a streaming connection: at most this much latency is
# added, and only when the connection wrote within the interval already.
FLUSH_INTERVAL_S = 0.002

# Upper bound of one array frame: well under the 1 MiB a websockets client takes by default.
BATCH_MAX_BYTES = 256 * 1024


def _batched(bodies: list[bytes]) -> bytes:
    """Bodies as the text frames of their JSON arrays (batchFrames), concatenated."""
    return text_frames(batch_frames(bodies))


def batch_frames(bodies: list[bytes]) -> list[bytes]:
    """Consecutive messages joined into JSON arrays of at most BATCH_MAX_BYTES, order kept.

    For connections that opted in: each array element is one whole JSON-RPC message, so every
    event keeps its own sequence; a message alone (or too big to share) goes as itself.
    """
    if len(bodies) < 2:
        return bodies
    if sum(map(len, bodies)) + len(bodies) + 1 <= BATCH_MAX_BYTES:
        return [b"[" + b",".join(bodies) + b"]"]  # the usual case: one array, joined in C
    out: list[bytes] = []
    group: list[bytes] = []
    size = 1
    for body in bodies:
        if group and size + len(body) + 1 > BATCH_MAX_BYTES:
            out.append(group[0] if len(group) == 1 else b"[" + b",".join(group) + b"]")
            group, size = [], 1
        group.append(body)
        size += len(body) + 1
    out.append(group[0] if len(group) == 1 else b"[" + b",".join(group) + b"]")
    return out


async def _send_messages(ws: ServerConnection, bodies: list[bytes | Pieces], batch: bool) -> None:
    """The same messages through websockets' public `send()`, for a websockets on which
    `ggd.compat.websockets` cannot write frames: one message per body (or array, batching),
    a Pieces as a fragmented message."""
    run: list[bytes] = []
    for body in [*bodies, None]:
        if isinstance(body, bytes):
            run.append(body)
            continue
        for message in batch_frames(run) if batch else run:
            await ws.send(message, text=True)
        run = []
        if body is not None:
            await ws.send([b"".join(group) for group in body.groups()], text=True)


def _text(status: HTTPStatus, body: str) -> Response:
    return _response(status, "text/plain; charset=utf-8", body.encode())


def _html(status: HTTPStatus, body: str) -> Response:
    return _response(status, "text/html; charset=utf-8", body.encode())


def _json(status: HTTPStatus, obj: Any) -> Response:
    return _response(status, "application/json", json.dumps(obj).encode())


def _response(status: HTTPStatus, ctype: str, body: bytes) -> Response:
    headers = Headers()
    headers["Content-Type"] = ctype
    headers["Content-Length"] = str(len(body))
    headers["X-Content-Type-Options"] = "nosniff"
    return Response(status.value, status.phrase, headers, body)
