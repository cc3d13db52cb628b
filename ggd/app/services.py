"""DaemonCore: the daemon's core as capability handlers and channels see it (DaemonServices)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .capabilities import CapabilityRegistry
from .channels import Supervisor
from .extension import TurnRequest
from .run import Run
from .runs import RunManager
from .runtime import Runtime
from .workspaces import Workspace


class DaemonCore:
    """Runtime, runs, capabilities and channels of one daemon, behind one small surface."""

    def __init__(
        self,
        runtime: Runtime,
        runs: RunManager,
        registry: CapabilityRegistry,
        supervisor: Supervisor,
        *,
        owns_channels: bool = True,
    ) -> None:
        self.runtime = runtime
        self.runs = runs
        self.registry = registry
        self.supervisor = supervisor
        self._owns_channels = owns_channels
        registry.attach(self)  # capability states are made with this core, at their first use

    @property
    def home(self) -> Path:
        """GG_HOME."""
        return self.runtime.opts.home

    @property
    def owns_channels(self) -> bool:
        """False in a sidecar that found another daemon owning the channels."""
        return self._owns_channels

    def section(self, key: str) -> BaseModel | None:
        """A capability's validated config section."""
        return self.registry.section(key)

    def workspace(self, workspace_id: str) -> Workspace | None:
        """A known workspace by id."""
        return self.runtime.workspaces.get(workspace_id)

    def default_workspace(self) -> Workspace:
        """The daemon's default workspace."""
        return self.runtime.workspaces.default

    async def start_turn(self, req: TurnRequest) -> Run:
        """One run through the same runtime and run table as every client's."""
        ws = req.workspace
        if req.session_id is None:
            snap = await self.runtime.create_session(ws, req.session_name or None, req.model)
            session_id = snap.session_id
        else:
            session_id = req.session_id
        svc = await self.runtime.service(session_id, ws)
        return await self.runs.start(
            svc,
            req.prompt,
            approver=req.approver,
            interactive=False,
            model=req.model,
            time_limit=req.timeout,
            budget=req.budget,
            budget_name="job budget",
        )

    def channel_state(self, name: str) -> tuple[str, str | None] | None:
        """(state, error) of a supervised channel, or None when no such channel was registered."""
        for st in self.supervisor.states():
            if st.name == name:
                return st.state, st.error
        return None

    def broadcast(self, method: str, params: dict[str, Any], workspace_id: str | None) -> int:
        """A capability notification to every connection of a workspace (None: all)."""
        return self.runtime.bus.broadcast(method, params, workspace_id)

    def steer(self, session_id: str, text: str, follow_up: bool) -> Run:
        """Steering or a follow-up for the session's active run (RunNotFoundError when idle)."""
        return self.runs.steer(session_id, text, follow_up)

    def cancel(self, run: Run) -> None:
        """Cancel a run; it records run_canceled like a client's gg/run.cancel."""
        self.runs.cancel(run)


__all__ = ["DaemonCore"]
