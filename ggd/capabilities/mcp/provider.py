"""The MCP tool provider: connects a session's servers on its first turn and keeps them.

Connections are memoized per session Service (`SessionContext.state`) and closed with it (one
callback on `SessionContext.resources`). Servers connect concurrently, each bounded by the list
timeout, so a hanging server costs a turn at most that timeout, once: a failed server is
remembered as failed (with its config fingerprint) and not retried until its config changes or
the Service reopens. Failures are reported per server as `mcp:<name>` degradations, so one broken
server never hides the healthy ones' tools.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ggd.app import Contribution, ScopeContext, SessionContext, ToolProvider
from ggd.tools import Tool

from .config import McpSection, Servers, ServerSpec, has_config, load_servers
from .connection import Connection, describe_error, stop_all
from .schema import tool_name
from .session import SessionServers, any_session_servers, session_specs
from .tools import McpTool

log = logging.getLogger("ggd.mcp")

_POOL = "pool"


@dataclass
class ServerStatus:
    """The latest known state of one server in one workspace (for gg/mcp.list)."""

    state: str = "idle"
    tools: list[str] = field(default_factory=list)
    last_error: str | None = None
    fingerprint: str = ""
    updated_at: float = 0.0


class StatusBook:
    """Workspace id -> server name -> latest status, shared by the provider and the handlers."""

    def __init__(self) -> None:
        self.by_ws: dict[str, dict[str, ServerStatus]] = {}

    def set(self, ws: str, name: str, status: ServerStatus) -> None:
        """Record a server's status."""
        status.updated_at = time.time()
        self.by_ws.setdefault(ws, {})[name] = status

    def get(self, ws: str, name: str, fingerprint: str) -> ServerStatus:
        """The status of a server whose config is `fingerprint` (idle when unknown or changed)."""
        st = self.by_ws.get(ws, {}).get(name)
        if st is None or st.fingerprint != fingerprint:
            return ServerStatus(fingerprint=fingerprint)
        return st


@dataclass
class McpState:
    """The capability's per-daemon state (ggd.app.Capability.state): the servers' status book
    (the provider writes it, gg/mcp.list reads it) and the servers clients gave sessions."""

    book: StatusBook = field(default_factory=StatusBook)
    sessions: SessionServers = field(default_factory=dict)
    # Tasks of connections given up on (a server that did not list its tools in time), still
    # stopping their server; the daemon waits for them before it exits.
    stopping: set[asyncio.Task[None]] = field(default_factory=set)


@dataclass
class Entry:
    """One server in a session's pool: a live connection or the reason it failed."""

    fingerprint: str
    conn: Connection | None = None
    error: str | None = None


