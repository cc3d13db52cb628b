"""Hub: what transports and handlers share: the daemon core, connections and their workspaces."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ggd.app import CORE_CAPABILITIES, DaemonCore, RunManager, Runtime, ScopeContext, Workspace
from ggd.protocol import PROTOCOL_VERSION, MethodSpec
from ggd.protocol import errors as E
from ggd.protocol.methods import BY_NAME, METHODS

from .connection import Connection

log = logging.getLogger("ggd.rpc")


@dataclass
class HubInfo:
    """Facts about this daemon that clients may see."""

    version: str
    demo: bool = False
    models: list[str] = field(default_factory=list)
    default_model: str | None = None
    # The states of models served by a local server, asked at each gg/system.info.
    model_states: Callable[[], dict[str, str]] | None = None


class InitializeParams(Protocol):
    """The parts of LSP initialize params the hub reads."""

    root_uri: str | None
    workspace_folders: Any
    initialization_options: Any


class Hub:
    """The app object transports call into; one per daemon."""

    def __init__(self, core: DaemonCore, info: HubInfo) -> None:
        self.core = core
        self.info = info
        self.connections: dict[int, Connection] = {}
        self.started = time.time()
        self.last_activity = time.monotonic()
        self._methods: tuple[MethodSpec, ...] | None = None

    @property
    def runtime(self) -> Runtime:
        """The session runtime."""
        return self.core.runtime

    @property
    def runs(self) -> RunManager:
        """The run table."""
        return self.core.runs

    def methods(self) -> tuple[MethodSpec, ...]:
        """The one method table: core rows, then every capability's rows (imports them all)."""
        if self._methods is None:
            self._methods = (*METHODS, *self.core.registry.methods())
        return self._methods

    def requests(self) -> tuple[str, ...]:
        """The names of the client requests: core rows, then the capabilities' (not imported)."""
        core = (s.name for s in METHODS if s.kind == "request" and s.direction == "client")
        return (*core, *self.core.registry.requests())

    def row(self, method: str) -> MethodSpec | None:
        """One row of the table by name; a capability's is imported at its first use."""
        return BY_NAME.get(method) or self.core.registry.row(method)

    # -- transport hooks -------------------------------------------------------------------------

    def connection_opened(self, conn: Connection) -> None:
        """A client connected."""
        self.connections[conn.id] = conn
        self.last_activity = time.monotonic()

    def connection_closed(self, conn: Connection) -> None:
        """A client went away: drop its subscriptions (its runs and approvals live on)."""
        self.connections.pop(conn.id, None)
        self.runtime.bus.drop(conn)
        self.runs.drop_subscriber(conn)
        self.last_activity = time.monotonic()

    def bind_workspace(self, conn: Connection, params: InitializeParams) -> Workspace:
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

    def capabilities(self, ws: Workspace | None = None) -> list[str]:
        """Capabilities advertised to clients of a workspace: derived from the registry."""
        ws = ws or self.runtime.workspaces.default
        scope = ScopeContext(home=self.core.home, workspace=ws)
        caps = self.core.registry.advertised(scope)
        return [*CORE_CAPABILITIES, *(c for c in caps if c not in CORE_CAPABILITIES)]

    def degraded(self, ws: Workspace) -> list[dict[str, str]]:
        """Providers degraded in a workspace (sanitized reasons)."""
        return self.core.registry.degraded(ws.id)

    def channels(self) -> list[dict[str, Any]]:
        """Channel states for /health and system.info."""
        return [s.wire() for s in self.core.supervisor.states()]

    def health(self) -> dict[str, Any]:
        """The authenticated /health report."""
        return {
            "status": "ok",
            "protocolVersion": PROTOCOL_VERSION,
            "serverVersion": self.info.version,
            "connections": len(self.connections),
            "activeRuns": self.runs.active_count(),
            "uptimeSeconds": int(time.time() - self.started),
            "channels": self.channels(),
        }

    def workspace(self, conn: Connection) -> Workspace:
        """The connection's workspace."""
        ws = self.runtime.workspaces.get(conn.workspace_id or "")
        if ws is None:
            raise E.WorkspaceMismatchError("the connection has no workspace; send initialize first")
        return ws

    def idle(self) -> bool:
        """No clients and no active runs."""
        return not self.connections and self.runs.active_count() == 0
