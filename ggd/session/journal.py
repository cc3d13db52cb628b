"""Durable file operations: private modes, the writer lease, fingerprints, appends, new files."""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: portalocker's own locker (imported only there: ~20 ms)
    fcntl = None  # type: ignore[assignment]

from .errors import SessionConflictError

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "Fingerprint",
    "append_checked",
    "ensure_private_dir",
    "fingerprint_at",
    "lease",
    "read_edges",
    "read_file",
    "truncate_to",
    "write_atomic",
    "write_new_file",
]

FILE_MODE = 0o600
DIR_MODE = 0o700
TAIL_BYTES = 32


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """What a SessionFile last saw: same inode, same length, same last bytes."""

    dev: int
    ino: int
    size: int
    tail: bytes


def ensure_private_dir(path: Path) -> None:
    """Create path (and missing parents) as 0700; tighten path itself if it already exists."""
    missing: list[Path] = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(d, DIR_MODE)
    if (path.stat().st_mode & 0o777) != DIR_MODE:
        os.chmod(path, DIR_MODE)


_LOCK_RETRY_SECONDS = 0.002


def _try_lock(fd: int) -> bool:
    """Take an exclusive flock on fd without waiting; False when someone else holds it."""
    if fcntl is not None:
        # What portalocker does on POSIX, minus its flag validation (~10 µs per append).
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    import portalocker

    try:
        portalocker.lock(fd, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
    except portalocker.AlreadyLocked:
        return False
    except portalocker.LockException as exc:  # the lease reports OSError as a busy session
        raise OSError(str(exc)) from exc
    return True


def _unlock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
    else:
        import portalocker

        portalocker.unlock(fd)


@contextlib.contextmanager
def lease(lock_path: Path, timeout: float) -> Iterator[None]:
    """Hold the cross-process writer lease (flock on a sidecar file; dies with the process)."""
    # A raw descriptor, not a portalocker.Lock object: the same flock at a fraction of the
    # cost (the lease is taken on every append). NON_BLOCKING + our own deadline: a blocking
    # flock would ignore the timeout and could wait forever behind a hung writer.
    fd = os.open(lock_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, FILE_MODE)
    try:
        deadline = time.monotonic() + timeout
        try:
            while not _try_lock(fd):
                if time.monotonic() >= deadline:
                    raise SessionConflictError(
                        "session is busy: another writer holds it; retry in a moment"
                    )
                time.sleep(_LOCK_RETRY_SECONDS)
        except OSError as exc:
            raise SessionConflictError(
                "session is busy: another writer holds it; retry in a moment"
            ) from exc
        try:
            if (os.fstat(fd).st_mode & 0o777) != FILE_MODE:
                os.fchmod(fd, FILE_MODE)  # a lock file made by someone else's umask
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


def read_file(path: Path) -> tuple[bytes, int, int]:
    """Read a whole file in one go; returns (bytes, st_dev, st_ino) of the file read."""
    with open(path, "rb", buffering=0) as f:
        st = os.fstat(f.fileno())
        data = f.read()
    return data, st.st_dev, st.st_ino


def read_edges(path: Path, head_bytes: int = 65536) -> tuple[bytes, Fingerprint, int] | None:
    """(first line, fingerprint, st_mtime_ns) of a file without reading its middle.

    None when it is missing or the first head_bytes hold no complete line (a caller then
    reads the whole file the usual way).
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        head = os.pread(fd, min(st.st_size, head_bytes), 0)
        nl = head.find(b"\n")
        if nl < 0:
            return None
        return head[:nl], fingerprint_at(fd, st), st.st_mtime_ns
    except OSError:
        return None
    finally:
        os.close(fd)


def fingerprint_at(fd: int, st: os.stat_result) -> Fingerprint:
    """The fingerprint of an open file whose fstat is st (its last TAIL_BYTES read from fd)."""
    start = max(0, st.st_size - TAIL_BYTES)
    tail = os.pread(fd, st.st_size - start, start)
    return Fingerprint(st.st_dev, st.st_ino, st.st_size, tail)


def _fingerprint_fd(fd: int) -> Fingerprint:
    return fingerprint_at(fd, os.fstat(fd))


def append_checked(path: Path, expected: Fingerprint, payload: bytes) -> Fingerprint:
    """Append payload if the file still matches expected (caller holds the lease).

    Returns the new fingerprint. Raises SessionConflictError when the file changed.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except FileNotFoundError as exc:
        raise SessionConflictError("session file disappeared; reload the session") from exc
    try:
        current = _fingerprint_fd(fd)
        if current != expected:
            raise SessionConflictError(
                "session changed since it was read (another writer); reload and retry"
            )
        view = memoryview(payload)
        try:
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        except BaseException:
            # Leave no half line behind for the next reader (best effort: we hold the lease).
            with contextlib.suppress(OSError):
                os.ftruncate(fd, current.size)
            raise
        new_tail = (current.tail + payload)[-TAIL_BYTES:]
        return Fingerprint(current.dev, current.ino, current.size + len(payload), new_tail)
    finally:
        os.close(fd)


def truncate_to(path: Path, length: int) -> None:
    """Cut a file to length and make it durable (torn-tail repair, under the lease)."""
    fd = os.open(path, os.O_RDWR)
    try:
        os.ftruncate(fd, length)
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_new_file(path: Path, payload: bytes) -> None:
    """Create path atomically with payload (0600); FileExistsError if it already exists."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        try:
            os.fchmod(fd, FILE_MODE)
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        # link() never replaces an existing file, unlike rename(): a new id can't clobber one.
        os.link(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    _fsync_dir(path.parent)


def write_atomic(path: Path, payload: bytes, *more: bytes) -> None:
    """Replace path atomically with payload and then `more` (0600), for caches."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        with contextlib.suppress(OSError):
            os.fchmod(fd, FILE_MODE)
        for part in (payload, *more):  # parts, not one joined copy (a snapshot is tens of MB)
            view = memoryview(part)
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
