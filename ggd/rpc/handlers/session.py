"""gg/session.* handlers."""

from __future__ import annotations

from ggd.app import Handler, HandlerContext, Service, SnapshotView, todos
from ggd.protocol import methods as M
from ggd.protocol.session import (
    EmptyResult,
    SessionActionParams,
    SessionCompactParams,
    SessionCompactResult,
    SessionContextResult,
    SessionCreateParams,
    SessionIdParams,
    SessionListParams,
    SessionListResult,
    SessionRenameParams,
    SessionTodosResult,
)

from ..hub import hub_of


def _active(ctx: HandlerContext) -> dict[str, str]:
    return hub_of(ctx).runs.active_by_session()


async def session_list(ctx: HandlerContext, params: SessionListParams) -> SessionListResult:
    """Sessions of the connection's workspace, newest first."""
    ws = None if params.all_workspaces else ctx.workspace
    rows, nxt = await hub_of(ctx).runtime.list_sessions(
        ws, params.limit, params.cursor, _active(ctx), roots=not ctx.remote
    )
    return SessionListResult(sessions=rows, next_cursor=nxt)


async def session_create(ctx: HandlerContext, params: SessionCreateParams) -> SnapshotView:
    """Create a session."""
    ws = ctx.workspace
    if params.model:
        # A model no run could use is refused before anything is written: a session created
        # for it would be left empty, and `gg -c` would resume it only to fail again.
        await hub_of(ctx).runs.turns.check_model_ref(params.model)
    return await hub_of(ctx).runtime.create_session(ws, params.name, params.model)


async def _service(ctx: HandlerContext, session_id: str, *, load: bool = True) -> Service:
    return await hub_of(ctx).runtime.service(session_id, ctx.workspace, load=load)


async def session_open(ctx: HandlerContext, params: SessionIdParams) -> SnapshotView:
    """Open a session by id."""
    # view() needs no entries on the loop: a current snapshot file answers without them.
    svc = await _service(ctx, params.session_id, load=False)
    return await svc.view()


async def session_get(ctx: HandlerContext, params: SessionIdParams) -> SnapshotView:
    """The current snapshot of a session."""
    svc = await _service(ctx, params.session_id, load=False)
    return await svc.view()


async def session_rename(ctx: HandlerContext, params: SessionRenameParams) -> SnapshotView:
    """Rename a session."""
    svc = await _service(ctx, params.session_id)
    return await hub_of(ctx).runtime.rename(svc, params.name)


async def session_action(ctx: HandlerContext, params: SessionActionParams) -> SnapshotView:
    """Checkout, fork or clone."""
    svc = await _service(ctx, params.session_id)
    return await hub_of(ctx).runtime.action(
        svc,
        params.action,
        params.node_id,
        restore_files=params.restore_files,
        confirm_conflicts=params.confirm_conflicts,
    )


async def session_subscribe(ctx: HandlerContext, params: SessionIdParams) -> EmptyResult:
    """Deliver gg/session.event for a session to this connection."""
    await _service(ctx, params.session_id, load=False)  # only checks it exists and is ours
    hub_of(ctx).runtime.bus.subscribe(params.session_id, ctx.connection)
    ctx.connection.session_subs.add(params.session_id)
    return EmptyResult()


async def session_unsubscribe(ctx: HandlerContext, params: SessionIdParams) -> EmptyResult:
    """Stop gg/session.event for a session on this connection."""
    hub_of(ctx).runtime.bus.unsubscribe(params.session_id, ctx.connection)
    ctx.connection.session_subs.discard(params.session_id)
    return EmptyResult()


async def session_compact(
    ctx: HandlerContext, params: SessionCompactParams
) -> SessionCompactResult:
    """Summarise older turns now."""
    svc = await _service(ctx, params.session_id)
    summary = await hub_of(ctx).runs.turns.compact(svc, params.instructions)
    return SessionCompactResult(summary=summary, compacted=summary is not None)


async def session_context(ctx: HandlerContext, params: SessionIdParams) -> SessionContextResult:
    """Estimated context use."""
    svc = await _service(ctx, params.session_id)
    turns = hub_of(ctx).runs.turns
    info = await svc.read(lambda _sf: turns.context(svc))
    return SessionContextResult(**info)


async def session_todos(ctx: HandlerContext, params: SessionIdParams) -> SessionTodosResult:
    """The session's current todo list."""
    svc = await _service(ctx, params.session_id)
    return SessionTodosResult.model_validate({"todos": await todos.session_todos(svc)})


HANDLERS: dict[str, Handler] = {
    M.SESSION_LIST.name: session_list,
    M.SESSION_CREATE.name: session_create,
    M.SESSION_OPEN.name: session_open,
    M.SESSION_GET.name: session_get,
    M.SESSION_RENAME.name: session_rename,
    M.SESSION_ACTION.name: session_action,
    M.SESSION_SUBSCRIBE.name: session_subscribe,
    M.SESSION_UNSUBSCRIBE.name: session_unsubscribe,
    M.SESSION_COMPACT.name: session_compact,
    M.SESSION_CONTEXT.name: session_context,
    M.SESSION_TODOS.name: session_todos,
}
