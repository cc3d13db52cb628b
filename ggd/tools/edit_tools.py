"""The edit and write tools: exact-match edits with a diff, atomic writes, modes kept."""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path
from typing import Any

from ggd.tools.base import TOOL_APPROVED, ApprovalInfo, Tool, ToolContext, ToolError, ToolResult
from ggd.tools.client_io import buffer_text, push_text
from ggd.tools.fs_tools import SNIFF_BYTES, is_binary
from ggd.tools.paths import (
    arg_str,
    atomic_write,
    candidate,
    in_agent_dir,
    is_inside,
    relative,
    resolve_in_workspace,
)

PREVIEW_LINES = 20
# An overwrite's approval shows a diff of files up to this size, cut to this many lines.
MAX_DIFF_BYTES = 1_000_000
MAX_DIFF_LINES = 400


def _write_info(summary: str, raw: str, ctx: ToolContext, details: str) -> ApprovalInfo:
    if not is_inside(raw, ctx):
        return ApprovalInfo(summary, "dangerous", "path outside the workspace", True, details)
    if in_agent_dir(candidate(raw, ctx), ctx):
        return ApprovalInfo(summary, "normal", "agent notes under .gg/agent/", False, details)
    return ApprovalInfo(summary, "normal", "changes a workspace file", True, details)


def _write_paths(raw: Any, ctx: ToolContext) -> list[Path]:
    if isinstance(raw, str) and is_inside(raw, ctx):
        return [candidate(raw, ctx)]
    return []


def _load_text(path: Path, raw: str) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ToolError(f"file not found: '{raw}' (use the write tool to create it)") from None
    except IsADirectoryError:
        raise ToolError(f"'{raw}' is a directory") from None
    except OSError as exc:
        raise ToolError(f"cannot read '{raw}': {exc.strerror}") from None
    if is_binary(data[:SNIFF_BYTES]):
        raise ToolError(f"'{raw}' is a binary file; edit changes text files only")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"'{raw}' is not UTF-8 text") from None


def apply_edits(text: str, edits: Any) -> tuple[str, str]:
    """Apply edits in order to text; returns (new text, newline) or raises ToolError.

    A CRLF file is matched with LF-normalised text (the model writes LF) and written back CRLF.
    """
    if not isinstance(edits, list) or not edits:
        raise ToolError("argument 'edits' must be a non-empty list of {oldText, newText}")
    newline = "\r\n" if "\r\n" in text else "\n"
    work = text.replace("\r\n", "\n") if newline == "\r\n" else text
    for n, edit in enumerate(edits, 1):
        if not isinstance(edit, dict):
            raise ToolError(f"edit #{n} must be an object with oldText and newText")
        old, new = edit.get("oldText"), edit.get("newText")
        if not isinstance(old, str) or not isinstance(new, str):
            raise ToolError(f"edit #{n} needs string fields oldText and newText")
        if newline == "\r\n":
            old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        if not old:
            raise ToolError(f"edit #{n}: oldText must not be empty")
        count = work.count(old)
        if count == 0:
            raise ToolError(f"edit #{n}: oldText not found (0 matches); copy it exactly")
        if count > 1:
            raise ToolError(
                f"edit #{n}: oldText matches {count} times; include more context so it is unique"
            )
        work = work.replace(old, new, 1)
    return (work.replace("\n", "\r\n") if newline == "\r\n" else work), newline


def unified_diff(before: str, after: str, rel: str) -> str:
    """A unified diff of two texts (line endings normalised)."""
    lines = difflib.unified_diff(
        before.replace("\r\n", "\n").splitlines(keepends=True),
        after.replace("\r\n", "\n").splitlines(keepends=True),
        fromfile=f"a/{rel}",
        tofile=f"b/{rel}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _same(path: Path, content: str, limit: int | None = None) -> bool:
    """Whether the file holds exactly `content` (a size check first: most writes change it).

    `limit` bounds what describe() reads on the event loop; a bigger file just asks as usual.
    """
    data = content.encode("utf-8")
    if limit is not None and len(data) > limit:
        return False
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def _buffered(raw: str, ctx: ToolContext) -> bool:
    """Whether the run's editor serves this file's text (its unsaved buffer)."""
    return ctx.client is not None and ctx.client.can_read and is_inside(raw, ctx)


def _overwrite_diff(
    raw: str, content: str, ctx: ToolContext, before: str | None = None
) -> str | None:
    """What an overwrite changes, as a diff (None when the old file is not readable text)."""
    path = candidate(raw, ctx)
    if before is None:
        try:
            if path.stat().st_size > MAX_DIFF_BYTES:
                return None
            before = _load_text(path, raw)
        except (OSError, ToolError):
            return None
    elif len(before) > MAX_DIFF_BYTES:
        return None
    diff = unified_diff(before, content, relative(path, ctx))
    if not diff:
        return f"(no change: {relative(path, ctx)} already has this content)"
    lines = diff.splitlines()
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"[... {len(lines) - MAX_DIFF_LINES} more diff lines]"]
    return "\n".join(lines) + "\n"


