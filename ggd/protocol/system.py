"""gg/system.* and gg/workspace.* params and results."""

from __future__ import annotations

from pydantic import Field

from .base import Params, Result
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


class WorkspaceOpenParams(Params):
    """An absolute folder on the daemon's machine (a leading ~ is the user's home)."""

    root: str = Field(min_length=1, max_length=4096)


class MediaGetParams(Params):
    """A stored media item by its opaque id."""

    media_id: str = Field(min_length=1, max_length=64)


class MediaGetResult(Result):
    """A media item: its MIME type, size and base64 content."""

    media_id: str
    mime: str
    size: int
    source: str
    data: str
