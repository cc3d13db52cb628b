"""Workspace path policy for the file tools: resolve (symlinks included), then require inside."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from ggd.tools.base import ToolContext, ToolError

# Files under this folder are the agent's own notes: writes there need no approval.
AGENT_DIR = Path(".gg") / "agent"


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once at import: os.umask() is process-wide, so probing it from worker threads would race.
_UMASK = _read_umask()


def arg_str(args: dict[str, Any], key: str, default: str | None = None) -> str:
    """A required (or defaulted) string argument; ToolError when missing or of the wrong type."""
    value = args.get(key, default)
    if not isinstance(value, str):
        raise ToolError(f"argument '{key}' must be a string")
    return value


def arg_int(args: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    """An optional integer argument clamped to [lo, hi]; ToolError when not a number."""
    value = args.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ToolError(f"argument '{key}' must be a number")
    return max(lo, min(hi, int(value)))


def candidate(raw: str, ctx: ToolContext) -> Path:
    """The fully resolved path raw names (relative to the workspace), inside or not."""
    if not raw or "\x00" in raw:
        raise ToolError("path must be a non-empty string without NUL bytes")
    p = Path(os.path.expanduser(raw))
    if not p.is_absolute():
        p = ctx.workspace / p
    return p.resolve()


def is_inside(raw: str, ctx: ToolContext) -> bool:
    """True when raw resolves inside the workspace."""
    try:
        return candidate(raw, ctx).is_relative_to(ctx.workspace.resolve())
    except (ToolError, OSError, RuntimeError):
        return False


def resolve_in_workspace(raw: str, ctx: ToolContext) -> Path:
    """Resolve raw inside the workspace or raise ToolError (symlinks cannot escape)."""
    try:
        p = candidate(raw, ctx)
    except (OSError, RuntimeError) as exc:
        raise ToolError(f"cannot resolve path '{raw}'") from exc
    if not p.is_relative_to(ctx.workspace.resolve()):
        raise ToolError(f"path '{raw}' is outside the workspace; only workspace files are allowed")
    return p


def _readable_roots(ctx: ToolContext) -> list[Path]:
    roots = [ctx.workspace.resolve()]
    for root in ctx.read_roots:
        try:
            roots.append(root.resolve())
        except (OSError, RuntimeError):
            continue
    return roots


def is_readable(raw: str, ctx: ToolContext) -> bool:
    """True when raw resolves inside the workspace or one of the extra read-only roots."""
    try:
        p = candidate(raw, ctx)
    except (ToolError, OSError, RuntimeError):
        return False
    return any(p.is_relative_to(root) for root in _readable_roots(ctx))


def resolve_readable(raw: str, ctx: ToolContext) -> Path:
    """Resolve raw inside the workspace or an extra read-only root (skills), else ToolError.

    Only read, list and grep use this: the read roots are never writable through tools.
    """
    try:
        p = candidate(raw, ctx)
    except (OSError, RuntimeError) as exc:
        raise ToolError(f"cannot resolve path '{raw}'") from exc
    if not any(p.is_relative_to(root) for root in _readable_roots(ctx)):
        raise ToolError(f"path '{raw}' is outside the workspace; only workspace files are allowed")
    return p


def has_other_links(p: Path) -> bool:
    """True for a regular file with more than one hard link.

    Another link to the same inode may sit anywhere on the device, outside the workspace (e.g.
    `ln ~/.ssh/id_ed25519 notes.txt`), and nothing short of scanning the file system tells where.
    The read tools therefore refuse such files; see docs/tools.md.
    """
    try:
        st = p.stat()
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink > 1


def refuse_hard_link(st: os.stat_result, raw: str) -> None:
    """ToolError for a regular file with several hard links (see `has_other_links`).

    Takes the stat of the open file, so the check and the read are about the same inode.
    """
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        raise ToolError(
            f"'{raw}' has several hard links, so its content may be a file outside the "
            "workspace; the read tools do not open such files. Read it with the bash tool "
            "(which asks for approval) or copy it first (cp FILE FILE.copy)"
        )


def relative(p: Path, ctx: ToolContext) -> str:
    """p shown relative to the workspace ('.' for the root)."""
    try:
        rel = p.relative_to(ctx.workspace.resolve())
    except ValueError:
        return str(p)
    return rel.as_posix() or "."


def in_agent_dir(p: Path, ctx: ToolContext) -> bool:
    """True for paths under <workspace>/.gg/agent/ (pre-approved agent notes)."""
    return p.is_relative_to(ctx.workspace.resolve() / AGENT_DIR)


def atomic_write(path: Path, data: bytes) -> None:
    """Write data to path via a temp file in the same folder and os.replace; keeps the mode."""
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is None:
            mode = 0o666 & ~_UMASK
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
