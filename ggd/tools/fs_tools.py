"""The read and list tools."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from ggd.tools.base import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult
from ggd.tools.client_io import buffer_text
from ggd.tools.images import MAX_INPUT_BYTES, ImageError, mime_of_name
from ggd.tools.paths import (
    arg_int,
    arg_str,
    is_readable,
    refuse_hard_link,
    resolve_readable,
)

MAX_LINES = 2000
MAX_BYTES = 50 * 1024
MAX_LINE_CHARS = 2000
MAX_ENTRIES = 500
SNIFF_BYTES = 8192


def read_only_info(summary: str, raw: str, ctx: ToolContext) -> ApprovalInfo:
    """Approval info for read-only tools; a path outside the workspace (and the read roots) is
    flagged dangerous."""
    if not is_readable(raw, ctx):
        return ApprovalInfo(summary, "dangerous", "path outside the workspace", True)
    return ApprovalInfo(summary, "read_only", "reads workspace files", False)


def is_binary(head: bytes) -> bool:
    """NUL-byte sniff, like git and grep."""
    return b"\x00" in head


class ReadTool(Tool):
    """Read a text file with `cat -n` style line numbers, in pages."""

    name = "read"
    description = (
        "Read a text file, lines numbered like cat -n. At most "
        f"{MAX_LINES} lines or {MAX_BYTES // 1024} KiB a call; page with offset (first line, "
        "1-based) and limit (lines). An image file (PNG, JPEG, WebP, GIF) is shown to you as "
        "an image when the model takes images."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "minimum": 1},
        },
        "required": ["path"],
        "additionalProperties": False,
    }
    parallel_safe = True

    def summary(self, args: dict[str, Any]) -> str:
        """`read <path>`."""
        return f"read {args.get('path', '')}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Reading is read-only."""
        return read_only_info(self.summary(args), arg_str(args, "path"), ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Read the requested lines (from the editor's buffer when the run's client serves it)."""
        raw = arg_str(args, "path")
        path = resolve_readable(raw, ctx)
        offset = arg_int(args, "offset", 1, 1, 1 << 40)
        limit = arg_int(args, "limit", MAX_LINES, 1, MAX_LINES)
        if mime_of_name(raw) is not None:  # a picture: the model sees it, if it can
            return await asyncio.to_thread(self._read_image, path, raw, ctx)
        text, fallback = await buffer_text(path, raw, ctx)
        if text is not None:
            result = page(text.splitlines(), raw, offset, limit)
            assert result.details is not None
            result.details["source"] = "editor"
            return result
        result = await asyncio.to_thread(self._read, path, raw, offset, limit)
        if fallback and result.details is not None:
            result.details["clientFallback"] = fallback
        return result

    def _read_image(self, path: Path, raw: str, ctx: ToolContext) -> ToolResult:
        if ctx.images is None:
            raise ToolError(
                f"'{raw}' is an image and this model takes no images; describe what you need "
                "from it to the user, or ask for a model that reads images"
            )
        if path.is_dir():
            raise ToolError(f"'{raw}' is a directory; use the list tool")
        try:
            with open(path, "rb") as fh:
                refuse_hard_link(os.fstat(fh.fileno()), raw)
                data = fh.read(MAX_INPUT_BYTES + 1)  # normalize() refuses more than the limit
        except FileNotFoundError:
            raise ToolError(f"file not found: '{raw}'") from None
        except OSError as exc:
            raise ToolError(f"cannot read '{raw}': {exc.strerror}") from None
        try:
            ref = ctx.images.put(data)
        except ImageError as exc:
            raise ToolError(f"'{raw}': {exc.message}") from None
        kind = ref.mime.removeprefix("image/").upper()
        return ToolResult(
            f"[image {raw}: {kind} {ref.width}x{ref.height}; it follows as an image]",
            details={"image": ref.wire()},
            images=[ref.wire()],
        )

    def _read(self, path: Path, raw: str, offset: int, limit: int) -> ToolResult:
        if path.is_dir():
            raise ToolError(f"'{raw}' is a directory; use the list tool")
        try:
            with open(path, "rb") as fh:
                refuse_hard_link(os.fstat(fh.fileno()), raw)
                data = fh.read()
        except FileNotFoundError:
            raise ToolError(f"file not found: '{raw}'") from None
        except OSError as exc:
            raise ToolError(f"cannot read '{raw}': {exc.strerror}") from None
        if is_binary(data[:SNIFF_BYTES]):
            raise ToolError(f"'{raw}' is a binary file; the read tool shows text only")
        return page(data.decode("utf-8", errors="replace").splitlines(), raw, offset, limit)


def page(lines: list[str], raw: str, offset: int, limit: int) -> ToolResult:
    """Lines offset.. of a text, numbered like cat -n, within the line and byte limits."""
    total = len(lines)
    if total == 0:
        return ToolResult("[empty file]", details={"lines": 0})
    if offset > total:
        raise ToolError(f"offset {offset} is past the end of the file ({total} lines)")
    out: list[str] = []
    size = 0
    last = offset - 1
    for n in range(offset, min(total, offset + limit - 1) + 1):
        line = lines[n - 1]
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + " [line truncated]"
        entry = f"{n:>6}\t{line}"
        cost = len(entry.encode()) + 1
        if size + cost > MAX_BYTES and out:
            break
        out.append(entry)
        size += cost
        last = n
    if last < total:
        out.append(
            f"[showing lines {offset}-{last} of {total}; "
            f"call read with offset={last + 1} to continue]"
        )
    return ToolResult("\n".join(out), details={"lines": total, "from": offset, "to": last})


class ListTool(Tool):
    """List a directory: sorted, folders with a trailing `/`, `.git` skipped."""

    name = "list"
    description = (
        f"List a directory (default '.'), sorted; folders end with '/'. At most {MAX_ENTRIES} "
        "entries; .git is skipped."
    )
    parameters = {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "additionalProperties": False,
    }
    parallel_safe = True

    def summary(self, args: dict[str, Any]) -> str:
        """`list <path>`."""
        return f"list {args.get('path') or '.'}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Listing is read-only."""
        return read_only_info(self.summary(args), arg_str(args, "path", "."), ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """List the directory."""
        raw = arg_str(args, "path", ".") or "."
        path = resolve_readable(raw, ctx)
        return await asyncio.to_thread(self._list, path, raw)

    def _list(self, path: Path, raw: str) -> ToolResult:
        if not path.exists():
            raise ToolError(f"directory not found: '{raw}'")
        if not path.is_dir():
            raise ToolError(f"'{raw}' is not a directory; use the read tool")
        names: list[str] = []
        try:
            with os.scandir(path) as it:
                for entry in it:
                    if entry.name == ".git":
                        continue
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    names.append(entry.name + "/" if is_dir else entry.name)
        except OSError as exc:
            raise ToolError(f"cannot list '{raw}': {exc.strerror}") from None
        names.sort()
        total = len(names)
        shown = names[:MAX_ENTRIES]
        if total > MAX_ENTRIES:
            shown.append(f"[... {total - MAX_ENTRIES} more entries not shown]")
        if not names:
            shown = ["[empty directory]"]
        return ToolResult("\n".join(shown), details={"entries": total})
