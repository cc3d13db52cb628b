"""bash in the editor's terminal: the run's client runs the command, gg shapes the result."""

from __future__ import annotations

import asyncio
from typing import Any

from ggd.tools.base import ToolContext, ToolResult
from ggd.tools.client import ClientToolError, CommandOutcome

# The client enforces the command's timeout itself; gg gives it this long on top to report.
CLIENT_GRACE = 10.0
UNREACHABLE = (
    "[the editor's terminal could not be reached before the command was sent; gg ran it itself]"
)


def uses_client(ctx: ToolContext) -> bool:
    """The editor's terminal serves bash: it offers one and no sandbox is in force."""
    # A sandbox confines commands with bubblewrap; an editor's terminal cannot promise that.
    return ctx.client is not None and ctx.client.can_run and not ctx.sandbox


def _tail(text: str, limit: int) -> tuple[str, int, bool]:
    data = text.encode("utf-8", errors="replace")
    if len(data) <= limit:
        return text, len(data), False
    return data[-limit:].decode("utf-8", errors="ignore"), len(data), True


def _shape(out: CommandOutcome, timeout: float, keep: int) -> ToolResult:
    body, size, cut = _tail(out.output, keep)
    truncated = cut or out.truncated
    parts: list[str] = []
    if truncated:
        parts.append(f"[output truncated: showing the last {keep // 1024} KiB]")
    if body:
        parts.append(body.rstrip("\n"))
    if out.timed_out:
        parts.append(f"[timed out after {timeout:g} s; the editor's terminal was killed]")
    if out.signal:
        parts.append(f"[killed by signal {out.signal}]")
    parts.append(f"[exit code: {out.exit_code}]")
    details: dict[str, Any] = {
        "exitCode": out.exit_code,
        "timedOut": out.timed_out,
        "sandboxed": False,
        "outputBytes": size,
        "truncated": truncated,
        "terminal": "editor",
    }
    failed = out.timed_out or out.exit_code != 0
    return ToolResult("\n".join(parts), is_error=failed, details=details)


async def run_in_client(
    cmd: str, ctx: ToolContext, time_limit: float, keep: int
) -> ToolResult | None:
    """The command's result from the editor's terminal; None when it never reached the editor.

    Cancelling the caller cancels the pending request, which tells the client to kill it.
    """
    assert ctx.client is not None
    ws = ctx.workspace.resolve()
    try:
        async with asyncio.timeout(time_limit + CLIENT_GRACE):
            out = await ctx.client.run_command(cmd, ws, time_limit, keep)
    except TimeoutError:
        out = CommandOutcome(output="", timed_out=True)

    except ClientToolError as exc:
        if not exc.delivered:
            return None
        # It may have run: running it again here could do its work twice.
        return ToolResult(
            f"[the editor's terminal failed: {exc}; gg did not run the command again, so "
            "whether it ran is unknown]",
            is_error=True,
            details={"terminal": "editor", "exitCode": None, "clientError": str(exc)},
        )
    return _shape(out, time_limit, keep)


__all__ = ["UNREACHABLE", "run_in_client", "uses_client"]
