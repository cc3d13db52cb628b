"""gg/system.* and gg/workspace.* handlers."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

from ggd.app.media import MediaError, MediaStore
from ggd.app.workspaces import Workspace, WorkspaceRegistry
from ggd.protocol import PROTOCOL_VERSION, ChannelStatus, DegradedProvider, Empty, WorkspaceRef
from ggd.protocol import errors as E
from ggd.protocol import methods as M
from ggd.protocol.system import (
    MediaGetParams,
    MediaGetResult,
    SystemInfoResult,
    WorkspaceListResult,
    WorkspaceOpenParams,
)

from ..dispatch import CallContext, handler


@handler(M.SYSTEM_INFO)
async def system_info(ctx: CallContext, params: Empty) -> SystemInfoResult:
    """What this daemon is and can do."""
    hub = ctx.app
    ws = hub.workspace(ctx.conn)
    return SystemInfoResult(
        protocol_version=PROTOCOL_VERSION,
        server_version=hub.info.version,
        capabilities=hub.capabilities(ws),
        degraded_providers=[DegradedProvider(**d) for d in hub.degraded(ws)] or None,
        channels=[ChannelStatus.model_validate(c) for c in hub.channels()],
        workspace=WorkspaceRef(id=ws.id, name=ws.name),
        demo=hub.info.demo,
        models=hub.info.models,
        default_model=hub.info.default_model,
    )


@handler(M.WORKSPACE_LIST)
async def workspace_list(ctx: CallContext, params: Empty) -> WorkspaceListResult:
    """Known workspaces (ids and names; folders only for clients on this machine)."""
    runtime = ctx.app.runtime
    local = not ctx.conn.remote
    return WorkspaceListResult(
        workspaces=[runtime.workspace_ref(w.id, roots=local) for w in runtime.workspaces.all()]
    )


@handler(M.WORKSPACE_OPEN)
async def workspace_open(ctx: CallContext, params: WorkspaceOpenParams) -> WorkspaceRef:
    """Serve a folder on this machine as a workspace (the web UI's "Open folder")."""
    if ctx.conn.remote:
        # A remote client naming folders would read the daemon's disk: this machine's clients only.
        raise E.CapabilityUnavailableError(
            "gg/workspace.open is refused over a remote connection; open folders on the daemon's machine"
        )
    ws = await asyncio.to_thread(_open_folder, ctx.app.runtime.workspaces, params.root)
    return ctx.app.runtime.workspace_ref(ws.id, roots=True)


def _open_folder(registry: WorkspaceRegistry, raw: str) -> Workspace:
    root = Path(raw).expanduser()
    if not root.is_absolute():
        raise E.InvalidParamsError("invalid params: root: give an absolute folder (or one under ~)")
    if not root.is_dir():
        raise E.InvalidParamsError(f"invalid params: root: no such folder: {raw}")
    return registry.add(root)


@handler(M.MEDIA_GET)
async def media_get(ctx: CallContext, params: MediaGetParams) -> MediaGetResult:
    """A stored media item's bytes (base64), by id."""
    store = MediaStore(ctx.app.core.home)
    try:
        item, data = await asyncio.to_thread(store.read, params.media_id)
    except MediaError as exc:
        raise E.InvalidParamsError(f"invalid params: mediaId: {exc}") from None
    return MediaGetResult(
        media_id=item.id,
        mime=item.mime,
        size=item.size,
        source=item.source,
        data=base64.b64encode(data).decode(),
    )
