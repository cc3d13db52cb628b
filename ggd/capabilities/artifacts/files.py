"""File helpers both stores share: the owner-only folder, the cross-process lock, JSON state."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import portalocker

from ggd.app.files import write_private
from ggd.protocol import errors as E

DIR_MODE = 0o700
FILE_MODE = 0o600
LOCK_TIMEOUT_SECONDS = 10.0


def private_dir(path: Path) -> Path:
    """Create path (and parents) owner-only; tighten it if it already existed."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    if (path.stat().st_mode & 0o777) != DIR_MODE:
        os.chmod(path, DIR_MODE)
    return path


def _opener(path: str, flags: int) -> int:
    return os.open(path, flags, FILE_MODE)


@contextlib.contextmanager
def locked(lock_path: Path, what: str) -> Iterator[None]:
    """Hold the store's exclusive flock (cross-process; released if the holder dies)."""
    private_dir(lock_path.parent)
    # NON_BLOCKING + timeout: portalocker retries until the deadline instead of waiting forever
    # behind a hung holder.
    lock = portalocker.Lock(
        str(lock_path),
        mode="a",
        timeout=LOCK_TIMEOUT_SECONDS,
        check_interval=0.002,
        flags=portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING,
        opener=_opener,
    )
    try:
        lock.acquire()
    except portalocker.LockException as exc:
        raise E.InternalError(f"the {what} is busy; retry in a moment", retryable=True) from exc
    try:
        yield
    finally:
        lock.release()


def write_json(path: Path, value: Any) -> None:
    """Replace a JSON state file atomically, owner-only."""
    write_private(path, (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode())


def read_json(path: Path) -> Any:
    """A JSON state file's value (FileNotFoundError when absent)."""
    return json.loads(path.read_bytes())


def now_ms() -> int:
    """Wall-clock milliseconds, the protocol's timestamp unit."""
    return int(time.time() * 1000)
