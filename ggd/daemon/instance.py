"""Single-instance lock and the discovery file that lets clients find the running daemon."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggd.app import write_private

if TYPE_CHECKING:
    import portalocker


class AlreadyRunningError(Exception):
    """Another daemon holds the lock for this GG_HOME."""


class InstanceLock:
    """An exclusive flock on GG_HOME/run/ggd.lock; the OS drops it when a daemon dies."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock: portalocker.Lock | None = None

    def acquire(self) -> None:
        """Take the lock or raise AlreadyRunningError."""
        import portalocker  # ~20 ms of imports (importlib.metadata, its redis shim): not at start

        lock = portalocker.Lock(
            str(self.path), mode="a", timeout=0, flags=portalocker.LOCK_EX | portalocker.LOCK_NB
        )
        try:
            lock.acquire()
        except portalocker.exceptions.LockException:
            raise AlreadyRunningError("ggd is already running for this GG_HOME") from None
        os.chmod(self.path, 0o600)
        self._lock = lock

    def release(self) -> None:
        """Drop the lock."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None


def write_discovery(path: Path, info: dict[str, Any]) -> None:
    """Atomically write the discovery file, 0600."""
    write_private(
        path, json.dumps({**info, "startedAt": int(time.time() * 1000)}, indent=1).encode()
    )


def remove_discovery(path: Path, pid: int) -> None:
    """Remove the discovery file if it is still ours."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if data.get("pid") == pid:
        path.unlink(missing_ok=True)


def running_daemon_pid(path: Path) -> int | None:
    """The pid in the discovery file when that process is alive, else None."""
    try:
        pid = int(json.loads(path.read_text(encoding="utf-8"))["pid"])
        os.kill(pid, 0)
    except PermissionError:
        return pid
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return pid if pid != os.getpid() else None
