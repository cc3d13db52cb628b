"""Per-path asyncio locks shared by every session of one daemon."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path


def _key(path: Path | str) -> str:
    # Pure string normalisation (no symlink resolution): tools already pass resolved paths.
    return os.path.normpath(os.path.abspath(path))


class PathLocks:
    """Serialize writers of the same path; acquire in sorted order so two holders never deadlock."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}

    @asynccontextmanager
    async def hold(self, paths: Iterable[Path | str]) -> AsyncIterator[None]:
        """Hold the locks of all `paths` for the body of the `async with`."""
        keys = sorted({_key(p) for p in paths})
        for key in keys:
            self._users[key] = self._users.get(key, 0) + 1
            self._locks.setdefault(key, asyncio.Lock())
        held: list[str] = []
        try:
            for key in keys:
                await self._locks[key].acquire()
                held.append(key)
            yield
        finally:
            for key in reversed(held):
                self._locks[key].release()
            for key in keys:
                # Forget idle locks so the table does not grow with every path ever written.
                self._users[key] -= 1
                if self._users[key] == 0:
                    del self._users[key]
                    del self._locks[key]

    def __len__(self) -> int:
        return len(self._locks)
