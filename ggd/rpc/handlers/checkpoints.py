"""gg/session.undo, redo, restore and diff: the workspace checkpoints of a session."""

from __future__ import annotations

from ggd.app import Handler, HandlerContext
from ggd.app.checkpoints import RestoreOutcome
from ggd.protocol import methods as M
from ggd.protocol.checkpoints import (
    FileChangeInfo,
    FilesResult,
    SessionDiffParams,
    SessionRestoreParams,
    SessionUndoParams,
)

from ..hub import hub_of


def _result(out: RestoreOutcome) -> FilesResult:
    return FilesResult(
        applied=out.applied,
        target=out.target,
        current=out.current,
        files=[
            FileChangeInfo(
                path=f.path,
                status=f.status,
                old_mode=f.old_mode,
                new_mode=f.new_mode,
                additions=f.additions,
                deletions=f.deletions,
            )
            for f in out.files
        ],
        conflicts=out.conflicts,
        patch=out.patch,
        truncated=out.truncated,
        skipped=list(out.skipped),
        turn=out.turn,
    )


async def session_undo(ctx: HandlerContext, params: SessionUndoParams) -> FilesResult:
    """Restore the files to before the last turn not undone yet."""
    hub = hub_of(ctx)
    svc = await hub.runtime.service(params.session_id, ctx.workspace)
    out = await hub.runtime.checkpoints.undo(
        svc, preview=params.preview, confirm_conflicts=params.confirm_conflicts
    )
    return _result(out)


async def session_redo(ctx: HandlerContext, params: SessionUndoParams) -> FilesResult:
    """Reapply what the last undo took back."""
    hub = hub_of(ctx)
    svc = await hub.runtime.service(params.session_id, ctx.workspace)
    out = await hub.runtime.checkpoints.undo(
        svc, preview=params.preview, confirm_conflicts=params.confirm_conflicts, redo=True
    )
    return _result(out)


async def session_restore(ctx: HandlerContext, params: SessionRestoreParams) -> FilesResult:
    """Restore the files to their checkpoint at a node (or preview it)."""
    hub = hub_of(ctx)
    svc = await hub.runtime.service(params.session_id, ctx.workspace)
    cps = hub.runtime.checkpoints
    target = await cps.node_state(svc, params.node_id)
    out = await cps.restore(
        svc,
        target,
        op="restore",
        turn=params.node_id,
        preview=params.preview,
        confirm_conflicts=params.confirm_conflicts,
    )
    return _result(out)


async def session_diff(ctx: HandlerContext, params: SessionDiffParams) -> FilesResult:
    """What one turn changed."""
    hub = hub_of(ctx)
    svc = await hub.runtime.service(params.session_id, ctx.workspace)
    return _result(await hub.runtime.checkpoints.diff(svc, params.node_id, params.run_id))


HANDLERS: dict[str, Handler] = {
    M.SESSION_UNDO.name: session_undo,
    M.SESSION_REDO.name: session_redo,
    M.SESSION_RESTORE.name: session_restore,
    M.SESSION_DIFF.name: session_diff,
}
