"""Append-only JSONL session tree store: one file per session, leases, conflict detection."""

from __future__ import annotations

from .derived import DerivedKind
from .errors import SessionConflictError, SessionError, SessionFormatError, SessionNotFoundError
from .file import SessionFile
from .model import LEAF, Entry, SessionHeader, SessionSummary, TreeNode
from .repository import SessionRepository, is_child

__all__ = [
    "LEAF",
    "DerivedKind",
    "Entry",
    "SessionConflictError",
    "SessionError",
    "SessionFile",
    "SessionFormatError",
    "SessionHeader",
    "SessionNotFoundError",
    "SessionRepository",
    "SessionSummary",
    "TreeNode",
    "is_child",
]
