"""Hub: what transports and handlers share: the runtime, connections and their workspaces."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from ggd.app import Runtime, Workspace
from ggd.protocol import PROTOCOL_VERSION
from ggd.protocol import errors as E

from .connection import Connection

log = logging.getLogger("ggd.rpc")


@dataclass
class HubInfo:
    """Facts about this daemon that clients may see."""

    version: str
    demo: bool = False
    models: list[str] = field(default_factory=list)
    default_model: str | None = None
    degraded: list[dict[str, str]] = field(default_factory=list)


class Hub:
    """The app object transports call into; one per daemon."""

    def __init__(self, runtime: Runtime, info: HubInfo, runs: Any = None) -> None:
        self.runtime = runtime
        self.info = info
        self.runs = runs
        self.connections: dict[int, Connection] = {}
        self.started = time.time()
        self.last_activity = time.monotonic()

    # -- transport hooks -------------------------------------------------------------------------

    def connection_opened(self, conn: Connection) -> None:
        """A client connected."""
        self.connections[conn.id] = conn
        self.last_activity = time.monotonic()

    def connection_closed(self, conn: Connection) -> None:
        """A client went away: drop its subscriptions (its runs and approvals live on)."""
        self.connections.pop(conn.id, None)
        self.runtime.bus.drop(conn)
        if self.runs is not None:
            self.runs.drop_subscriber(conn)
        self.last_activity = time.monotonic()

    def bind_workspace(self, conn: Connection, params: Any) -> Workspace:
        """Choose the connection's workspace from LSP initialize params."""
        folders = [f.uri for f in (params.workspace_folders or [])]
        opts = params.initialization_options
        wid = opts.get("workspaceId") if isinstance(opts, dict) else None
        ws = self.runtime.workspace_for(
            params.root_uri, folders, wid if isinstance(wid, str) else None
        )
        conn.workspace_id = ws.id
        self.runtime.bus.join(ws.id, conn)
        return ws

    def capabilities(self) -> list[str]:
        """Capabilities advertised to clients."""
        caps = list(self.runtime.opts.capabilities)
        if self.runs is not None:
            caps += self.runs.capabilities()
        return caps

    def health(self) -> dict[str, Any]:
        """The authenticated /health report."""
        return {
            "status": "ok",
            "protocolVersion": PROTOCOL_VERSION,
            "serverVersion": self.info.version,
            "connections": len(self.connections),
            "activeRuns": self.runs.active_count() if self.runs is not None else 0,
            "uptimeSeconds": int(time.time() - self.started),
        }

    def workspace(self, conn: Connection) -> Workspace:
        """The connection's workspace."""
        ws = self.runtime.workspaces.get(conn.workspace_id or "")
        if ws is None:
            raise E.WorkspaceMismatchError("the connection has no workspace; send initialize first")
        return ws

    def idle(self) -> bool:
        """No clients and no active runs."""
        active = self.runs.active_count() if self.runs is not None else 0
        return not self.connections and active == 0
