"""Use cases: Runtime (sessions by id), Manager (open services, LRU), Service, runs and approvals."""

from __future__ import annotations

from .bus import SessionBus
from .files import write_private
from .manager import Manager
from .runtime import Runtime, RuntimeOptions
from .service import Service
from .workspaces import Workspace, WorkspaceRegistry, workspace_id

__all__ = [
    "Manager",
    "Runtime",
    "RuntimeOptions",
    "Service",
    "SessionBus",
    "Workspace",
    "WorkspaceRegistry",
    "workspace_id",
    "write_private",
]
