"""Servers a client hands the daemon for one session (gg/mcp.session.set), kept in memory.

An editor speaking ACP sends its MCP servers with session/new; they carry the user's trust like
a CLI flag, so they start without `gg mcp trust`, but only a local connection may set them. They
are never written to disk and are not `${VAR}` expanded (the editor sends literal values).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .config import HttpServer, ServerSpec, StdioServer

# session id -> server name -> config: part of the capability's per-daemon state (McpState);
# the handler writes it, the provider reads it on each build.
SessionServers = dict[str, dict[str, StdioServer | HttpServer]]


def set_session_servers(
    book: SessionServers, session_id: str, servers: dict[str, StdioServer | HttpServer]
) -> None:
    """Replace a session's servers (an empty mapping clears them)."""
    # A cleared session keeps its (empty) entry so the provider still builds for it and closes
    # the connections it had; a session that never had servers adds none.
    if servers or session_id in book:
        book[session_id] = dict(servers)


def any_session_servers(book: SessionServers) -> bool:
    """Whether some session has (or had) servers (for `available`)."""
    return bool(book)


def session_specs(book: SessionServers, session_id: str, root: Path) -> dict[str, ServerSpec]:
    """A session's servers as specs; a stdio server runs in the workspace unless told otherwise."""
    out: dict[str, ServerSpec] = {}
    for name, cfg in book.get(session_id, {}).items():
        raw = json.dumps(["session", cfg.model_dump()], sort_keys=True).encode()
        fingerprint = hashlib.sha256(raw).hexdigest()[:16]
        if isinstance(cfg, StdioServer):
            cwd = str(root / cfg.cwd) if cfg.cwd else str(root)
            cfg = cfg.model_copy(update={"cwd": cwd})
        out[name] = ServerSpec(name, "session", cfg, fingerprint)
    return out


__all__ = ["SessionServers", "any_session_servers", "session_specs", "set_session_servers"]