class Pool:
    """A session's MCP connections, keyed by server name."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self.lock = asyncio.Lock()

    async def aclose(self) -> None:
        """Close every connection (concurrently, each bounded)."""
        conns = [e.conn for e in self.entries.values() if e.conn is not None]
        self.entries.clear()
        await asyncio.gather(*(c.aclose() for c in conns), return_exceptions=True)


async def connect(
    spec: ServerSpec, home: Path, within: float, stopping: set[asyncio.Task[None]]
) -> tuple[Connection | None, str | None]:
    """Open one server: (connection, None) or (None, reason)."""
    if spec.problem is not None:
        return None, spec.problem
    conn = Connection(spec, home / "logs" / "mcp", stopping)
    try:
        await conn.open(within)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:
        return None, describe_error(exc)
    return conn, None


class McpProvider(ToolProvider):
    """Tools of the configured MCP servers."""

    name = "mcp"
    capabilities = ("mcp",)

    def __init__(
        self, home: Path, section: McpSection, state: Callable[[], McpState] | None = None
    ) -> None:
        self.home = home
        self.section = section
        # The daemon's McpState, asked for at use (a provider alone, in a test, has its own).
        own = McpState()
        self._state = state or (lambda: own)

    async def aclose(self) -> None:
        """At daemon stop: let servers given up on finish stopping (bounded)."""
        await stop_all(self._state().stopping)

    @property
    def book(self) -> StatusBook:
        """The status book gg/mcp.list reads."""
        return self._state().book

    def available(self, scope: ScopeContext) -> str | None:
        """Absent (quietly) when no mcp.json exists and no session was given servers."""
        sessions = self._state().sessions
        if not has_config(self.home, scope.workspace.root) and not any_session_servers(sessions):
            return "no MCP servers configured"
        return None

    async def build(self, session: SessionContext) -> Contribution:
        """Connect what is new or changed, concurrently; tools of every healthy server."""
        servers: Servers = await asyncio.to_thread(load_servers, self.home, session.workspace.root)
        for name, spec in session_specs(
            self._state().sessions, session.session_id, session.workspace.root
        ).items():
            # A configured server keeps its name; the session's adds new names only.
            servers.servers.setdefault(name, spec)
        pool = session.state.get(_POOL)
        if pool is None:
            pool = session.state[_POOL] = Pool()
            session.resources.push_async_callback(pool.aclose)
        ws = session.workspace.id
        async with pool.lock:
            await self._sync(pool, servers, ws)
        tools: list[Tool] = []
        taken: set[str] = set()
        degraded: dict[str, str] = {}
        for name in sorted(servers.servers):
            entry = pool.entries.get(name)
            if entry is None:
                continue
            if entry.conn is None:
                degraded[name] = entry.error or "failed to start"
                continue
            for remote in entry.conn.tools:
                tools.append(
                    McpTool(
                        tool_name(name, str(remote.name), taken),
                        entry.conn,
                        remote,
                        self.home,
                        self.section.call_timeout_seconds,
                    )
                )
        for err in servers.errors:
            degraded["config"] = err
        return Contribution(tools=tools, degraded=degraded)

    async def _sync(self, pool: Pool, servers: Servers, ws: str) -> None:
        # Close connections of removed or changed servers, and dead ones (retry them).
        stale = [
            n
            for n, e in pool.entries.items()
            if n not in servers.servers
            or e.fingerprint != servers.servers[n].fingerprint
            or (e.conn is not None and e.conn.dead)
        ]
        for n in stale:
            entry = pool.entries.pop(n)
            if entry.conn is not None:
                await entry.conn.aclose()
        todo = [s for n, s in sorted(servers.servers.items()) if n not in pool.entries]
        if not todo:
            return
        timeout = self.section.list_timeout_seconds
        stopping = self._state().stopping
        results = await asyncio.gather(*(connect(s, self.home, timeout, stopping) for s in todo))
        for spec, (conn, err) in zip(todo, results, strict=True):
            pool.entries[spec.name] = Entry(spec.fingerprint, conn, err)
            if conn is not None:
                names = [str(t.name) for t in conn.tools]
                self.book.set(
                    ws, spec.name, ServerStatus("connected", names, None, spec.fingerprint)
                )
            else:
                log.warning("mcp server skipped", extra={"server": spec.name, "reason": err})
                self.book.set(ws, spec.name, ServerStatus("failed", [], err, spec.fingerprint))


async def probe(
    spec: ServerSpec, home: Path, within: float, stopping: set[asyncio.Task[None]]
) -> dict[str, Any]:
    """Connect once, list the tools and close (gg/mcp.test)."""
    started = time.monotonic()
    conn, err = await connect(spec, home, within, stopping)
    tools = [str(t.name) for t in conn.tools] if conn is not None else []
    if conn is not None:
        await conn.aclose()
    return {
        "ok": conn is not None,
        "tools": tools,
        "error": err,
        "elapsed_ms": int((time.monotonic() - started) * 1000),
    }


__all__ = ["McpProvider", "McpState", "ServerStatus", "StatusBook", "probe"]
