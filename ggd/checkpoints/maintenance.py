"""Pruning old snapshots, and the durable writes of the restore journal."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from pathlib import Path

from .gitcli import Git

PREFIX = "refs/gg/cp/"


def prune_refs(
    git: Git, latest: str | None, keep: set[str], max_age_days: float, max_bytes: int
) -> int:
    """Drop snapshots older than max_age_days, then the oldest while the objects exceed
    max_bytes (a quarter at a time, so the loop is bounded); never `latest` or `keep`."""
    out = git.text(
        [
            "for-each-ref",
            "--sort=committerdate",
            "--format=%(objectname) %(committerdate:unix)",
            PREFIX,
        ]
    )
    rows = [(c, int(t)) for c, t in (ln.split(" ") for ln in out.splitlines() if ln)]
    cutoff = time.time() - max_age_days * 86400
    old = [c for c, t in rows if t < cutoff and c != latest and c not in keep]
    dropped = _drop(git, old)
    gone = set(old)
    rest = [c for c, _ in rows if c not in gone and c != latest and c not in keep]
    while rest and _size(git) > max_bytes:
        cut = max(1, len(rest) // 4)
        batch, rest = rest[:cut], rest[cut:]
        dropped += _drop(git, batch)
    return dropped


def _drop(git: Git, commits: Sequence[str]) -> int:
    if not commits:
        return 0
    cmds = "".join(f"delete {PREFIX}{c}\n" for c in commits).encode()
    git.run(["update-ref", "--stdin"], stdin=cmds)
    git.run(["prune", "--expire=now"])
    git.run(["repack", "-a", "-d", "-q"])
    return len(commits)


def _size(git: Git) -> int:
    total = 0
    for dirpath, _dirs, names in os.walk(git.git_dir / "objects"):
        for n in names:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, n)).st_size
    return total


def write_synced(path: Path, data: bytes) -> None:
    """Write a file (0600) durably: temporary file, fsync, rename, fsync of the folder."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def fsync_dir(path: Path) -> None:
    """Make a folder's entries (a rename, an unlink) durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
