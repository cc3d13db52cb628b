"""gg/system.* and gg/workspace.* handlers."""

from __future__ import annotations

import asyncio
import base64

from ggd.app import Handler, HandlerContext
from ggd.app.media import MediaError, MediaStore
from ggd.protocol import PROTOCOL_VERSION, ChannelStatus, DegradedProvider, Empty, WorkspaceRef
from ggd.protocol import errors as E
from ggd.protocol import methods as M
from ggd.protocol.system import (
    MediaGetParams,
    MediaGetResult,
    SystemInfoResult,
    WorkspaceListResult,
)

from ..hub import hub_of


async def system_info(ctx: HandlerContext, params: Empty) -> SystemInfoResult:
    """What this daemon is and can do."""
    hub = hub_of(ctx)
    ws = ctx.workspace
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


async def workspace_list(ctx: HandlerContext, params: Empty) -> WorkspaceListResult:
    """Known workspaces (ids and names; roots never leave the daemon)."""
    return WorkspaceListResult(
        workspaces=[
            WorkspaceRef(id=w.id, name=w.name) for w in hub_of(ctx).runtime.workspaces.all()
        ]
    )


async def media_get(ctx: HandlerContext, params: MediaGetParams) -> MediaGetResult:
    """A stored media item's bytes (base64), by id."""
    store = MediaStore(hub_of(ctx).core.home)
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


HANDLERS: dict[str, Handler] = {
    M.SYSTEM_INFO.name: system_info,
    M.WORKSPACE_LIST.name: workspace_list,
    M.MEDIA_GET.name: media_get,
}
