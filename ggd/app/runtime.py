"""Runtime: the application core every connection shares (sessions, workspaces, session events)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ggd.checkpoints import CheckpointSettings
from ggd.protocol import SessionEvent, SessionSummary, UsageInfo, WorkspaceRef
from ggd.protocol import errors as E
from ggd.session import SessionRepository

from .bus import SessionBus
from .checkpoints import Checkpointer, conflict_error
from .manager import Manager
from .naming import name_copy, session_name
from .service import Service
from .snapshot import SnapshotView
from .workspaces import Workspace, WorkspaceRegistry

log = logging.getLogger("ggd.app")


@dataclass
class RuntimeOptions:
    """Where state lives and what the daemon defaults to."""

    home: Path
    default_workspace: Path
    default_model: str = "demo:gg-demo"
    capacity: int = 64
    # Idle open sessions beyond the `hot` most recently used release their entries (memory per idle session stays ~1 KB).
    hot: int = 8
    # config.json `checkpoints` (docs/checkpoints.md).
    checkpoints: CheckpointSettings = field(default_factory=CheckpointSettings)


def root_from_uri(uri: str) -> Path | None:
    """A local path from a file:// URI (None for anything else)."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    return Path(unquote(parts.path))


class Runtime:
    """Sessions by stable id, grouped by workspace; changes fan out as gg/session.event."""

    def __init__(self, opts: RuntimeOptions) -> None:
        self.opts = opts
        self.repo = SessionRepository(opts.home / "sessions")
        self.workspaces = WorkspaceRegistry(opts.home / "workspaces.json", opts.default_workspace)
        self.manager = Manager(self.repo, self.workspaces, opts.capacity, opts.hot)
        self.bus = SessionBus()
        self.checkpoints = Checkpointer(opts.home / "checkpoints", opts.checkpoints, self.bus)
        self.closed = False

    # -- workspaces --------------------------------------------------------------------------

    def workspace_for(
        self, root_uri: str | None, folders: list[str], workspace_id: str | None
    ) -> Workspace:
        """Pick a connection's workspace: an explicit known id, the first folder, rootUri, or the default."""
        if workspace_id:
            ws = self.workspaces.get(workspace_id)
            if ws is None:
                shown = workspace_id if len(workspace_id) <= 80 else workspace_id[:80] + "..."
                raise E.WorkspaceMismatchError(f"unknown workspace id {shown!r}")
            return ws
        named = False
        for uri in [*folders, root_uri or ""]:
            path = root_from_uri(uri) if uri else None
            named = named or path is not None
            if path is not None and path.is_dir():
                return self.workspaces.add(path)
        if named:
            # A mistyped folder must never fall back to the default workspace, where a run would
            # read (and with yolo write) another project. The client knows which path it sent.
            raise E.WorkspaceMismatchError(
                "the workspace folder named in initialize does not exist or is not a folder"
            )
        return self.workspaces.default

    # -- sessions ----------------------------------------------------------------------------

    async def service(self, session_id: str, ws: Workspace, *, load: bool = True) -> Service:
        """The open service of a session that belongs to `ws` (load: see Manager.get)."""
        svc = await self.manager.get(session_id, load=load)
        if svc.workspace.id != ws.id:
            raise E.WorkspaceMismatchError(
                f"that session belongs to workspace {svc.workspace.name!r} "
                f"(id {svc.workspace.id}), not this connection's; connect with that workspace "
                "to open it (gg sessions --all lists every workspace's sessions)"
            )
        return svc

    async def list_sessions(
        self,
        ws: Workspace | None,
        limit: int,
        cursor: str | None,
        active: dict[str, str],
        *,
        roots: bool = False,
    ) -> tuple[list[SessionSummary], str | None]:
        """A page of the workspace's sessions (every workspace's for None), newest first.

        Rows of an all-workspace page name their workspace (with its folder when `roots`).
        """
        try:
            rows, nxt = await asyncio.to_thread(
                self.repo.list, ws.id if ws else None, limit, cursor
            )
        except ValueError:
            raise E.InvalidParamsError(
                "invalid params: cursor: not a cursor from session.list"
            ) from None
        out = [
            SessionSummary(
                id=r.id,
                name=session_name(r.name, r.first_prompt),
                updated_at=int(r.updated_at),
                message_count=int(r.message_count),
                preview=r.preview or "",
                active_run_id=active.get(r.id),
                damaged=r.damaged,
                workspace=None if ws else self.workspace_ref(r.workspace_id, roots=roots),
                usage=UsageInfo.model_validate(r.usage) if r.usage else None,
            )
            for r in rows
        ]
        return out, nxt

    def workspace_ref(self, workspace_id: str, *, roots: bool) -> WorkspaceRef:
        """A workspace as a client sees it (its folder only for clients on this machine)."""
        known = self.workspaces.get(workspace_id)
        if known is None:  # a session of a folder that no longer exists
            return WorkspaceRef(id=workspace_id, name="(folder gone)")
        return WorkspaceRef(id=known.id, name=known.name, root=str(known.root) if roots else None)

    async def create_session(
        self, ws: Workspace, name: str | None, model: str | None
    ) -> SnapshotView:
        """Create a session in a workspace."""
        sf = await asyncio.to_thread(
            self.repo.create, ws.id, name=name or "", model=model or self.opts.default_model
        )
        svc = self.manager.adopt(sf, ws)
        self.bus.publish(SessionEvent(session_id=svc.id, type="created", name=sf.name or ""), ws.id)
        return await svc.view()

    async def rename(self, svc: Service, name: str) -> SnapshotView:
        """Rename and tell subscribers."""
        await svc.write(lambda sf: sf.rename(name))
        view = await svc.view()
        # The shown name: clearing the explicit name falls back to the first prompt.
        self.bus.publish(
            SessionEvent(session_id=svc.id, type="renamed", name=view.name), svc.workspace.id
        )
        return view

    async def action(
        self,
        svc: Service,
        action: str,
        node_id: str | None,
        *,
        restore_files: bool = False,
        confirm_conflicts: bool = False,
    ) -> SnapshotView:
        """Checkout (tree), fork or clone; a user-message target returns its text as the draft.

        `restore_files` (tree only) also restores the workspace to the node's checkpoint; its
        conflicts are checked before the head moves, so a refused restore changes nothing.
        """
        if svc.active_run_id is not None and action == "tree":
            raise E.RunConflictError(
                "the session has an active run; cancel it or wait before moving the head"
            )
        await svc.ensure_loaded()  # _target reads entries on the loop, right after this
        target, draft = self._target(svc, action, node_id)
        if action == "tree":
            files: str | None = None
            if restore_files:
                files = await self.checkpoints.node_state(svc, node_id)
                plan = await self.checkpoints.restore(
                    svc, files, op="restore", turn=node_id, preview=True, confirm_conflicts=False
                )
                if plan.conflicts and not confirm_conflicts:
                    raise conflict_error(plan.conflicts)
            head = await svc.write(lambda sf: sf.checkout(target))
            leaf = head.id
            if files is not None:
                await self.checkpoints.restore(
                    svc,
                    files,
                    op="restore",
                    turn=node_id,
                    preview=False,
                    confirm_conflicts=confirm_conflicts,
                )
            self.bus.publish(
                SessionEvent(session_id=svc.id, type="head_changed", leaf_id=leaf), svc.workspace.id
            )
            return await svc.update_view(action="tree", draft=draft)
        kind = "fork" if action == "fork" else "clone"
        name = await svc.read(lambda sf: name_copy(self.repo, sf, kind))
        if action == "fork":
            new = await svc.write(lambda sf: sf.fork(target, name))
        else:
            new = await svc.write(lambda sf: sf.clone(name))
        new_svc = self.manager.adopt(new, svc.workspace)
        self.bus.publish(
            SessionEvent(session_id=svc.id, type="forked", new_session_id=new.id, kind=kind),
            svc.workspace.id,
        )
        notice = f"{'Forked' if kind == 'fork' else 'Cloned'} into “{name}” ({new.id})"
        return await new_svc.update_view(action=action, draft=draft, notice=notice)

    def _target(
        self, svc: Service, action: str, node_id: str | None
    ) -> tuple[str | None, str | None]:
        sf = svc.file
        if action == "clone":
            return None, None
        if node_id is None:
            if action == "tree":
                raise E.InvalidParamsError("invalid params: nodeId: required for the tree action")
            return sf.leaf_id, None
        entry = sf.get(node_id)
        if entry is None:
            raise E.InvalidActionError(f"no node {node_id!r} in this session")
        if entry.kind == "message" and entry.data.get("role") == "user":
            return entry.parent_id, str(entry.data.get("content") or "")
        return entry.id, None

    async def close(self) -> None:
        """Refuse new work, then close every open session's resources (bounded per session)."""
        self.closed = True
        await self.manager.close()
        await self.checkpoints.close()
