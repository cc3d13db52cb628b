"""The bubblewrap sandbox: a read-only root with only the workspace (and a private /tmp) writable."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from ggd.tools.children import kill_child

_probe_cache: dict[str, bool] = {}


def bwrap_argv(bwrap: str, workspace: Path) -> list[str]:
    """bwrap arguments that confine writes to the workspace.

    `--tmpfs /tmp` must come before `--bind WS WS`: mounted after, it would hide a workspace
    that lives under /tmp.
    """
    ws = str(workspace)
    return [
        bwrap,
        "--ro-bind", "/", "/",
        "--tmpfs", "/tmp",
        "--bind", ws, ws,
        "--dev", "/dev",
        "--proc", "/proc",
        "--die-with-parent",
        "--unshare-pid",
        "--chdir", ws,
    ]  # fmt: skip


async def sandbox_prefix(workspace: Path) -> tuple[list[str] | None, str]:
    """The argv prefix for a sandboxed command, or None and the reason it is unavailable."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, "bubblewrap (bwrap) is not installed"
    prefix = bwrap_argv(bwrap, workspace)
    key = str(workspace)
    if key not in _probe_cache:
        # bwrap can be installed yet unusable (no user namespaces): try it once per workspace.
        try:
            proc = await asyncio.create_subprocess_exec(
                *prefix,
                "true",
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
        except OSError:
            _probe_cache[key] = False
        else:
            try:
                _probe_cache[key] = await asyncio.wait_for(proc.wait(), 10) == 0
            except TimeoutError:
                kill_child(proc)
                await proc.wait()
                _probe_cache[key] = False
    if not _probe_cache[key]:
        return None, "bubblewrap failed to start a sandbox here"
    return prefix, ""
