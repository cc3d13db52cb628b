"""File helpers both stores share: the owner-only folder, the cross-process lock, JSON state."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ggd.app.files import owner_lock, write_private
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


@contextlib.contextmanager
def locked(lock_path: Path, what: str) -> Iterator[None]:
    """Hold the store's exclusive flock (cross-process; released if the holder dies)."""
    private_dir(lock_path.parent)
    with owner_lock(
        lock_path,
        timeout=LOCK_TIMEOUT_SECONDS,
        check_interval=0.002,
        busy=lambda: E.InternalError(f"the {what} is busy; retry in a moment", retryable=True),
    ):
        yield


def write_json(path: Path, value: Any) -> None:
    """Replace a JSON state file atomically, owner-only."""
    write_private(path, (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode())


def read_json(path: Path) -> Any:
    """A JSON state file's value (FileNotFoundError when absent)."""
    return json.loads(path.read_bytes())


def now_ms() -> int:
    """Wall-clock milliseconds, the protocol's timestamp unit."""
    return int(time.time() * 1000)
