"""Service: one open conversation, its file, its write lock, its projections and its resources."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from ggd.protocol import Message, SessionUpdate, Snapshot, WorkspaceRef
from ggd.protocol import errors as E
from ggd.session import SessionConflictError, SessionFile, SessionNotFoundError
from ggd.session.codec import bulk_allocation

from . import snapshot as wire_snapshot
from . import snapshot_file
from .lineage import link_fields
from .naming import session_name
from .snapshot import SnapshotView, message_dto, tree_item
from .workspaces import Workspace

log = logging.getLogger("ggd.app")

T = TypeVar("T")
# How long closing one Service's resources (a browser, MCP clients) may take before it is abandoned.
CLOSE_TIMEOUT_SECONDS = 10.0
S = TypeVar("S", bound=Snapshot)


class Service:
    """One conversation: every write goes through `write`, one at a time, off the event loop."""

    def __init__(self, sf: SessionFile, workspace: Workspace) -> None:
        self.file = sf
        self.workspace = workspace
        self.lock = asyncio.Lock()
        self.active_run_id: str | None = None
        # What capability providers opened for this session; closed with the Service.
        self.resources = contextlib.AsyncExitStack()
        # Per-provider memo (connections, caches), keyed by provider name.
        self.state: dict[str, dict[str, Any]] = {}
        self.closed = False

    async def close(self) -> None:
        """Close what providers opened for this session: bounded, logged, never raised."""
        if self.closed:
            return
        self.closed = True
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_SECONDS):
                await self.resources.aclose()
        except TimeoutError:
            log.warning("closing session resources timed out", extra={"session": self.id})
        except Exception:
            log.warning(
                "closing session resources failed", extra={"session": self.id}, exc_info=True
            )
        self.state.clear()

    @property
    def id(self) -> str:
        """The session id."""
        return self.file.id

    @property
    def idle(self) -> bool:
        """No run and no file operation in flight: its entries may be released."""
        return self.active_run_id is None and not self.lock.locked()

    async def ensure_loaded(self) -> None:
        """Rebuild a released file's entries in a worker thread, so loop-side reads stay cheap.

        A no-op (no await) when loaded: code right after it may read the file on the loop.
        A released file replaced behind our back is re-read as it is now (what a fresh open sees).
        """
        if self.file.loaded:
            return
        async with self.lock:
            if self.file.loaded:
                return
            try:
                await asyncio.to_thread(lambda: self.file.entries)
            except SessionConflictError:
                await self._reread()

    async def _reread(self) -> None:
        """Re-read a released file that changed behind our back (caller holds the lock)."""
        log.info("released session changed on disk; re-read", extra={"session": self.id})
        try:
            await asyncio.to_thread(self.file.reload)
        except SessionNotFoundError:
            raise E.SessionNotFoundError(f"no session with id {self.id!r}") from None

    async def write(self, fn: Callable[[SessionFile], T]) -> T:
        """Run a file mutation under the lock in a worker thread; a stale file -> session_conflict."""
        async with self.lock:
            try:
                return await asyncio.to_thread(fn, self.file)
            except SessionConflictError:
                await asyncio.to_thread(self.file.reload)
                raise E.SessionConflictError(
                    "the session was changed by another writer; it has been reloaded, try again"
                ) from None

    async def read(self, fn: Callable[[SessionFile], T]) -> T:
        """Read a projection under the lock, off the event loop (big trees take milliseconds)."""
        async with self.lock:
            return await asyncio.to_thread(fn, self.file)

    async def view(self) -> SnapshotView:
        """The snapshot in wire form, off the event loop (from the derived file when current)."""
        return await self._cached(Snapshot)

    async def update_view(self, **extra: Any) -> SnapshotView:
        """The SessionUpdate after a tree action (with draft/notice), off the event loop."""
        return await self._cached(SessionUpdate, **extra)

    async def _cached(self, cls: type[Snapshot], **extra: Any) -> SnapshotView:
        # The entries need not be loaded: a hit never reads them, a miss loads them in the
        # thread; a released file replaced behind our back is re-read as ensure_loaded does.
        # Idle, the file may have moved on under another process (a private `ggd --stdio`
        # appended a run): serve what is on disk, not our older view. During our own run the
        # run owns the view, and a foreign append surfaces as its next write's conflict.
        fresh = self.active_run_id is None
        # A subagent's session says whose it is (header only: no entries needed).
        extra = {**link_fields(self.file.header.parent), **extra}
        async with self.lock:
            try:
                return await asyncio.to_thread(self._view_of_disk, fresh, cls, **extra)
            except SessionConflictError:
                await self._reread()
                return await asyncio.to_thread(self.cached_view, cls, **extra)

    async def refresh(self) -> None:
        """Re-read the file if another process moved it on while we were idle (before a run)."""
        if self.active_run_id is not None:
            return
        async with self.lock:
            await asyncio.to_thread(self._reload_if_moved)

    def _reload_if_moved(self) -> None:
        if self.file.moved_on():
            log.info("session file changed on disk; re-read", extra={"session": self.id})
            try:
                self.file.reload()
            except SessionNotFoundError:
                raise E.SessionNotFoundError(f"no session with id {self.id!r}") from None

    def _view_of_disk(self, fresh: bool, cls: type[Snapshot], **extra: Any) -> SnapshotView:
        """cached_view, after re-reading a file another process changed (worker thread)."""
        if fresh:
            self._reload_if_moved()
        return self.cached_view(cls, **extra)

    async def warm(self) -> None:
        """Bring the derived snapshot file up to date (after a run), so the next open is a hit.

        Best effort and off the loop: a session that cannot be snapshotted just has no file.
        """
        async with self.lock:
            if self.closed or self.active_run_id is not None:
                return
            try:
                await asyncio.to_thread(
                    self.file.derived, snapshot_file.SNAPSHOT, snapshot_file.payload
                )
            except Exception:
                log.debug("snapshot file not refreshed", extra={"session": self.id}, exc_info=True)

    def cached_view(self, cls: type[Snapshot], **extra: Any) -> SnapshotView:
        """snapshot_view(cls) with the messages and tree spliced from the derived file.

        Byte for byte the same JSON once msgspec encodes it; the file is rebuilt from the
        entries (and rewritten) when it does not match this view of the session.
        """
        sf = self.file
        data = sf.derived(snapshot_file.SNAPSHOT, snapshot_file.payload)
        if data is not None:
            ws = WorkspaceRef(id=self.workspace.id, name=self.workspace.name)
            view = snapshot_file.view_from(
                data, cls, session_id=sf.id, active_run_id=self.active_run_id, workspace=ws, **extra
            )
            if view is not None:
                return view
        return self.snapshot_view(cls, **extra)

    def snapshot_view(self, cls: type[Snapshot], **extra: Any) -> SnapshotView:
        """The client view of this session straight in wire form: equal to snapshot(cls).wire()."""
        sf = self.file
        # ~30k new dicts and lists for 10k messages: a collector pass over the daemon's heap
        # while they are built costs more than building them (nothing here forms a cycle).
        with bulk_allocation():
            return self._snapshot_view(sf, cls, **extra)

    def _snapshot_view(self, sf: SessionFile, cls: type[Snapshot], **extra: Any) -> SnapshotView:
        tree = sf.tree_with(wire_snapshot.tree_rows)  # None: a node the model must judge
        return wire_snapshot.build(
            cls,
            session_id=sf.id,
            name=session_name(sf.name, sf.first_prompt),
            model=sf.model or "",
            path=sf.active_path(),
            tree=tree,
            nodes=sf.tree,
            active_run_id=self.active_run_id,
            workspace=WorkspaceRef(id=self.workspace.id, name=self.workspace.name),
            **extra,
        )

    def snapshot(self, cls: type[S], **extra: Any) -> S:
        """The client view of this session as models (the reference snapshot_view must equal)."""
        sf = self.file
        messages: list[Message] = []
        summary: str | None = None
        for e in sf.active_path():
            if e.kind == "message":
                messages.append(message_dto(e.id, e.data))
            elif e.kind == "summary":
                summary = str(e.data.get("summary") or "")
        tree = [tree_item(n) for n in sf.tree()]
        return cls(
            session_id=sf.id,
            name=session_name(sf.name, sf.first_prompt),
            model=sf.model or "",
            summary=summary,
            messages=messages,
            tree=tree,
            active_run_id=self.active_run_id,
            workspace=WorkspaceRef(id=self.workspace.id, name=self.workspace.name),
            **extra,
        )
