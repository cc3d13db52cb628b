"""Manager: open Services by session id, with LRU eviction of idle ones."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

from ggd.protocol import errors as E
from ggd.session import SessionFile, SessionFormatError, SessionNotFoundError, SessionRepository

from .service import Service
from .snapshot_file import SNAPSHOT
from .workspaces import Workspace, WorkspaceRegistry

DEFAULT_CAPACITY = 64
# How many most recently used idle sessions keep their entries in memory; colder ones release
# them (header + fingerprint stay, ~1.4 KB) and rebuild in a worker thread on the next use.
DEFAULT_HOT = 8
log = logging.getLogger("ggd.app")


class Manager:
    """Keeps at most `capacity` sessions open; a session with an active run is never evicted."""

    def __init__(
        self,
        repo: SessionRepository,
        workspaces: WorkspaceRegistry,
        capacity: int = DEFAULT_CAPACITY,
        hot: int = DEFAULT_HOT,
    ) -> None:
        self.repo = repo
        self.workspaces = workspaces
        self.capacity = capacity
        self.hot = max(1, hot)
        self._open: OrderedDict[str, Service] = OrderedDict()
        self._opening: dict[str, asyncio.Lock] = {}
        # Evicted services whose resources are still closing (awaited at shutdown).
        self._closing: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._open)

    def cached(self, session_id: str) -> Service | None:
        """An already open service, without touching the disk."""
        return self._open.get(session_id)

    async def get(self, session_id: str, *, load: bool = True) -> Service:
        """The open service for a session, opening it from disk if needed.

        load=False leaves a released (or deferred) session's entries on disk: for a caller
        that only reads them in a worker thread (Service.view) or not at all.
        """
        svc = self._open.get(session_id)
        if svc is not None:
            self._open.move_to_end(session_id)
            self._release_cold()
            if load:
                await svc.ensure_loaded()
            return svc
        lock = self._opening.setdefault(session_id, asyncio.Lock())
        async with lock:
            svc = self._open.get(session_id)
            if svc is None:
                sf = await self._load(session_id)
                ws = self.workspaces.get(sf.header.workspace_id)
                if ws is None:
                    raise E.WorkspaceMismatchError(
                        "the session's workspace is not known to this daemon; open it from its project folder"
                    )
                svc = self._put(Service(sf, ws))
        self._opening.pop(session_id, None)
        if load:
            await svc.ensure_loaded()
        return svc

    async def _load(self, session_id: str) -> SessionFile:
        try:
            # A session with a current snapshot file opens without decoding its entries.
            return await asyncio.to_thread(self.repo.open, session_id, SNAPSHOT)
        except SessionNotFoundError:
            raise E.SessionNotFoundError(f"no session with id {session_id!r}") from None
        except SessionFormatError as exc:
            raise E.InvalidActionError(f"the session file cannot be read: {exc}") from None

    def adopt(self, sf: SessionFile, ws: Workspace) -> Service:
        """Register a session just created (or forked) in this daemon."""
        return self._put(Service(sf, ws))

    def evict(self, session_id: str) -> None:
        """Close a session's service once it is idle (its resources: MCP servers, a browser).

        Its file stays; a later get() opens it again. It waits for the file operation in flight
        (the snapshot refresh after a run) and leaves a service that started a run meanwhile.
        """
        svc = self._open.get(session_id)
        if svc is None:
            return

        async def when_idle() -> None:
            async with svc.lock:
                if self._open.get(session_id) is not svc or svc.active_run_id is not None:
                    return
                del self._open[session_id]
            await svc.close()

        task = asyncio.get_running_loop().create_task(when_idle(), name=f"evict {session_id}")
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _put(self, svc: Service) -> Service:
        self._open[svc.id] = svc
        self._open.move_to_end(svc.id)
        if len(self._open) > self.capacity:
            for sid, old in list(self._open.items()):
                if len(self._open) <= self.capacity:
                    break
                if old.active_run_id is None and not old.lock.locked() and old is not svc:
                    del self._open[sid]
                    self._close_later(old)
        self._release_cold()
        return svc

    def _release_cold(self) -> None:
        # Idle sessions beyond the `hot` most recently used drop their entries; a busy one
        # (run or file operation in flight) keeps them and is released on a later pass.
        cold = len(self._open) - self.hot
        for svc in self._open.values():
            if cold <= 0:
                break
            cold -= 1
            if svc.file.loaded and svc.idle:
                svc.file.release()

    def _close_later(self, svc: Service) -> None:
        # Closing may wait on a browser or a server: never under the caller's locks or inline.
        task = asyncio.get_running_loop().create_task(svc.close(), name=f"close {svc.id}")
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        """Close every open service and wait for evictions in flight (each bounded)."""
        services = list(self._open.values())
        self._open.clear()
        for svc in services:
            self._close_later(svc)
        if self._closing:
            await asyncio.wait(set(self._closing))
