"""Listeners the daemon owns: stdio, the Unix socket and WebSocket; framing; no business logic."""

from __future__ import annotations

from .endpoint import Endpoint
from .framing import MAX_MESSAGE_BYTES, ContentLengthDecoder, encode
from .streams import SocketInUseError, serve_stdio, serve_stream, start_unix
from .websocket import WebSocketListener, WsOptions, is_loopback_host

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