class EditTool(Tool):
    """Replace exact text snippets in a file; each oldText must match exactly once."""

    name = "edit"
    description = (
        "Edit a file by exact replacement, edits applied in order. Each oldText must match "
        "exactly once (add surrounding lines to make it unique). Line endings are kept."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "edits": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                    "required": ["oldText", "newText"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["path", "edits"],
        "additionalProperties": False,
    }

    def summary(self, args: dict[str, Any]) -> str:
        """`edit <path>`."""
        return f"edit {args.get('path', '')}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Needs approval with a unified diff (pre-approved under .gg/agent/)."""
        raw = arg_str(args, "path")
        diff = None
        # With the editor's buffer as the base, describe_live computes the diff from it.
        if is_inside(raw, ctx) and not _buffered(raw, ctx):
            path = resolve_in_workspace(raw, ctx)
            before = _load_text(path, raw)
            after, _ = apply_edits(before, args.get("edits"))
            diff = unified_diff(before, after, relative(path, ctx))
        return _write_info(self.summary(args), raw, ctx, diff or "")

    async def describe_live(
        self, args: dict[str, Any], ctx: ToolContext, info: ApprovalInfo
    ) -> ApprovalInfo:
        """The diff against the text the user sees (the editor's buffer), before approval."""
        raw = arg_str(args, "path")
        if not _buffered(raw, ctx):
            return info
        path = resolve_in_workspace(raw, ctx)
        before = await self._base(path, raw, ctx)
        after, _ = apply_edits(before, args.get("edits"))
        info.details = unified_diff(before, after, relative(path, ctx))
        return info

    def write_paths(self, args: dict[str, Any], ctx: ToolContext) -> list[Path]:
        """The edited file."""
        return _write_paths(args.get("path"), ctx)

    async def _base(self, path: Path, raw: str, ctx: ToolContext) -> str:
        text, _ = await buffer_text(path, raw, ctx)
        return text if text is not None else await asyncio.to_thread(_load_text, path, raw)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Apply the edits atomically to the text the user sees; the editor gets the result."""
        raw = arg_str(args, "path")
        path = resolve_in_workspace(raw, ctx)
        before, fallback = await buffer_text(path, raw, ctx)
        result, after = await asyncio.to_thread(
            self._edit, path, raw, args.get("edits"), ctx, before
        )
        details = result.details if result.details is not None else {}
        details["source"] = "editor" if before is not None else "disk"
        if fallback:
            details["clientFallback"] = fallback
        note = await push_text(path, after, ctx)
        if note:
            details["bufferNotUpdated"] = note
            result.output += f" Note: {note}."
        return result

    def _edit(
        self, path: Path, raw: str, edits: Any, ctx: ToolContext, before: str | None
    ) -> tuple[ToolResult, str]:
        if before is None:
            before = _load_text(path, raw)
        after, _ = apply_edits(before, edits)
        rel = relative(path, ctx)
        diff = unified_diff(before, after, rel)
        atomic_write(path, after.encode("utf-8"))
        added = sum(
            1 for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")
        )
        removed = sum(
            1 for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")
        )
        n = len(edits)
        text = f"Edited {rel}: {n} edit{'s' if n != 1 else ''} applied (+{added} -{removed} lines)."
        details = {"diff": diff, "path": rel, "added": added, "removed": removed}
        return ToolResult(text, details=details), after


class WriteTool(Tool):
    """Create or overwrite a file with the given content."""

    name = "write"
    description = (
        "Create or overwrite a file with the whole content, making parent folders. "
        "Prefer edit to change an existing file."
    )
    parameters = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
        "additionalProperties": False,
    }

    def summary(self, args: dict[str, Any]) -> str:
        """`write <path>`."""
        return f"write {args.get('path', '')}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Needs approval with a preview; says create or overwrite (or unchanged: no approval)."""
        raw = arg_str(args, "path")
        content = arg_str(args, "content")
        exists = is_inside(raw, ctx) and candidate(raw, ctx).is_file()
        if (
            exists
            and not _buffered(raw, ctx)
            and _same(candidate(raw, ctx), content, MAX_DIFF_BYTES)
        ):
            # Nothing to approve: the run does nothing (and checks again, see _write).
            rel = relative(candidate(raw, ctx), ctx)
            info = ApprovalInfo(
                f"write {raw} (unchanged)",
                "read_only",
                "",
                False,
                f"(no change: {rel} already has this content)",
            )
            info.extra.update({"action": "unchanged", "bytes": len(content.encode("utf-8"))})
            return info
        action = "overwrite" if exists else "create"
        details = _overwrite_diff(raw, content, ctx) if exists else None
        if details is None:
            lines = content.splitlines()
            details = "\n".join(lines[:PREVIEW_LINES])
            if len(lines) > PREVIEW_LINES:
                details += f"\n[... {len(lines) - PREVIEW_LINES} more lines]"
        info = _write_info(f"write {raw} ({action})", raw, ctx, details)
        info.extra.update({"action": action, "bytes": len(content.encode("utf-8"))})
        return info

    def write_paths(self, args: dict[str, Any], ctx: ToolContext) -> list[Path]:
        """The written file."""
        return _write_paths(args.get("path"), ctx)

    async def describe_live(
        self, args: dict[str, Any], ctx: ToolContext, info: ApprovalInfo
    ) -> ApprovalInfo:
        """An overwrite's diff against the editor's buffer when the editor serves it."""
        raw = arg_str(args, "path")
        if not _buffered(raw, ctx) or info.extra.get("action") != "overwrite":
            return info
        before, _ = await buffer_text(resolve_in_workspace(raw, ctx), raw, ctx)
        diff = _overwrite_diff(raw, arg_str(args, "content"), ctx, before) if before else None
        if diff is not None:
            info.details = diff
        return info

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Write atomically, creating parent folders; the editor's buffer gets the new text."""
        raw = arg_str(args, "path")
        content = arg_str(args, "content")
        path = resolve_in_workspace(raw, ctx)
        before = None
        if _buffered(raw, ctx) and path.is_file():
            before, _ = await buffer_text(path, raw, ctx)
        result = await asyncio.to_thread(self._write, path, raw, content, ctx, before)
        note = await push_text(path, content, ctx)
        if note and result.details is not None:
            result.details["bufferNotUpdated"] = note
            result.output += f" Note: {note}."
        return result

    def _write(
        self, path: Path, raw: str, content: str, ctx: ToolContext, before: str | None
    ) -> ToolResult:
        if path.is_dir():
            raise ToolError(f"'{raw}' is a directory")
        rel = relative(path, ctx)
        size = len(content.encode("utf-8"))
        if before is None and path.is_file() and _same(path, content):
            return ToolResult(
                f"Unchanged {rel}: it already has exactly this content ({size} bytes).",
                details={"path": rel, "bytes": size, "created": False, "unchanged": True},
            )
        if TOOL_APPROVED.get() is False and _write_info("", raw, ctx, "").needs_approval:
            # describe() saw this content already there and asked nobody; the file has changed
            # since, so this is a real write that was never approved.
            raise ToolError(
                f"the file changed; call write again ('{raw}' had exactly this content when the "
                "call was checked, so no approval was asked)"
            )
        created = not path.exists()
        diff = None if created else _overwrite_diff(raw, content, ctx, before)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8")
        atomic_write(path, data)
        verb = "Created" if created else "Overwrote"
        details: dict[str, Any] = {"path": rel, "bytes": len(data), "created": created}
        if diff and diff.startswith("--- "):
            details["diff"] = diff  # the tool card shows what the overwrite changed
        return ToolResult(f"{verb} {rel} ({len(data)} bytes).", details=details)
