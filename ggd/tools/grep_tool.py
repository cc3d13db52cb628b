"""The grep tool: ripgrep when it is on PATH, a pure-Python search otherwise (same output)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from ggd.tools import grep_worker
from ggd.tools.base import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult
from ggd.tools.children import kill_child
from ggd.tools.fs_tools import SNIFF_BYTES, read_only_info
from ggd.tools.paths import (
    arg_int,
    arg_str,
    has_other_links,
    relative,
    resolve_readable,
)

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_TEXT = 500
# Set to 1 to force the pure-Python search even when ripgrep is installed.
NO_RG_ENV = "GG_GREP_NO_RG"
# The Python fallback runs in a child process killed after this many seconds (env override).
TIMEOUT_ENV = "GG_GREP_TIMEOUT"
DEFAULT_TIMEOUT = 10.0
_WORKER = Path(grep_worker.__file__)


def fallback_timeout() -> float:
    """Seconds the Python fallback may search before it is killed."""
    try:
        return max(0.1, float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT)))
    except ValueError:
        return DEFAULT_TIMEOUT


def rg_path() -> str | None:
    """The ripgrep executable, or None to use the Python fallback."""
    if os.environ.get(NO_RG_ENV) == "1":
        return None
    return shutil.which("rg")


def _line(rel: str, number: int, text: str) -> str:
    text = text.rstrip("\r\n")
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + " [truncated]"
    return f"{rel}:{number}:{text}"


class GrepTool(Tool):
    """Search file contents; output lines are `path:line:text`."""

    name = "grep"
    description = (
        "Search files (path: file or folder, default '.') for a regex, or plain text with "
        "literal. Prints path:line:text sorted by path; skips .git, binary and (with ripgrep) "
        f".gitignored files. limit: default {DEFAULT_LIMIT}."
    )
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "path": {"type": "string"},
            "literal": {"type": "boolean"},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    parallel_safe = True

    def summary(self, args: dict[str, Any]) -> str:
        """`grep <pattern> in <path>`."""
        return f"grep {args.get('pattern', '')!r} in {args.get('path') or '.'}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Searching is read-only."""
        return read_only_info(self.summary(args), arg_str(args, "path", "."), ctx)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Search and format up to `limit` matches."""
        pattern = arg_str(args, "pattern")
        if not pattern:
            raise ToolError("pattern must not be empty")
        raw = arg_str(args, "path", ".") or "."
        target = resolve_readable(raw, ctx)
        if not target.exists():
            raise ToolError(f"path not found: '{raw}'")
        literal = bool(args.get("literal", False))
        limit = arg_int(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        rg = rg_path()
        if rg is not None:
            lines, more, linked = await self._rg(rg, pattern, literal, target, limit, ctx)
        else:
            lines, more, linked = await self._python(pattern, literal, target, limit, ctx)
        engine = "ripgrep" if rg else "python"
        note = (
            f"[{linked} file(s) with several hard links skipped: their content may belong to a "
            "file outside the workspace]"
            if linked
            else ""
        )
        if not lines:
            out = "no matches" + (f"\n{note}" if note else "")
            return ToolResult(out, details={"matches": 0, "engine": engine})
        out = "\n".join(lines)
        if more:
            out += f"\n[match limit {limit} reached; narrow the pattern or path for more]"
        if note:
            out += f"\n{note}"
        return ToolResult(out, details={"matches": len(lines), "engine": engine, "more": more})

    async def _rg(
        self, rg: str, pattern: str, literal: bool, target: Path, limit: int, ctx: ToolContext
    ) -> tuple[list[str], bool, int]:
        ws = ctx.workspace.resolve()
        argv = [rg, "--line-number", "--no-heading", "--with-filename", "--null", "--color=never"]
        argv += ["--hidden", "--glob=!.git", "--sort=path", "--no-messages"]
        argv += ["--fixed-strings"] if literal else []
        argv += ["-e", pattern, "--", relative(target, ctx)]
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=ws,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        lines: list[str] = []
        more = False
        linked: dict[str, bool] = {}  # file -> has other hard links (checked once per file)
        try:
            async for raw in proc.stdout:
                name, sep, rest = raw.decode("utf-8", errors="replace").partition("\0")
                number, colon, text = rest.partition(":")
                if not sep or not colon or not number.isdigit():
                    continue  # e.g. "binary file matches" notices
                if name not in linked:
                    linked[name] = has_other_links(ws / name)
                if linked[name]:
                    continue
                if len(lines) == limit:
                    more = True
                    break
                lines.append(_line(name.removeprefix("./"), int(number), text))
        finally:
            # Only a search stopped early (or cancelled) needs killing; rg that reached EOF is
            # exiting on its own. Never proc.kill(): it can reap the child (see children.py).
            if not proc.stdout.at_eof():
                kill_child(proc)
            err = await proc.stderr.read()
            await proc.wait()
        if proc.returncode == 2 and not lines and not more:
            msg = err.decode("utf-8", errors="replace").strip().splitlines()
            raise ToolError("grep failed: " + (msg[0] if msg else "invalid pattern"))
        return lines, more, sum(linked.values())

    async def _python(
        self, pattern: str, literal: bool, target: Path, limit: int, ctx: ToolContext
    ) -> tuple[list[str], bool, int]:
        """The fallback search in a child process: a runaway regex costs a process, not the daemon."""
        request = {
            "pattern": pattern,
            "literal": literal,
            "target": str(target),
            "workspace": str(ctx.workspace.resolve()),
            "limit": limit,
            "maxText": MAX_TEXT,
            "sniff": SNIFF_BYTES,
        }
        timeout = fallback_timeout()
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",  # isolated: no PYTHON* variables, no user site, no script dir on sys.path
            str(_WORKER),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            async with asyncio.timeout(timeout):
                out, _ = await proc.communicate(json.dumps(request).encode())
        except TimeoutError:
            raise ToolError(
                f"grep failed: the pattern took too long (over {timeout:g} s in the Python "
                "search); simplify the regex (nested repeats such as (a+)+ backtrack), use "
                "literal=true, or install ripgrep"
            ) from None
        finally:  # timeout or cancel: the child must not outlive the call
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        try:
            reply = json.loads(out)
        except ValueError:
            raise ToolError("grep failed: the search process ended without an answer") from None
        if "error" in reply:
            raise ToolError(str(reply["error"]))
        return list(reply["lines"]), bool(reply["more"]), int(reply.get("linked", 0))
