"""Use cases: Runtime (sessions by id), Manager (open services, LRU), Service, runs and approvals,
and the extension model (capabilities, providers, approvers, channels)."""

from __future__ import annotations

from .admission import RunOptions
from .approvers import Approver, InteractiveApprover, UnattendedApprover, approval_for
from .builtins import CORE_CAPABILITIES
from .bus import SessionBus
from .capabilities import CapabilityRegistry, sanitize_reason
from .channels import ChannelState, Supervisor
from .deferred import DeferredHandlers, DeferredRows
from .delegate import TOOL_CALL_ID, ClientDelegate, ClientToolError, CommandOutcome
from .extension import (
    Caller,
    Capability,
    Channel,
    ChannelContext,
    Contribution,
    DaemonServices,
    Handler,
    HandlerContext,
    PromptSection,
    ScopeContext,
    SessionContext,
    SetupContext,
    StateContext,
    ToolProvider,
    TurnRequest,
)
from .files import owner_lock, write_private
from .manager import Manager
from .routes import Route
from .run import Run
from .runs import RunManager
from .runtime import Runtime, RuntimeOptions
from .service import Service
from .services import DaemonCore
from .snapshot import SnapshotView
from .turns import TurnAssembler
from .workspaces import Workspace, WorkspaceRegistry, workspace_id

__all__ = [
    "CORE_CAPABILITIES",
    "TOOL_CALL_ID",
    "Approver",
    "Caller",
    "Capability",
    "CapabilityRegistry",
    "Channel",
    "ChannelContext",
    "ChannelState",
    "ClientDelegate",
    "ClientToolError",
    "CommandOutcome",
    "Contribution",
    "DaemonCore",
    "DaemonServices",
    "DeferredHandlers",
    "DeferredRows",
    "Handler",
    "HandlerContext",
    "InteractiveApprover",
    "Manager",
    "PromptSection",
    "Route",
    "Run",
    "RunManager",
    "RunOptions",
    "Runtime",
    "RuntimeOptions",
    "ScopeContext",
    "Service",
    "SessionBus",
    "SessionContext",
    "SetupContext",
    "SnapshotView",
    "StateContext",
    "Supervisor",
    "ToolProvider",
    "TurnAssembler",
    "TurnRequest",
    "UnattendedApprover",
    "Workspace",
    "WorkspaceRegistry",
    "approval_for",
    "owner_lock",
    "sanitize_reason",
    "workspace_id",
    "write_private",
]
