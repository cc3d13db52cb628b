"""MCP both ways: gg uses the tools of configured MCP servers, and `ggd --mcp` serves gg over MCP.

Client side: servers from GG_HOME/mcp.json (and a trusted workspace's .gg/mcp.json) become tools
`mcp_<server>_<tool>`, every call approval-gated; connections are opened on a session's first turn
and closed with it. Server side (`server.py`): gg_ask, gg_sessions and gg_session_read over stdio,
driving a running daemon (or a private `ggd --stdio` child) through the gg protocol. The `mcp` SDK
is imported only where a connection is made, so the daemon starts without it.
"""

from __future__ import annotations

from ggd.app import Capability, DeferredHandlers, DeferredRows, SetupContext, ToolProvider

from .config import McpSection
from .provider import McpProvider, McpState


def _providers(setup: SetupContext) -> list[ToolProvider]:
    section = setup.section(McpSection)
    return [McpProvider(setup.home, section, lambda: setup.state(McpState))]


CAPABILITY = Capability(
    name="mcp",
    summary="Tools of configured MCP servers (stdio and streamable HTTP), approval-gated.",
    config_key="mcp",
    config_model=McpSection,
    state=lambda _ctx: McpState(),
    providers=_providers,
    methods=DeferredRows(__name__, "mcp"),
    handlers=DeferredHandlers(__name__),
)

__all__ = ["CAPABILITY", "McpProvider", "McpSection"]
