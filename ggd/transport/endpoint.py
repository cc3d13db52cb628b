"""Turn raw message bodies into calls on one connection's pygls protocol."""

from __future__ import annotations

import json
import logging
from typing import Any

from cattrs import Converter
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter

from ggd.protocol import errors as E
from ggd.rpc import Connection, GgProtocol, bind

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


class _ConnWriter:
    """pygls writer that hands frames to the connection's bounded queue."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def write(self, data: bytes) -> None:
        self.conn.send_raw(data)

    def close(self) -> None:
        self.conn.close()


def _err(code: int, symbol: str, message: str) -> dict[str, Any]:
    return {"code": code, "message": message, "data": {"code": symbol, "retryable": False}}


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
        bind(self.server, app, conn)

    def feed(self, item: bytes | str | Oversized | BadHeader) -> None:
        """Handle one message body (or a framing problem) from the client."""
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
        try:
            data = json.loads(item)
        except (ValueError, UnicodeDecodeError):
            self.conn.respond_error(
                None, _err(-32700, "parse_error", "parse error: not valid JSON")
            )
            return
        if not isinstance(data, dict):
            self.conn.respond_error(
                None, _err(-32600, "invalid_request", "invalid request: batches are not supported")
            )
            return
        msg_id = data.get("id")
        if data.get("jsonrpc") != "2.0" or (
            "method" in data and not isinstance(data["method"], str)
        ):
            self.conn.respond_error(
                msg_id if isinstance(msg_id, int | str) else None,
                _err(-32600, "invalid_request", "invalid request: expected a JSON-RPC 2.0 object"),
            )
            return
        method = data.get("method")
        if (
            isinstance(method, str)
            and not method.startswith("gg/")
            and method not in ("initialize", "initialized", "shutdown", "exit", "$/cancelRequest")
            and "id" in data
            and not self.conn.initialized
        ):
            self.conn.respond_error(
                msg_id,
                _err(-32002, "not_initialized", "send initialize before other requests"),
            )
            return
        try:
            msg = self.protocol.structure_message(data)
            self.protocol.handle_message(msg)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                error = {"code": exc.code, "message": f"invalid params: {exc.message}"}
                error["data"] = {"code": "invalid_params", "retryable": False}
                self.conn.respond_error(msg_id, error)
        except Exception:
            log.exception("failed to dispatch a message", extra={"conn": self.conn.id})
            if "id" in data and "method" in data:
                self.conn.respond_error(msg_id, E.InternalError("internal error").to_error())
