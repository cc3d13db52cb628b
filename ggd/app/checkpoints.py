"""Checkpointer: snapshots at turn boundaries and around file-changing tools; undo, redo, restore.

The one object the run layer talks to (`turn(svc)` around a run's loop, `tool_hook(svc)` in
the tool context, `settled(svc)` before the loop's writes); the git work is `ggd.checkpoints`,
the tree bookkeeping `checkpoint_tree`. A failing snapshot never fails a run: it is logged and
the run goes on without it.

The turn's first snapshot is taken beside the run's first model request, not before it: a
user waits for that request, and the snapshot is a few `git` processes (~10 ms on a small
workspace, seconds on a big one). Nothing the run does can change a file before its first
answer is written, and every write of the run's transcript waits for the snapshot
(`settled`), so the snapshot still records the files as the turn found them and its entry
still comes before the turn's first answer in the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from ggd.checkpoints import (
    CheckpointError,
    CheckpointSettings,
    CheckpointStore,
    FileChange,
    recover_all,
)
from ggd.checkpoints.gitcli import GitError
from ggd.protocol import SessionEvent
from ggd.protocol import errors as E

from . import checkpoint_tree as T
from .bus import SessionBus
from .service import Service
from .workspaces import Workspace

log = logging.getLogger("ggd.app")

ToolHook = Callable[[str], Awaitable[None]]


@dataclass
class RestoreOutcome:
    """What a restore did, or would do (preview)."""

    applied: bool
    target: str
    current: str
    files: list[FileChange] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    patch: str = ""
    truncated: bool = False
    skipped: tuple[str, ...] = ()
    turn: str | None = None


def conflict_error(conflicts: list[str]) -> E.CheckpointConflictError:
    """The refusal of a restore that would overwrite files changed outside gg."""
    shown = ", ".join(conflicts[:10]) + (" ..." if len(conflicts) > 10 else "")
    return E.CheckpointConflictError(
        f"{len(conflicts)} file(s) changed outside gg since the last checkpoint would be "
        f"overwritten: {shown}; preview the restore and confirm to overwrite them"
    )


class Checkpointer:
    """The checkpoint stores of every workspace, under GG_HOME/checkpoints/."""

    def __init__(self, root: Path, settings: CheckpointSettings, bus: SessionBus) -> None:
        self.root = root
        self.settings = settings
        self.bus = bus
        self._stores: dict[str, CheckpointStore] = {}
        self._pruning: set[asyncio.Task[None]] = set()
        # Per session: the turn-start snapshot in flight (see the module docstring).
        self._pending: dict[str, asyncio.Task[None]] = {}
        # Whether any run is active in a workspace (set by the composition root from its
        # RunManager): a restore under another session's running agent is refused too.
        self.workspace_busy: Callable[[str], bool] = lambda _workspace_id: False

    def recover(self) -> int:
        """Finish restores a kill interrupted (at daemon start, before any client)."""
        return recover_all(self.root, self.settings)

    def store(self, ws: Workspace) -> CheckpointStore:
        """The store of one workspace (GitError when git is not installed)."""
        store = self._stores.get(ws.id)
        if store is None:
            store = CheckpointStore(self.root / ws.id, ws.root, self.settings)
            self._stores[ws.id] = store
        return store

    def _check_enabled(self) -> None:
        if not self.settings.enabled:
            raise E.InvalidActionError(
                "checkpoints are switched off (config.json checkpoints.enabled)"
            )

    def _store_for(self, ws: Workspace) -> CheckpointStore:
        """The store, or a clear error for a client when checkpoints cannot work here."""
        self._check_enabled()
        try:
            return self.store(ws)
        except GitError as exc:
            raise E.InvalidActionError(str(exc)) from None

    # -- recording ------------------------------------------------------------------------------

    async def snapshot(self, svc: Service, at: str, run_id: str | None = None) -> None:
        """Snapshot the session's workspace and record it on the branch; never raises.

        Waits for the turn-start snapshot in flight first: one store, one writer, in order.
        """
        await self.settled(svc)
        await self._take(svc, at, run_id)

    async def _take(self, svc: Service, at: str, run_id: str | None) -> None:
        if not self.settings.enabled:
            return
        try:
            snap = await asyncio.to_thread(self.store(svc.workspace).snapshot, at)
            await svc.write(lambda sf: T.record(sf, snap.commit, at, snap.skipped, run_id))
        except (CheckpointError, GitError, E.GgError, OSError) as exc:
            log.warning("checkpoint (%s) skipped: %s", at, exc, extra={"session": svc.id})
        except Exception:  # a bug here must not fail the user's run or tool
            log.exception("checkpoint (%s) failed", at, extra={"session": svc.id})

    async def settled(self, svc: Service) -> None:
        """Return once the session's turn-start snapshot (if one is in flight) is recorded."""
        task = self._pending.get(svc.id)
        if task is None:
            return
        # Shielded: a canceled run stops waiting, the snapshot still finishes and is recorded.
        await asyncio.shield(task)
        if self._pending.get(svc.id) is task:
            del self._pending[svc.id]

    @contextlib.asynccontextmanager
    async def turn(self, svc: Service, run_id: str) -> AsyncIterator[None]:
        """Around one run's loop: a snapshot at its start (in flight while the body goes on;
        the body's transcript writes wait for it through `settled`) and one after its end
        (even if it failed)."""
        if self.settings.enabled:
            task = asyncio.get_running_loop().create_task(
                self._take(svc, "turn_start", run_id), name=f"checkpoint {svc.id}"
            )
            self._pending[svc.id] = task
        try:
            yield
        finally:
            await asyncio.shield(self.snapshot(svc, "turn_end"))
            self._prune_later(svc.workspace)

    def tool_hook(self, svc: Service) -> ToolHook | None:
        """The tool context's hook: `before`/`after` a tool that can change files."""
        if not self.settings.enabled:
            return None

        async def hook(when: str) -> None:
            await self.snapshot(svc, f"{when}_tool")

        return hook

    def _prune_later(self, ws: Workspace) -> None:
        if not self.settings.enabled:
            return
        try:
            store = self.store(ws)
        except GitError:
            return  # already logged by the snapshot that could not be taken

        async def prune() -> None:
            try:
                await asyncio.to_thread(store.prune)
            except (CheckpointError, GitError, OSError) as exc:
                log.warning("checkpoint pruning failed: %s", exc)

        task = asyncio.get_running_loop().create_task(prune(), name=f"prune {ws.id}")
        self._pruning.add(task)
        task.add_done_callback(self._pruning.discard)

    async def close(self) -> None:
        """Wait for pruning in flight (bounded)."""
        if self._pruning:
            await asyncio.wait(set(self._pruning), timeout=30)

    # -- restoring ------------------------------------------------------------------------------

    async def restore(
        self,
        svc: Service,
        target: str,
        *,
        op: str,
        turn: str | None,
        preview: bool,
        confirm_conflicts: bool,
        before_apply: Callable[[], Awaitable[None]] | None = None,
    ) -> RestoreOutcome:
        """Restore the workspace to `target` (or only say what would change, `preview`).

        Files changed outside gg since its last recorded state that the restore would overwrite
        are conflicts: refused unless `confirm_conflicts`. The state replaced is recorded, so
        the restore can be undone (redo after undo, undo after restore).
        """
        if svc.active_run_id is not None or self.workspace_busy(svc.workspace.id):
            raise E.RunConflictError(
                "a run is active in this workspace; cancel it or wait before restoring files"
            )
        store = self._store_for(svc.workspace)
        try:
            now, _before, diff, conflicts = await asyncio.to_thread(store.plan, target)
        except (CheckpointError, GitError) as exc:
            raise E.InvalidActionError(f"cannot restore files: {exc}") from None
        out = RestoreOutcome(
            applied=False,
            target=target,
            current=now.commit,
            files=diff.files,
            conflicts=conflicts,
            patch=diff.patch,
            truncated=diff.truncated,
            skipped=diff.skipped,
            turn=turn,
        )
        if preview:
            return out
        if conflicts and not confirm_conflicts:
            raise conflict_error(conflicts)
        if before_apply is not None:
            await before_apply()
        if diff.files:
            try:
                await asyncio.to_thread(store.restore, now.commit, target)
            except (CheckpointError, GitError, OSError) as exc:
                raise E.InternalError(f"the restore failed: {exc}") from None
        data = {"commit": target, "at": "restore", "op": op, "from": now.commit, "turn": turn}
        await svc.write(lambda sf: sf.append(T.KIND, data))
        out.applied = True
        self.bus.publish(
            SessionEvent(
                session_id=svc.id,
                type="files_restored",
                count=len(diff.files),
                name=op,
            ),
            svc.workspace.id,
        )
        return out

    async def undo(
        self, svc: Service, *, preview: bool, confirm_conflicts: bool, redo: bool = False
    ) -> RestoreOutcome:
        """Restore the files to before the last turn not undone yet (redo: reapply the last undo)."""
        self._check_enabled()
        await svc.ensure_loaded()
        step = await svc.read(T.next_redo if redo else T.next_undo)
        if step is None:
            what = "redo" if redo else "undo"
            raise E.InvalidActionError(f"nothing to {what} in this session")
        return await self.restore(
            svc,
            step.target,
            op="redo" if redo else "undo",
            turn=step.turn,
            preview=preview,
            confirm_conflicts=confirm_conflicts,
        )

    async def node_state(self, svc: Service, node_id: str | None) -> str:
        """The state recorded at a node; a user message means the state its turn started from."""
        self._check_enabled()
        await svc.ensure_loaded()
        found = await svc.read(lambda sf: T.state_at(sf, node_id))
        if found is None:
            raise E.InvalidActionError("no checkpoint was recorded at or before that node")
        return found

    async def diff(
        self, svc: Service, turn_id: str | None, run_id: str | None = None
    ) -> RestoreOutcome:
        """What one turn (or run) changed (the last turn when None): its start -> its end."""
        self._check_enabled()
        await svc.ensure_loaded()
        if run_id is not None:
            turn_id = await svc.read(lambda sf: T.turn_of_run(sf, run_id))
            if turn_id is None:
                raise E.InvalidActionError(f"no checkpoint of run {run_id[:40]!r} in this session")
        turn, start, end = await svc.read(lambda sf: T.turn_range(sf, turn_id))
        if turn is None:
            raise E.InvalidActionError("the session has no turn yet")
        if start is None or end is None:
            raise E.InvalidActionError("no checkpoint was recorded for that turn")
        try:
            d = await asyncio.to_thread(self._store_for(svc.workspace).diff, start, end)
        except (CheckpointError, GitError) as exc:
            raise E.InvalidActionError(f"cannot diff that turn: {exc}") from None
        return RestoreOutcome(
            applied=False,
            target=end,
            current=start,
            files=d.files,
            patch=d.patch,
            truncated=d.truncated,
            skipped=d.skipped,
            turn=turn,
        )
