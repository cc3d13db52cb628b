"""Turn raw message bodies into calls on one connection's pygls protocol."""

from __future__ import annotations

import logging
from typing import Any

from cattrs import Converter
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter

from ggd.protocol import errors as E
from ggd.rpc import Connection, GgProtocol, bind, envelope
from ggd.rpc.pieces import Pieces

from . import guard
from .framing import MAX_MESSAGE_BYTES, BadHeader, Oversized

log = logging.getLogger("ggd.transport")


_CONVERTER: Converter | None = None


def _shared_converter() -> Converter:
    # cattrs generates (un)structure code per converter; one per connection cost ~15 ms at
    # every initialize. The converter holds no per-connection state, so all endpoints share one.
    global _CONVERTER
    if _CONVERTER is None:
        _CONVERTER = default_converter()  # type: ignore[no-untyped-call]
    return _CONVERTER


def prepare() -> None:
    """Build the shared converter and the initialize hooks now, inside the start-up window.

    Called while ggd imports (collector off, generated code cached): cattrs writes the
    (un)structure functions of the handshake's messages there instead of on the first client's
    initialize: pygls structures the whole request (not only its params) and unstructures the
    whole typed response (~7 ms on a first connection when they were built there).
    """
    from lsprotocol import types as lsp

    conv = _shared_converter()
    conv.get_structure_hook(lsp.InitializeRequest)
    # Optional members are resolved at their first value: those every gg client sends.
    conv.get_structure_hook(lsp.ClientInfo)
    conv.get_structure_hook(lsp.WorkspaceFolder)
    conv.get_structure_hook(lsp.InitializedNotification)
    conv.get_unstructure_hook(lsp.InitializeResponse)
    conv.get_unstructure_hook(lsp.InitializeResult)


class _ConnWriter:
    """pygls writer that hands frames to the connection's bounded queue."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def write(self, data: bytes | Pieces) -> None:
        self.conn.send_raw(data)

    def close(self) -> None:
        self.conn.close()


_err = envelope.error  # one builder of error objects for the gate and the framing


class Endpoint:
    """One connection's JSON-RPC endpoint: a LanguageServer + GgProtocol of its own."""

    def __init__(self, app: Any, conn: Connection, version: str) -> None:
        self.conn = conn
        self.server = LanguageServer(
            "ggd", version, protocol_cls=GgProtocol, converter_factory=_shared_converter
        )
        proto = self.server.protocol
        assert isinstance(proto, GgProtocol)
        proto.conn = conn
        proto.app = app
        proto.set_writer(_ConnWriter(conn), include_headers=conn.framed)
        self.protocol = proto
        self.known = bind(self.server, app, conn)

    def feed(self, item: bytes | Oversized | BadHeader) -> None:
        """Handle one message body (or a framing problem) from the client.

        A body is the bytes that came, on every transport: `guard.parse` decodes it once.
        """
        if isinstance(item, Oversized):
            self.conn.respond_error(
                None,
                _err(
                    -32600,
                    "message_too_large",
                    f"message of {item.size} bytes exceeds the {MAX_MESSAGE_BYTES} byte limit",
                ),
            )
            return
        if isinstance(item, BadHeader):
            self.conn.respond_error(None, _err(-32700, "parse_error", item.reason))
            self.conn.close()
            return
        if len(item) > MAX_MESSAGE_BYTES:
            self.feed(Oversized(len(item)))
            return
        data = guard.parse(item)
        if isinstance(data, guard.Rejected):
            self.conn.respond_error(None, _err(data.code, data.symbol, data.message))
            return
        if not isinstance(data, dict):
            self.conn.respond_error(
                None,
                _err(
                    -32600,
                    "invalid_request",
                    "invalid request: expected a JSON object (batches are not supported)",
                ),
            )
            return
        verdict = envelope.check(
            data, self.conn, shut_down=self.protocol.shut_down, known=self.known
        )
        if isinstance(verdict, envelope.Reply):
            self.conn.respond_error(verdict.id, verdict.error)
            return
        if isinstance(verdict, envelope.Drop):
            # debug, not info: a client could otherwise fill the log at line rate
            log.debug("ignored a notification: %s", verdict.reason, extra={"conn": self.conn.id})
            return
        if "method" not in data and self.protocol.editor.requests.answer(data):
            return  # the editor answered a request of gg's own (ggd.rpc.editor)
        # From here the envelope is sound: a valid id, a known method, the right lifecycle step.
        msg_id = data.get("id")
        try:
            msg = self.protocol.structure_message(data)
            self.protocol.handle_message(msg)
        except JsonRpcException:
            # pygls could not structure the params into its LSP types (cattrs): the client's
            # params are wrong. Its exception text is cattrs' and says nothing useful to them.
            if "id" in data and "method" in data:
                self.conn.respond_error(
                    msg_id,
                    _err(-32602, "invalid_params", "invalid params: they do not match the method"),
                )
        except Exception:
            log.exception("failed to dispatch a message", extra={"conn": self.conn.id})
            if "id" in data and "method" in data:
                self.conn.respond_error(msg_id, E.InternalError("internal error").to_error())
