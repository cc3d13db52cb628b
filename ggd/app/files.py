"""Owner-only state files under GG_HOME: atomic replacement and a bounded cross-process lock."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path


def write_private(path: Path, payload: bytes) -> None:
    """Replace path with payload: 0600, fsynced, never half-written (temp file + rename)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # mkstemp is 0600
    try:
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def owner_lock(
    path: Path,
    *,
    timeout: float = 10.0,
    busy: Callable[[], Exception] | None = None,
    check_interval: float = 0.005,
) -> Iterator[None]:
    """Hold an exclusive cross-process lock on `path` (0600, folder 0700), bounded by `timeout`.

    Non-blocking attempts are retried until the deadline, so a hung holder costs a clear error
    (`busy()`, else TimeoutError) instead of a wait forever; a holder that dies releases it.
    """
    import portalocker

    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = portalocker.Lock(
        str(path),
        mode="a",
        timeout=timeout,
        check_interval=check_interval,
        flags=portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING,
        opener=lambda p, flags: os.open(p, flags, 0o600),
    )
    try:
        lock.acquire()
    except portalocker.LockException:
        if busy is not None:
            raise busy() from None
        raise TimeoutError(f"{path.name} is locked by another process") from None
    try:
        yield
    finally:
        lock.release()
