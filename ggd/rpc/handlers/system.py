"""gg/system.* and gg/workspace.* handlers."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

from ggd.app import Handler, HandlerContext
from ggd.app.attachments import stored_image
from ggd.app.media import MediaError, MediaStore
from ggd.app.workspaces import Workspace, WorkspaceRegistry
from ggd.protocol import PROTOCOL_VERSION, ChannelStatus, DegradedProvider, Empty, WorkspaceRef
from ggd.protocol import errors as E
from ggd.protocol import methods as M
from ggd.protocol.system import (
    ImageGetParams,
    ImageGetResult,
    MediaGetParams,
    MediaGetResult,
    ModelCheckParams,
    ModelCheckResult,
    ProvidersResult,
    ProviderStatus,
    SystemInfoResult,
    WorkspaceListResult,
    WorkspaceOpenParams,
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
        model_states=(hub.info.model_states() or None) if hub.info.model_states else None,
        tool_declarations=hub.runs.turns.tool_declarations(ws.id, hub.info.models) or None,
    )


async def model_check(ctx: HandlerContext, params: ModelCheckParams) -> ModelCheckResult:
    """The model check a run start makes, alone: a client checks a /model choice at once."""
    problem = await hub_of(ctx).runs.turns.models.check_model(params.model)
    return ModelCheckResult(ok=problem is None, problem=problem)


async def system_providers(ctx: HandlerContext, params: Empty) -> ProvidersResult:
    """Every configured provider, asked once each, together (a dead one costs 5 s at most)."""
    models = hub_of(ctx).runs.turns.models
    rows = [
        ProviderStatus(
            name=p.name,
            kind=p.kind,
            base_url=p.base_url,
            reachable=p.probe.reachable,
            problem=p.probe.problem,
            models=p.models,
            listed=None if p.probe.listed is None else len(p.probe.listed),
        )
        for p in await models.status()
    ]
    return ProvidersResult(providers=rows, default_model=models.default_model)


async def workspace_list(ctx: HandlerContext, params: Empty) -> WorkspaceListResult:
    """Known workspaces (ids and names; folders only for clients on this machine)."""
    runtime = hub_of(ctx).runtime
    local = not ctx.remote
    return WorkspaceListResult(
        workspaces=[runtime.workspace_ref(w.id, roots=local) for w in runtime.workspaces.all()]
    )


async def workspace_open(ctx: HandlerContext, params: WorkspaceOpenParams) -> WorkspaceRef:
    """Serve a folder on this machine as a workspace (the web UI's "Open folder")."""
    if ctx.remote:
        # A remote client naming folders would read the daemon's disk: this machine's clients only.
        raise E.CapabilityUnavailableError(
            "gg/workspace.open is refused over a remote connection; open folders on the daemon's machine"
        )
    runtime = hub_of(ctx).runtime
    ws = await asyncio.to_thread(_open_folder, runtime.workspaces, params.root)
    return runtime.workspace_ref(ws.id, roots=True)


def _open_folder(registry: WorkspaceRegistry, raw: str) -> Workspace:
    root = Path(raw).expanduser()
    if not root.is_absolute():
        raise E.InvalidParamsError("invalid params: root: give an absolute folder (or one under ~)")
    if not root.is_dir():
        raise E.InvalidParamsError(f"invalid params: root: no such folder: {raw}")
    return registry.add(root)


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


async def image_get(ctx: HandlerContext, params: ImageGetParams) -> ImageGetResult:
    """A stored image's bytes (base64), by the id a message carries."""
    data, mime = await stored_image(hub_of(ctx).runs.turns.images, params.image_id)
    return ImageGetResult(
        image_id=params.image_id,
        mime_type=mime,
        size=len(data),
        data=base64.b64encode(data).decode(),
    )


HANDLERS: dict[str, Handler] = {
    M.SYSTEM_INFO.name: system_info,
    M.WORKSPACE_LIST.name: workspace_list,
    M.WORKSPACE_OPEN.name: workspace_open,
    M.MODEL_CHECK.name: model_check,
    M.SYSTEM_PROVIDERS.name: system_providers,
    M.MEDIA_GET.name: media_get,
    M.IMAGE_GET.name: image_get,
}
