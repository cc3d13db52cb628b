"""Wire models and method rows of the MCP capability (gg/mcp.*)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ggd.protocol import MethodSpec
from ggd.protocol.base import Empty, Params, Result, WireModel

from .config import NAME_PATTERN


class McpServerInfo(WireModel):
    """One configured server as gg/mcp.list shows it (never its command, env or headers)."""

    name: str
    origin: Literal["home", "workspace"]
    transport: Literal["stdio", "http"]
    state: Literal["idle", "connected", "failed", "untrusted"]
    tools: list[str] = Field(default_factory=list)
    last_error: str | None = None


class McpListResult(Result):
    """Servers of the connection's workspace."""

    servers: list[McpServerInfo]
    workspace_file: Literal["absent", "trusted", "untrusted", "invalid"]
    config_error: str | None = None


class McpServerParams(Params):
    """Names one server."""

    server: str = Field(min_length=1, max_length=48)


class McpTestResult(Result):
    """A fresh connection's outcome."""

    server: str
    ok: bool
    tools: list[str] = Field(default_factory=list)
    error: str | None = None
    elapsed_ms: int


class McpAddParams(Params):
    """A stdio server (command, args, env, cwd) or an HTTP one (url, headers)."""

    name: str = Field(pattern=NAME_PATTERN)
    command: str | None = Field(default=None, min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = Field(default=None, pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict)


class McpSessionServer(WireModel):
    """One server for a session: stdio (command, args, env, cwd) or HTTP (url, headers)."""

    name: str = Field(pattern=NAME_PATTERN)
    command: str | None = Field(default=None, min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = Field(default=None, pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict)


class McpSessionSetParams(Params):
    """The complete list of a session's own servers (empty clears them)."""

    session_id: str = Field(min_length=1, max_length=128)
    servers: list[McpSessionServer] = Field(default_factory=list, max_length=32)


class McpSessionSetResult(Result):
    """The session's server names, connected on its next turn."""

    servers: list[str]


class McpAddResult(Result):
    """Whether an existing server of that name was replaced."""

    name: str
    replaced: bool


class McpRemoveResult(Result):
    """Whether the server was there."""

    name: str
    removed: bool


class McpTrustResult(Result):
    """The servers the trusted workspace file adds."""

    servers: list[str]


MCP_LIST = MethodSpec(
    "gg/mcp.list",
    "MCP servers of the workspace: origin, transport, state, tool names and last error.",
    Empty,
    McpListResult,
    example={
        "params": {},
        "result": {
            "servers": [
                {
                    "name": "time",
                    "origin": "home",
                    "transport": "stdio",
                    "state": "connected",
                    "tools": ["get_current_time", "convert_time"],
                }
            ],
            "workspaceFile": "absent",
        },
    },
)
MCP_TEST = MethodSpec(
    "gg/mcp.test",
    "Connect to one MCP server now, list its tools and disconnect.",
    McpServerParams,
    McpTestResult,
    example={
        "params": {"server": "time"},
        "result": {
            "server": "time",
            "ok": True,
            "tools": ["get_current_time", "convert_time"],
            "elapsedMs": 840,
        },
    },
)
MCP_ADD = MethodSpec(
    "gg/mcp.add",
    "Add or replace a server in GG_HOME/mcp.json (local connections only).",
    McpAddParams,
    McpAddResult,
    example={
        "params": {"name": "time", "command": "mcp-server-time", "args": []},
        "result": {"name": "time", "replaced": False},
    },
)
MCP_REMOVE = MethodSpec(
    "gg/mcp.remove",
    "Remove a server from GG_HOME/mcp.json (local connections only).",
    McpServerParams,
    McpRemoveResult,
    example={"params": {"server": "time"}, "result": {"name": "time", "removed": True}},
)
MCP_TRUST = MethodSpec(
    "gg/mcp.trust",
    "Trust the current content of the workspace's .gg/mcp.json (local connections only).",
    Empty,
    McpTrustResult,
    example={"params": {}, "result": {"servers": ["docs"]}},
)

MCP_SESSION_SET = MethodSpec(
    "gg/mcp.session.set",
    "Set one session's own MCP servers, kept in memory and closed with it (local connections only).",
    McpSessionSetParams,
    McpSessionSetResult,
    example={
        "params": {
            "sessionId": "s_01J9Z3",
            "servers": [{"name": "time", "command": "mcp-server-time", "args": [], "env": {}}],
        },
        "result": {"servers": ["time"]},
    },
)

METHODS = (MCP_LIST, MCP_TEST, MCP_ADD, MCP_REMOVE, MCP_TRUST, MCP_SESSION_SET)

__all__ = [
    "METHODS",
    "McpAddParams",
    "McpAddResult",
    "McpListResult",
    "McpRemoveResult",
    "McpServerInfo",
    "McpServerParams",
    "McpSessionServer",
    "McpSessionSetParams",
    "McpSessionSetResult",
    "McpTestResult",
    "McpTrustResult",
]
