"""Listeners the daemon owns: stdio, the Unix socket and WebSocket; framing; no business logic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .endpoint import Endpoint
from .framing import MAX_MESSAGE_BYTES, ContentLengthDecoder, encode
from .streams import SocketInUseError, serve_stdio, serve_stream, start_unix

if TYPE_CHECKING:
    from .websocket import WebSocketListener, WsOptions, is_loopback_host

# The websockets library is imported only by a daemon that serves --ws (or code that asks).
_WEBSOCKET = frozenset({"WebSocketListener", "WsOptions", "is_loopback_host"})


def __getattr__(name: str) -> Any:
    if name in _WEBSOCKET:
        from . import websocket

        return getattr(websocket, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MAX_MESSAGE_BYTES",
    "ContentLengthDecoder",
    "Endpoint",
    "SocketInUseError",
    "WebSocketListener",
    "WsOptions",
    "encode",
    "is_loopback_host",
    "serve_stdio",
    "serve_stream",
    "start_unix",
]
