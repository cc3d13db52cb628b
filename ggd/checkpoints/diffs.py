"""What differs between two snapshots: per-file status, modes, line counts, a unified patch."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .gitcli import Git


@dataclass(frozen=True)
class FileChange:
    """One path that differs between two snapshots."""

    path: str
    status: str  # added | modified | deleted | mode
    old_mode: str | None = None
    new_mode: str | None = None
    additions: int | None = None  # None: binary
    deletions: int | None = None


@dataclass
class Diff:
    """What changes from one snapshot to another."""

    files: list[FileChange] = field(default_factory=list)
    patch: str = ""
    truncated: bool = False
    skipped: tuple[str, ...] = ()


_STATUS = {"A": "added", "M": "modified", "D": "deleted", "T": "modified"}


def diff_trees(git: Git, old: str, new: str, patch_limit: int, skipped: tuple[str, ...]) -> Diff:
    """Every file that differs from `old` to `new` (no rename detection: a move is a delete
    and an add, which is what a restore does), with its patch cut at `patch_limit` bytes."""
    raw = git.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", old, new])
    parts = raw.split(b"\0")
    changes: dict[str, FileChange] = {}
    i = 0
    while i + 1 < len(parts):
        meta, path = parts[i].decode(), os.fsdecode(parts[i + 1])
        i += 2
        if not meta.startswith(":"):
            continue
        old_mode, new_mode, old_id, new_id, code = meta[1:].split(" ")
        status = _STATUS.get(code[0], "modified")
        if status == "modified" and old_id == new_id:
            status = "mode"
        changes[path] = FileChange(
            path,
            status,
            None if old_mode == "000000" else old_mode,
            None if new_mode == "000000" else new_mode,
        )
    stats = git.run(["diff-tree", "-r", "-z", "--no-renames", "--numstat", old, new])
    for rec in stats.split(b"\0"):
        cols = rec.split(b"\t", 2)
        if len(cols) == 3 and os.fsdecode(cols[2]) in changes:
            path = os.fsdecode(cols[2])
            add, rem = cols[0].decode(), cols[1].decode()
            ch = changes[path]
            changes[path] = FileChange(
                ch.path,
                ch.status,
                ch.old_mode,
                ch.new_mode,
                None if add == "-" else int(add),
                None if rem == "-" else int(rem),
            )
    text = git.run(["diff-tree", "-r", "-p", "--no-renames", "--no-color", old, new])
    return Diff(
        files=[changes[p] for p in sorted(changes)],
        patch=text[:patch_limit].decode("utf-8", "replace"),
        truncated=len(text) > patch_limit,
        skipped=skipped,
    )
