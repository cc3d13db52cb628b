"""Checkpoints: content-addressed snapshots of a workspace in a shadow git repository.

`CheckpointStore` snapshots, diffs and restores one workspace through the real `git` CLI with
a git directory of its own under GG_HOME; it never reads or writes the workspace's `.git`.
It imports nothing of ggd (docs/checkpoints.md).
"""

from __future__ import annotations

from .diffs import Diff, FileChange
from .store import (
    DEFAULT_IGNORE,
    CheckpointError,
    CheckpointSettings,
    CheckpointStore,
    Snapshot,
    recover_all,
)

__all__ = [
    "DEFAULT_IGNORE",
    "CheckpointError",
    "CheckpointSettings",
    "CheckpointStore",
    "Diff",
    "FileChange",
    "Snapshot",
    "recover_all",
]
