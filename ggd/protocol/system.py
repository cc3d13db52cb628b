"""gg/system.* and gg/workspace.* params and results."""

from __future__ import annotations

from .base import Result
from .dto import ChannelStatus, DegradedProvider, WorkspaceRef


class SystemInfoResult(Result):
    """What this daemon is and can do."""

    protocol_version: str
    server_version: str
    capabilities: list[str]
    degraded_providers: list[DegradedProvider] | None = None
    channels: list[ChannelStatus] = []
    workspace: WorkspaceRef
    demo: bool = False
    models: list[str] = []
    default_model: str | None = None


class WorkspaceListResult(Result):
    """Workspaces this daemon serves."""

    workspaces: list[WorkspaceRef]
