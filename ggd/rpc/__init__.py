"""The JSON-RPC layer: per-connection state, the gg/* dispatch table, and the handlers."""

from __future__ import annotations

from .connection import Connection
from .dispatch import CallContext, GgProtocol, bind, handler, registered

__all__ = ["CallContext", "Connection", "GgProtocol", "bind", "handler", "registered"]
