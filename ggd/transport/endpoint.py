"""Turn raw message bodies into calls on one connection's pygls protocol."""

from __future__ import annotations

import logging
from collections.abc import Callable, Container
from typing import Any, Protocol

from cattrs import Converter
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter

from ggd.protocol import errors as E
from ggd.rpc import Connection, Dispatcher, GgProtocol, envelope
from ggd.rpc.handshake import Handshake

from . import guard
from .framing import MAX_MESSAGE_BYTES, BadHeader, Oversized

log = logging.getLogger("ggd.transport")


class App(Protocol):
    """What the listeners call into: the daemon's hub (`ggd.rpc.hub.Hub`)."""

    # Every gg/* request the daemon's one method table serves (the gate's "known methods").
    known: Container[str]

    def connection_opened(self, conn: Connection) -> None:
        """A client connected."""
        ...

    def connection_closed(self, conn: Connection) -> None:
        """A client went away."""
        ...

    def health(self) -> dict[str, Any]:
        """The authenticated /health report."""
        ...

    def bind(self, server: LanguageServer, conn: Connection) -> Dispatcher:
        """Set up a new connection's protocol; returns the dispatcher of its gg/* requests."""
        ...


_CONVERTER: Converter | None = None


def _shared_converter() -> Converter:
    # cattrs generates (un)structure code per converter; one per connection cost ~15 ms at
    # every initialize. The converter holds no per-connection state, so all endpoints share one.
    global _CONVERTER
    if _CONVERTER is None:
        _CONVERTER = default_converter()  # type: ignore[no-untyped-call]
    return _CONVERTER


def prepare() -> None:
    """Build the shared converter and the handshake's hooks now, inside the start-up window.

    Called while ggd imports (collector off): cattrs writes the (un)structure functions of the
    handshake there instead of on the first client's initialize: the client capabilities of
    `initialize` (ggd.rpc.handshake types the rest), `initialized`, and the whole typed response
    (~7 ms on a first connection when they were built there).
    """
    from lsprotocol import types as lsp

    conv = _shared_converter()
    conv.get_structure_hook(lsp.ClientCapabilities)
    conv.get_structure_hook(lsp.InitializedNotification)
    conv.get_unstructure_hook(lsp.InitializeResponse)
    conv.get_unstructure_hook(lsp.InitializeResult)


_err = envelope.error  # one builder of error objects for the gate and the framing


class Endpoint:
    """One connection's JSON-RPC endpoint: a LanguageServer + GgProtocol of its own."""

    def __init__(self, app: App, conn: Connection, version: str) -> None:
        self.conn = conn
        self.server = LanguageServer(
            "ggd", version, protocol_cls=GgProtocol, converter_factory=_shared_converter
        )
        self.dispatcher = app.bind(self.server, conn)
        proto = self.server.protocol
        assert isinstance(proto, GgProtocol)
        self.protocol = proto
        self.known = app.known

    def feed(self, item: bytes | Oversized | BadHeader) -> None:
        """Handle one message body (or a framing problem) from the client.

        A body is the bytes that came, on every transport: `guard.parse` decodes it once, the
        gate (`envelope.check`) judges its envelope and lifecycle once, and it goes on to one
        place: the method table (gg/*), the editor's pending requests, or pygls (LSP).
        """
        data = self._decode(item)
        if data is None:
            return
        verdict = envelope.check(
            data, self.conn, shut_down=self.protocol.shut_down, known=self.known
        )
        if isinstance(verdict, envelope.Reply):
            self.conn.respond_error(verdict.id, verdict.error)
        elif isinstance(verdict, envelope.Drop):
            # debug, not info: a client could otherwise fill the log at line rate
            log.debug("ignored a notification: %s", verdict.reason, extra={"conn": self.conn.id})
        elif isinstance(verdict, Handshake):
            self._initialize(verdict)
        else:
            self._route(data)

    def _decode(self, item: bytes | Oversized | BadHeader) -> dict[str, Any] | None:
        """The body as a JSON object, or None once the client was told what is wrong with it."""
        if isinstance(item, BadHeader):
            self.conn.respond_error(None, _err(-32700, "parse_error", item.reason))
            self.conn.close()
            return None
        size = item.size if isinstance(item, Oversized) else len(item)
        if isinstance(item, Oversized) or size > MAX_MESSAGE_BYTES:
            message = f"message of {size} bytes exceeds the {MAX_MESSAGE_BYTES} byte limit"
            self.conn.respond_error(None, _err(-32600, "message_too_large", message))
            return None
        data = guard.parse(item)
        if isinstance(data, guard.Rejected):
            self.conn.respond_error(None, _err(data.code, data.symbol, data.message))
            return None
        if not isinstance(data, dict):
            message = "invalid request: expected a JSON object (batches are not supported)"
            self.conn.respond_error(None, _err(-32600, "invalid_request", message))
            return None
        return data

    def _initialize(self, handshake: Handshake) -> None:
        """`initialize` to pygls as the typed request the gate's check built (never re-read)."""
        try:
            request = handshake.request(_shared_converter())
        except E.InvalidParamsError as exc:
            self.conn.respond_error(handshake.id, exc.to_error())
            return
        # What pygls' own structure_message returns for it; typed with `method: Literal[...]`,
        # which mypy cannot match to pygls' RPCRequest protocol (`method: str`).
        message: Any = request
        self._to_pygls(handshake.id, lambda: self.protocol.handle_message(message))

    def _route(self, data: dict[str, Any]) -> None:
        """A message whose envelope is sound: a valid id, a known method, the right step."""
        if "method" not in data and self.protocol.editor.requests.answer(data):
            return  # the editor answered a request of gg's own (ggd.rpc.editor)
        msg_id = data.get("id")
        method = data.get("method")
        if isinstance(method, str) and msg_id is not None and method in self.known:
            self.dispatcher.request(msg_id, method, data.get("params"))
            return  # gg/* requests go through the daemon's table, never pygls
        if method == "$/cancelRequest" and self.dispatcher.cancel(data["params"]["id"]):
            return
        request_id = msg_id if "method" in data else None
        self._to_pygls(
            request_id,
            lambda: self.protocol.handle_message(self.protocol.structure_message(data)),
        )

    def _to_pygls(self, request_id: int | str | None, handle: Callable[[], None]) -> None:
        """Let pygls handle one LSP message; `request_id` (None for others) gets any error."""
        try:
            handle()
        except JsonRpcException:
            # pygls could not structure the params into its LSP types (cattrs): the client's
            # params are wrong. Its exception text is cattrs' and says nothing useful to them.
            if request_id is not None:
                self.conn.respond_error(
                    request_id,
                    _err(-32602, "invalid_params", "invalid params: they do not match the method"),
                )
        except Exception:
            log.exception("failed to dispatch a message", extra={"conn": self.conn.id})
            if request_id is not None:
                self.conn.respond_error(request_id, E.InternalError("internal error").to_error())
