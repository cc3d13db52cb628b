"""gg/session.undo, redo, restore and diff: params and results (docs/checkpoints.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Params, Result


class SessionRestoreParams(Params):
    """Restore the workspace files to the checkpoint recorded at a node of the tree."""

    session_id: str = Field(min_length=1, max_length=200)
    # A message id of the tree; a user message means the state its turn started from.
    node_id: str = Field(min_length=1, max_length=200)
    # Only say what would change (files, patch, conflicts); nothing is written.
    preview: bool = False
    # Overwrite files changed outside gg since the last checkpoint (listed as conflicts).
    confirm_conflicts: bool = False


class SessionUndoParams(Params):
    """Undo (or redo) the files of the last turn."""

    session_id: str = Field(min_length=1, max_length=200)
    preview: bool = False
    confirm_conflicts: bool = False


class SessionDiffParams(Params):
    """What one turn changed in the workspace."""

    session_id: str = Field(min_length=1, max_length=200)
    # The turn's user message id; null: the last turn on the active branch.
    node_id: str | None = Field(default=None, max_length=200)
    # Or the run (gg/run.start's runId) whose turn to show, instead of nodeId.
    run_id: str | None = Field(default=None, max_length=200)


class FileChangeInfo(Result):
    """One file that differs between two checkpoints."""

    path: str
    status: Literal["added", "modified", "deleted", "mode"]
    old_mode: str | None = None
    new_mode: str | None = None
    # Lines added and removed; null for a binary file.
    additions: int | None = None
    deletions: int | None = None


class FilesResult(Result):
    """What a restore changed (or would change, in a preview), or what a turn changed (diff)."""

    applied: bool
    # The checkpoint the files are (or would be) restored to; for a diff, the turn's end.
    target: str
    # The checkpoint of the files before the restore (itself restorable); a diff's turn start.
    current: str
    files: list[FileChangeInfo]
    # Files changed outside gg since the last checkpoint that the restore would overwrite.
    conflicts: list[str] = Field(default_factory=list)
    # A unified diff of the change, cut at 200 KB (`truncated`).
    patch: str = ""
    truncated: bool = False
    # Files left out of the checkpoints for their size (checkpoints.maxFileBytes).
    skipped: list[str] = Field(default_factory=list)
    # The turn (user message id) an undo, redo or diff is about.
    turn: str | None = None
