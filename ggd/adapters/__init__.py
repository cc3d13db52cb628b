"""Adapters: other protocols served by a client of gg, not capabilities of the daemon.

`acp` (`ggd --acp`, the Agent Client Protocol for editors such as Zed) and `mcp_server`
(`ggd --mcp`, gg's sessions and runs as MCP tools) each translate their protocol to gg/* calls
over the user's daemon through `ggclient` (a small JSON-RPC client of the Unix socket). They
import nothing of the daemon's core: they are clients, like the CLI.
"""

from __future__ import annotations

__all__: list[str] = []
