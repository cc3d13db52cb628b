"""gg/run.* handlers."""

from __future__ import annotations

from ggd.app import Handler, HandlerContext, Run, RunManager
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

from ..editor.client import ClientRequests
from ..editor.delegate import ConnectionDelegate
from ..hub import hub_of


def _runs(ctx: HandlerContext) -> RunManager:
    return hub_of(ctx).runs


def _own(ctx: HandlerContext, run_id: str) -> Run:
    """A run is visible only to connections of its own workspace (recorded on the run itself,
    so it holds after the session's Service was evicted)."""
    return _runs(ctx).get(run_id, workspace_id=ctx.workspace.id)


async def run_start(ctx: HandlerContext, params: RunStartParams) -> RunStartResult:
    """Start a run; subscribes the caller unless subscribe is false."""
    svc = await hub_of(ctx).runtime.service(params.session_id, ctx.workspace)
    runs = _runs(ctx)
    tools = params.client_tools
    client = None
    if tools is not None and isinstance(ctx.client, ClientRequests):
        if tools.read_text_file or tools.write_text_file or tools.terminal:
            client = ConnectionDelegate(ctx.client, tools)
    run = await runs.start(
        svc,
        params.prompt,
        approver=runs.interactive,
        mode=params.approval_mode,
        interactive=params.interactive,
        model=params.model,
        client=client,
        images=params.images,
        remote=ctx.remote,
        budget=params.budget,
        reasoning_effort=params.reasoning_effort,
    )
    if client is not None:
        # Before this handler yields: the run's task has not run a tool yet.
        client.run_id = run.id
    if params.subscribe:
        run.subscribe(ctx.connection, 0)
        ctx.connection.run_subs.add(run.id)
    return RunStartResult(run_id=run.id)


async def run_subscribe(ctx: HandlerContext, params: RunSubscribeParams) -> EmptyResult:
    """Replay after afterSequence, then live events."""
    run = _own(ctx, params.run_id)
    run.subscribe(ctx.connection, params.after_sequence)
    ctx.connection.run_subs.add(run.id)
    return EmptyResult()


async def run_unsubscribe(ctx: HandlerContext, params: RunIdParams) -> EmptyResult:
    """Stop live events."""
    run = _own(ctx, params.run_id)
    run.subscribers.discard(ctx.connection)
    ctx.connection.run_subs.discard(run.id)
    return EmptyResult()


async def run_wait(ctx: HandlerContext, params: RunWaitParams) -> RunWaitResult:
    """Long-poll events after a sequence."""
    run = _own(ctx, params.run_id)
    events = await run.wait_events(params.after_sequence, params.timeout_ms / 1000)
    last = events[-1]["sequence"] if events else params.after_sequence
    return RunWaitResult(
        events=events, done=run.done and last >= run.ring.last_sequence, usage=run.usage
    )


async def run_get(ctx: HandlerContext, params: RunIdParams) -> RunStatus:
    """A run's status."""
    return _own(ctx, params.run_id).status_dto()


async def run_active(ctx: HandlerContext, params: RunActiveParams) -> RunStatus | None:
    """The session's active run, or null."""
    await hub_of(ctx).runtime.service(params.session_id, ctx.workspace)
    run = _runs(ctx).active_for(params.session_id)
    return run.status_dto() if run is not None else None


async def run_cancel(ctx: HandlerContext, params: RunIdParams) -> EmptyResult:
    """Cancel a run."""
    _runs(ctx).cancel(_own(ctx, params.run_id))
    return EmptyResult()


async def run_approve(ctx: HandlerContext, params: RunApproveParams) -> EmptyResult:
    """Answer a pending approval."""
    run = _own(ctx, params.run_id)
    _runs(ctx).approve(run, params.approval_id, params.allow, params.scope)
    return EmptyResult()


async def run_steer(ctx: HandlerContext, params: RunSteerParams) -> EmptyResult:
    """Steer the active run or queue a follow-up."""
    await hub_of(ctx).runtime.service(params.session_id, ctx.workspace)
    _runs(ctx).steer(params.session_id, params.text, params.follow_up)
    return EmptyResult()


HANDLERS: dict[str, Handler] = {
    M.RUN_START.name: run_start,
    M.RUN_SUBSCRIBE.name: run_subscribe,
    M.RUN_UNSUBSCRIBE.name: run_unsubscribe,
    M.RUN_WAIT.name: run_wait,
    M.RUN_GET.name: run_get,
    M.RUN_ACTIVE.name: run_active,
    M.RUN_CANCEL.name: run_cancel,
    M.RUN_APPROVE.name: run_approve,
    M.RUN_STEER.name: run_steer,
}
