"""The JSON-RPC layer: per-connection state and dispatch, the hub, and the core's own methods."""

from __future__ import annotations

from .connection import Connection
from .dispatch import BodyWriter, Dispatcher, GgProtocol, bind
from .responses import GgRpcError

__all__ = ["BodyWriter", "Connection", "Dispatcher", "GgProtocol", "GgRpcError", "bind"]
