"""`ggd --acp`: gg as an Agent Client Protocol agent for editors (Zed, and any ACP client).

A client adapter of the gg protocol, like `ggd --mcp`: NDJSON JSON-RPC on stdin/stdout, each ACP
method mapped onto gg/session.* and gg/run.* of the running daemon (or a private `ggd --stdio`
child). It registers no tools or methods in the daemon, so it has no CAPABILITY.
"""

from __future__ import annotations

from .agent import GgAgent, main, serve

__all__ = ["GgAgent", "main", "serve"]
