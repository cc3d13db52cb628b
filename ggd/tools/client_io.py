"""File text through the client delegate: the editor's buffer in, the new text back out."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

from ggd.tools.base import ToolContext
from ggd.tools.client import ClientToolError
from ggd.tools.paths import in_agent_dir, refuse_hard_link

log = logging.getLogger("ggd.tools")


def _delegated(path: Path, ctx: ToolContext) -> bool:
    # Only workspace files the editor may have open; gg's own notes and the skill roots stay
    # on disk, where gg's checks apply.
    return path.is_relative_to(ctx.workspace.resolve()) and not in_agent_dir(path, ctx)


def _check_links(path: Path, raw: str) -> None:
    try:
        st = os.stat(path)
    except OSError:
        return  # not on disk (yet): the editor may hold an unsaved new buffer
    refuse_hard_link(st, raw)


async def buffer_text(path: Path, raw: str, ctx: ToolContext) -> tuple[str | None, str | None]:
    """(the editor's text of path, None), or (None, why gg reads the disk instead)."""
    client = ctx.client
    if client is None or not client.can_read or not _delegated(path, ctx):
        return None, None
    await asyncio.to_thread(_check_links, path, raw)
    try:
        return await client.read_text(path), None
    except ClientToolError as exc:
        log.info("client read failed, reading the disk: %s", exc)
        return None, f"the editor could not read it ({exc}); read from disk"


async def push_text(path: Path, content: str, ctx: ToolContext) -> str | None:
    """Hand the file's new text to the editor; the reason when it did not take it."""
    client = ctx.client
    if client is None or not client.can_write or not _delegated(path, ctx):
        return None
    try:
        await client.write_text(path, content)
    except ClientToolError as exc:
        log.info("client write failed (the file on disk is written): %s", exc)
        return f"the file is written on disk but the editor's buffer was not updated ({exc})"
    return None


__all__ = ["buffer_text", "push_text"]
