"""ACP request params as gg values: the workspace folder, the session id, the MCP servers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .wire import AcpError

_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def workspace_of(params: dict[str, Any]) -> Path:
    cwd = params.get("cwd")
    if not isinstance(cwd, str) or not Path(cwd).is_absolute():
        raise AcpError(-32602, "cwd must be an absolute path to the project folder")
    path = Path(cwd).resolve()
    if not path.is_dir():
        raise AcpError(-32602, "cwd is not an existing folder")
    return path


def _pairs(items: Any, what: str) -> dict[str, str]:
    if not isinstance(items, list):
        raise AcpError(-32602, f"{what} must be a list of {{name, value}}")
    out: dict[str, str] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise AcpError(-32602, f"{what} must be a list of {{name, value}}")
        out[item["name"]] = str(item.get("value", ""))
    return out


def mcp_servers(params: dict[str, Any]) -> list[dict[str, Any]]:
    """ACP's mcpServers as gg/mcp.session.set servers (names made tool-name safe)."""
    raw = params.get("mcpServers") or []
    if not isinstance(raw, list):
        raise AcpError(-32602, "mcpServers must be a list")
    out: list[dict[str, Any]] = []
    for s in raw:
        if not isinstance(s, dict) or not isinstance(s.get("name"), str):
            raise AcpError(-32602, "each of mcpServers needs a name")
        name = _SAFE.sub("-", s["name"]).strip("-._")[:48] or "server"
        kind = s.get("type", "stdio")
        if kind == "http":
            out.append(
                {
                    "name": name,
                    "url": s.get("url"),
                    "headers": _pairs(s.get("headers", []), "headers"),
                }
            )
        elif kind == "stdio" and "command" in s:
            out.append(
                {
                    "name": name,
                    "command": s.get("command"),
                    "args": [str(a) for a in s.get("args") or []],
                    "env": _pairs(s.get("env", []), "env"),
                }
            )
        else:
            raise AcpError(
                -32602, f"MCP server {name}: gg takes stdio and http servers, not {kind}"
            )
    return out


def session_id_of(params: dict[str, Any]) -> str:
    sid = params.get("sessionId")
    if not isinstance(sid, str) or not sid:
        raise AcpError(-32602, "sessionId is required")
    return sid


__all__ = ["mcp_servers", "session_id_of", "workspace_of"]
