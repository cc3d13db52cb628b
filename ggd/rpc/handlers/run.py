"""gg/run.* handlers."""

from __future__ import annotations

from ggd.app import Run, RunManager
from ggd.protocol import RunStatus
from ggd.protocol import methods as M
from ggd.protocol.run import (
    RunActiveParams,
    RunApproveParams,
    RunIdParams,
    RunStartParams,
    RunStartResult,
    RunSteerParams,
    RunSubscribeParams,
    RunWaitParams,
    RunWaitResult,
)
from ggd.protocol.session import EmptyResult

from ..dispatch import CallContext, handler
from ..editor.delegate import ConnectionDelegate


def _runs(ctx: CallContext) -> RunManager:
    return ctx.app.runs


def _own(ctx: CallContext, run_id: str) -> Run:
    """A run is visible only to connections of its own workspace (recorded on the run itself,
    so it holds after the session's Service was evicted)."""
    return _runs(ctx).get(run_id, workspace_id=ctx.app.workspace(ctx.conn).id)


@handler(M.RUN_START)
async def run_start(ctx: CallContext, params: RunStartParams) -> RunStartResult:
    """Start a run; subscribes the caller unless subscribe is false."""
    svc = await ctx.app.runtime.service(params.session_id, ctx.app.workspace(ctx.conn))
    runs = _runs(ctx)
    tools = params.client_tools
    client = None
    if tools is not None and ctx.requests is not None:
        if tools.read_text_file or tools.write_text_file or tools.terminal:
            client = ConnectionDelegate(ctx.requests, tools)
    run = await runs.start(
        svc,
        params.prompt,
        approver=runs.interactive,
        mode=params.approval_mode,
        interactive=params.interactive,
        model=params.model,
        client=client,
    )
    if client is not None:
        # Before this handler yields: the run's task has not run a tool yet.
        client.run_id = run.id
    if params.subscribe:
        run.subscribe(ctx.conn, 0)
        ctx.conn.run_subs.add(run.id)
    return RunStartResult(run_id=run.id)


@handler(M.RUN_SUBSCRIBE)
async def run_subscribe(ctx: CallContext, params: RunSubscribeParams) -> EmptyResult:
    """Replay after afterSequence, then live events."""
    run = _own(ctx, params.run_id)
    run.subscribe(ctx.conn, params.after_sequence)
    ctx.conn.run_subs.add(run.id)
    return EmptyResult()


@handler(M.RUN_UNSUBSCRIBE)
async def run_unsubscribe(ctx: CallContext, params: RunIdParams) -> EmptyResult:
    """Stop live events."""
    run = _own(ctx, params.run_id)
    run.subscribers.discard(ctx.conn)
    ctx.conn.run_subs.discard(run.id)
    return EmptyResult()


@handler(M.RUN_WAIT)
async def run_wait(ctx: CallContext, params: RunWaitParams) -> RunWaitResult:
    """Long-poll events after a sequence."""
    run = _own(ctx, params.run_id)
    events = await run.wait_events(params.after_sequence, params.timeout_ms / 1000)
    last = events[-1]["sequence"] if events else params.after_sequence
    return RunWaitResult(events=events, done=run.done and last >= run.ring.last_sequence)


@handler(M.RUN_GET)
async def run_get(ctx: CallContext, params: RunIdParams) -> RunStatus:
    """A run's status."""
    return _own(ctx, params.run_id).status_dto()


@handler(M.RUN_ACTIVE)
async def run_active(ctx: CallContext, params: RunActiveParams) -> RunStatus | None:
    """The session's active run, or null."""
    await ctx.app.runtime.service(params.session_id, ctx.app.workspace(ctx.conn))
    run = _runs(ctx).active_for(params.session_id)
    return run.status_dto() if run is not None else None


@handler(M.RUN_CANCEL)
async def run_cancel(ctx: CallContext, params: RunIdParams) -> EmptyResult:
    """Cancel a run."""
    _runs(ctx).cancel(_own(ctx, params.run_id))
    return EmptyResult()


@handler(M.RUN_APPROVE)
async def run_approve(ctx: CallContext, params: RunApproveParams) -> EmptyResult:
    """Answer a pending approval."""
    run = _own(ctx, params.run_id)
    _runs(ctx).approve(run, params.approval_id, params.allow, params.scope)
    return EmptyResult()


@handler(M.RUN_STEER)
async def run_steer(ctx: CallContext, params: RunSteerParams) -> EmptyResult:
    """Steer the active run or queue a follow-up."""
    await ctx.app.runtime.service(params.session_id, ctx.app.workspace(ctx.conn))
    _runs(ctx).steer(params.session_id, params.text, params.follow_up)
    return EmptyResult()
