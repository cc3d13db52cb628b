"""gg/session.* handlers."""

from __future__ import annotations

from ggd.app import Service, SnapshotView
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
)

from ..dispatch import CallContext, handler


def _active(ctx: CallContext) -> dict[str, str]:
    return ctx.app.runs.active_by_session()


@handler(M.SESSION_LIST)
async def session_list(ctx: CallContext, params: SessionListParams) -> SessionListResult:
    """Sessions of the connection's workspace, newest first."""
    ws = None if params.all_workspaces else ctx.app.workspace(ctx.conn)
    rows, nxt = await ctx.app.runtime.list_sessions(
        ws, params.limit, params.cursor, _active(ctx), roots=not ctx.conn.remote
    )
    return SessionListResult(sessions=rows, next_cursor=nxt)


@handler(M.SESSION_CREATE)
async def session_create(ctx: CallContext, params: SessionCreateParams) -> SnapshotView:
    """Create a session."""
    ws = ctx.app.workspace(ctx.conn)
    if params.model:
        # A model no run could use is refused before anything is written: a session created
        # for it would be left empty, and `gg -c` would resume it only to fail again.
        await ctx.app.runs.turns.check_model_ref(params.model)
    return await ctx.app.runtime.create_session(ws, params.name, params.model)


async def _service(ctx: CallContext, session_id: str, *, load: bool = True) -> Service:
    return await ctx.app.runtime.service(session_id, ctx.app.workspace(ctx.conn), load=load)


@handler(M.SESSION_OPEN)
async def session_open(ctx: CallContext, params: SessionIdParams) -> SnapshotView:
    """Open a session by id."""
    # view() needs no entries on the loop: a current snapshot file answers without them.
    svc = await _service(ctx, params.session_id, load=False)
    return await svc.view()


@handler(M.SESSION_GET)
async def session_get(ctx: CallContext, params: SessionIdParams) -> SnapshotView:
    """The current snapshot of a session."""
    svc = await _service(ctx, params.session_id, load=False)
    return await svc.view()


@handler(M.SESSION_RENAME)
async def session_rename(ctx: CallContext, params: SessionRenameParams) -> SnapshotView:
    """Rename a session."""
    svc = await _service(ctx, params.session_id)
    return await ctx.app.runtime.rename(svc, params.name)


@handler(M.SESSION_ACTION)
async def session_action(ctx: CallContext, params: SessionActionParams) -> SnapshotView:
    """Checkout, fork or clone."""
    svc = await _service(ctx, params.session_id)
    return await ctx.app.runtime.action(svc, params.action, params.node_id)


@handler(M.SESSION_SUBSCRIBE)
async def session_subscribe(ctx: CallContext, params: SessionIdParams) -> EmptyResult:
    """Deliver gg/session.event for a session to this connection."""
    await _service(ctx, params.session_id, load=False)  # only checks it exists and is ours
    ctx.app.runtime.bus.subscribe(params.session_id, ctx.conn)
    ctx.conn.session_subs.add(params.session_id)
    return EmptyResult()


@handler(M.SESSION_UNSUBSCRIBE)
async def session_unsubscribe(ctx: CallContext, params: SessionIdParams) -> EmptyResult:
    """Stop gg/session.event for a session on this connection."""
    ctx.app.runtime.bus.unsubscribe(params.session_id, ctx.conn)
    ctx.conn.session_subs.discard(params.session_id)
    return EmptyResult()


@handler(M.SESSION_COMPACT)
async def session_compact(ctx: CallContext, params: SessionCompactParams) -> SessionCompactResult:
    """Summarise older turns now."""
    svc = await _service(ctx, params.session_id)
    summary = await ctx.app.runs.turns.compact(svc, params.instructions)
    return SessionCompactResult(summary=summary, compacted=summary is not None)


@handler(M.SESSION_CONTEXT)
async def session_context(ctx: CallContext, params: SessionIdParams) -> SessionContextResult:
    """Estimated context use."""
    svc = await _service(ctx, params.session_id)
    turns = ctx.app.runs.turns
    info = await svc.read(lambda _sf: turns.context(svc))
    return SessionContextResult(**info)
