"""artifact_create and artifact_edit: the agent's two ways to write a deliverable."""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from ggd.protocol import SessionEvent
from ggd.protocol import errors as E
from ggd.tools import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult

from .artifact_store import (
    MAX_CONTENT_BYTES,
    TYPES,
    ArtifactMeta,
    ArtifactStore,
    check_content,
    check_title,
    check_type,
)

PREVIEW_LINES = 40
PREVIEW_CHARS = 4000
Publish = Callable[[SessionEvent], None]
EventKind = Literal["artifact_created", "artifact_updated"]


def _arg(args: dict[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise ToolError(f"{key} must be a string")
    return value


def _preview(text: str) -> str:
    lines = text.splitlines()
    out = "\n".join(lines[:PREVIEW_LINES])[:PREVIEW_CHARS]
    if len(lines) > PREVIEW_LINES or len(out) < len("\n".join(lines[:PREVIEW_LINES])):
        out += f"\n[... {max(len(lines) - PREVIEW_LINES, 0)} more lines]"
    return out


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


class _ArtifactTool(Tool):
    deferred = True

    def __init__(self, store: ArtifactStore, publish: Publish, session_id: str) -> None:
        self.store = store
        self.publish = publish
        self.session_id = session_id

    def _event(self, kind: EventKind, meta: ArtifactMeta) -> None:
        self.publish(
            SessionEvent(
                session_id=self.session_id,
                type=kind,
                artifact_id=meta.id,
                version=meta.version,
                name=meta.title,
            )
        )


class ArtifactCreateTool(_ArtifactTool):
    """Create a new artifact at version 1."""

    name = "artifact_create"
    description = (
        "Create an artifact: a document the user reads in the Artifacts tab (report, plan, "
        f"page; html is shown without scripts), at most {MAX_CONTENT_BYTES // 1024} KiB. "
        "Returns its id for artifact_edit."
    )
    parameters = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "type": {"type": "string", "enum": sorted(TYPES)},
            "content": {"type": "string"},
        },
        "required": ["title", "type", "content"],
        "additionalProperties": False,
    }

    def summary(self, args: dict[str, Any]) -> str:
        """`artifact_create "<title>"`."""
        return f'artifact_create "{args.get("title", "")}"'

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Always asks: title, type, size and a preview of the content."""
        title, kind = str(args.get("title", "")), str(args.get("type", ""))
        content = str(args.get("content", ""))
        size = _size(content)
        return ApprovalInfo(
            summary=f'create artifact "{title}" ({kind}, {size} bytes)',
            risk="normal",
            risk_reason="writes a new artifact",
            needs_approval=True,
            details=f"--- (new artifact)\n+++ {title} v1 ({kind}, {size} bytes)\n"
            + "\n".join("+" + line for line in _preview(content).splitlines()),
            extra={"title": title, "type": kind, "bytes": size},
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Write version 1 and tell the session's clients."""
        title, kind, content = _arg(args, "title"), _arg(args, "type"), _arg(args, "content")
        try:
            check_title(title), check_type(kind), check_content(content)
            meta = await asyncio.to_thread(
                self.store.create, title, kind, content, ctx.session_id or self.session_id
            )
        except E.GgError as exc:
            raise ToolError(exc.message.removeprefix("invalid params: ")) from None
        self._event("artifact_created", meta)
        return ToolResult(
            f'Created artifact {meta.id} "{meta.title}" v1 ({meta.type}, {_size(content)} '
            "bytes). The user sees it in the Artifacts tab; change it with artifact_edit.",
            details={"artifactId": meta.id, "version": 1, "title": meta.title},
        )


class ArtifactEditTool(_ArtifactTool):
    """Write a full new version of an artifact."""

    name = "artifact_edit"
    description = (
        "Write a new version of an artifact: the whole document, not a diff (earlier "
        "versions are kept)."
    )
    parameters = {
        "type": "object",
        "properties": {"artifactId": {"type": "string"}, "content": {"type": "string"}},
        "required": ["artifactId", "content"],
        "additionalProperties": False,
    }

    def summary(self, args: dict[str, Any]) -> str:
        """`artifact_edit <id>`."""
        return f"artifact_edit {args.get('artifactId', '')}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Always asks: title, type, size and a diff from the latest version."""
        artifact_id, content = str(args.get("artifactId", "")), str(args.get("content", ""))
        size = _size(content)
        try:
            meta = self.store.get(artifact_id)
            before = self.store.content(meta)
        except (E.GgError, OSError):
            return ApprovalInfo(
                summary=f"edit artifact {artifact_id} (not found)",
                risk_reason="writes a new artifact version",
                needs_approval=True,
                details=_preview(content),
            )
        diff = "".join(
            difflib.unified_diff(
                before.splitlines(keepends=True),
                content.splitlines(keepends=True),
                f"{meta.title} v{meta.version}",
                f"{meta.title} v{meta.version + 1}",
            )
        )
        if len(diff) > PREVIEW_CHARS * 2:
            diff = diff[: PREVIEW_CHARS * 2] + "\n[... diff truncated]"
        return ApprovalInfo(
            summary=f'edit artifact "{meta.title}" -> v{meta.version + 1} ({meta.type}, '
            f"{size} bytes)",
            risk="normal",
            risk_reason="writes a new artifact version",
            needs_approval=True,
            details=diff or "(no change)",
            extra={"title": meta.title, "type": meta.type, "bytes": size},
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Write the next version and tell the session's clients."""
        artifact_id, content = _arg(args, "artifactId"), _arg(args, "content")
        try:
            meta = await asyncio.to_thread(
                self.store.edit, artifact_id, content, ctx.session_id or self.session_id
            )
        except E.GgError as exc:
            raise ToolError(exc.message.removeprefix("invalid params: ")) from None
        self._event("artifact_updated", meta)
        return ToolResult(
            f'Artifact {meta.id} "{meta.title}" is now v{meta.version} ({_size(content)} bytes).',
            details={"artifactId": meta.id, "version": meta.version, "title": meta.title},
        )


def artifact_tools(home: Path, publish: Publish, session_id: str) -> list[Tool]:
    """The two tools, bound to the store and the session's event publisher."""
    store = ArtifactStore(home)
    return [
        ArtifactCreateTool(store, publish, session_id),
        ArtifactEditTool(store, publish, session_id),
    ]
