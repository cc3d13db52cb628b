"""Plain value types of the session store: entries, headers, summaries and tree nodes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import msgspec

__all__ = ["LEAF", "Entry", "SessionHeader", "SessionSummary", "TreeNode"]


class _Leaf:
    """Sentinel type: 'the current leaf' as the default parent of an append."""

    _instance: _Leaf | None = None

    def __new__(cls) -> _Leaf:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "LEAF"


LEAF: Final = _Leaf()


class Entry(msgspec.Struct, gc=False):
    """One line of a session file after the header (files hold up to 100k of these).

    A msgspec Struct so the codec decodes lines straight into entries (no per-line dict);
    gc=False: an entry never takes part in a reference cycle (its data is decoded JSON).
    """

    kind: str = msgspec.field(name="type")
    id: str
    parent_id: str | None = msgspec.field(name="parentId")
    timestamp: int
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The on-disk JSON object of this entry."""
        return {
            "type": self.kind,
            "id": self.id,
            "parentId": self.parent_id,
            "timestamp": self.timestamp,
            "data": self.data,
        }


@dataclass(frozen=True, slots=True)
class SessionHeader:
    """Line 1 of a session file; `parent` is {sessionId, nodeId, kind: fork|clone} or None."""

    version: int
    id: str
    workspace_id: str
    created_at: int
    name: str | None
    model: str | None
    parent: dict[str, Any] | None

    @property
    def workspaceId(self) -> str:  # camelCase alias: docs/internals.md spells it so
        """Alias of workspace_id."""
        return self.workspace_id

    @property
    def createdAt(self) -> int:  # camelCase alias: docs/internals.md spells it so
        """Alias of created_at."""
        return self.created_at

    def to_json(self) -> dict[str, Any]:
        """The on-disk JSON object of this header."""
        return {
            "type": "session",
            "version": self.version,
            "id": self.id,
            "workspaceId": self.workspace_id,
            "createdAt": self.created_at,
            "name": self.name,
            "model": self.model,
            "parent": self.parent,
        }


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One row of SessionRepository.list(): what a session picker shows."""

    id: str
    workspace_id: str
    name: str | None
    model: str | None
    created_at: int
    updated_at: int
    message_count: int
    preview: str
    parent: dict[str, Any] | None = None
    # The first user message in file order: the fallback name (ggd.app.naming), stable across
    # checkouts, unlike `preview` which follows the active branch.
    first_prompt: str = ""
    # Some complete lines of the file are not valid entries (skipped when opened, kept on disk).
    damaged: bool = False
    # Token and cost totals of every usage entry (ggd/session/usage.py); None: no request yet.
    usage: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """camelCase JSON form (used by the list cache)."""
        return {
            "id": self.id,
            "workspaceId": self.workspace_id,
            "name": self.name,
            "model": self.model,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "messageCount": self.message_count,
            "preview": self.preview,
            "parent": self.parent,
            "firstPrompt": self.first_prompt,
            "damaged": self.damaged,
            "usage": self.usage,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> SessionSummary:
        """Inverse of to_json; raises KeyError/TypeError on a malformed object."""
        return cls(
            id=str(obj["id"]),
            workspace_id=str(obj["workspaceId"]),
            name=obj["name"],
            model=obj["model"],
            created_at=int(obj["createdAt"]),
            updated_at=int(obj["updatedAt"]),
            message_count=int(obj["messageCount"]),
            preview=str(obj["preview"]),
            parent=obj.get("parent"),
            first_prompt=str(obj.get("firstPrompt") or ""),
            damaged=obj.get("damaged") is True,
            usage=obj["usage"] if isinstance(obj.get("usage"), dict) else None,
        )


class TreeNode(msgspec.Struct, gc=False):
    """A message in the conversation tree; parent_id is the nearest message ancestor.

    A Struct: a snapshot builds one per message, and a Struct is ~3x cheaper to make.
    """

    id: str
    parent_id: str | None
    depth: int
    role: str
    text: str
    active: bool
    timestamp: int
