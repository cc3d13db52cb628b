"""The JSON-RPC layer: per-connection state and dispatch, the hub, and the core's own methods."""

from __future__ import annotations

from .connection import Connection
from .dispatch import BodyWriter, Dispatcher, GgProtocol, GgRpcError, bind

__all__ = ["BodyWriter", "Connection", "Dispatcher", "GgProtocol", "GgRpcError", "bind"]
