"""The gg wire protocol: pydantic models of every method, DTO, event and error; PROTOCOL_VERSION.

This package imports nothing else of ggd and stays cheap to import (no pygls, httpx or mcp).
"""

from __future__ import annotations

from . import errors, methods
from .base import Empty, Event, Params, Result, WireModel, encode_message
from .dto import (
    Budget,
    Approval,
    ApprovalMode,
    ChannelStatus,
    DegradedProvider,
    Message,
    RunStatus,
    SessionSummary,
    SessionUpdate,
    Snapshot,
    TreeItem,
    UsageInfo,
    WorkspaceRef,
)
from .errors import GgError
from .events import RUN_EVENT_ADAPTER, TERMINAL_EVENT_TYPES, RunEvent, SessionEvent
from .methods import BY_NAME, METHODS
from .spec import MethodSpec

PROTOCOL_VERSION = "1.0"

__all__ = [
    "Budget",
    "BY_NAME",
    "METHODS",
    "PROTOCOL_VERSION",
    "RUN_EVENT_ADAPTER",
    "TERMINAL_EVENT_TYPES",
    "Approval",
    "ApprovalMode",
    "ChannelStatus",
    "DegradedProvider",
    "Empty",
    "Event",
    "GgError",
    "Message",
    "MethodSpec",
    "Params",
    "Result",
    "RunEvent",
    "RunStatus",
    "SessionEvent",
    "SessionSummary",
    "SessionUpdate",
    "Snapshot",
    "TreeItem",
    "UsageInfo",
    "WireModel",
    "WorkspaceRef",
    "encode_message",
    "errors",
    "methods",
]
