"""The bash tool: one command in its own process group, timeout and cancellation kill the group."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import uuid
from pathlib import Path
from typing import IO, Any

from ggd.tools.base import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult
from ggd.tools.bash_client import UNREACHABLE, run_in_client, uses_client
from ggd.tools.paths import arg_str
from ggd.tools.sandbox import sandbox_prefix
from ggd.tools.shell.classifier import classify_command

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 24 * 3600.0
KEEP_BYTES = 50 * 1024
TERM_GRACE = 2.0
REAP_WAIT = 5.0
# After the shell exits, background children may still hold the output pipe open.
DRAIN_SECONDS = 1.0


class _Collector(asyncio.SubprocessProtocol):
    """Streams output to the log file and keeps the last KEEP_BYTES in memory."""

    def __init__(self, log: IO[bytes]) -> None:
        self.log = log
        self.tail = bytearray()
        self.total = 0
        self.exited = asyncio.Event()
        self.eof = asyncio.Event()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.total += len(data)
        # A chunk is at most 256 KiB to a local file: cheaper than a thread hop per chunk.
        self.log.write(data)
        self.tail += data
        if len(self.tail) > 2 * KEEP_BYTES:
            del self.tail[:-KEEP_BYTES]

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.eof.set()

    def process_exited(self) -> None:
        self.exited.set()


def _open_log(ctx: ToolContext) -> tuple[Path, IO[bytes]]:
    ctx.log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    prefix = f"{ctx.run_id}-" if ctx.run_id else ""
    path = ctx.log_dir / f"bash-{prefix}{uuid.uuid4().hex[:12]}.log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    return path, os.fdopen(fd, "wb")


def _shell(env: dict[str, str]) -> str:
    shell = env.get("SHELL", "")
    if shell and os.path.isabs(shell) and os.access(shell, os.X_OK):
        return shell
    return "/bin/bash"


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def kill_group(pgid: int, exited: asyncio.Event) -> None:
    """SIGTERM the process group, then SIGKILL it after a short grace."""
    _signal_group(pgid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(exited.wait(), TERM_GRACE)
    # Stragglers that ignored SIGTERM (or outlived the leader) go now.
    _signal_group(pgid, signal.SIGKILL)
    # Orphaned members are reaped by init, not by us: wait (bounded) until the group is gone so
    # callers can rely on "killed" meaning gone.
    loop = asyncio.get_running_loop()
    deadline = loop.time() + REAP_WAIT
    while loop.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            break
        await asyncio.sleep(0.05)
    # The group is gone once the leader is reaped; wait for asyncio to hear of it so the caller's
    # transport.close() does not poll() (waitpid) a child the watcher owns (see children.py).
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(exited.wait(), REAP_WAIT)


class BashTool(Tool):
    """Run a shell command in the workspace."""

    name = "bash"
    description = (
        "Run a bash command in the workspace. Returns the exit code and the last "
        f"{KEEP_BYTES // 1024} KiB of stdout+stderr. timeout: seconds (default "
        f"{int(DEFAULT_TIMEOUT)}), then the command and its children are killed."
    )
    parameters = {
        "type": "object",
        "properties": {
            "command": {"type": "string"},
            "timeout": {"type": "number", "minimum": 1},
        },
        "required": ["command"],
        "additionalProperties": False,
    }

    def summary(self, args: dict[str, Any]) -> str:
        """`bash <first line of the command>`."""
        cmd = str(args.get("command", "")).strip().splitlines()
        first = cmd[0] if cmd else ""
        return "bash " + (first[:100] + " …" if len(first) > 100 or len(cmd) > 1 else first)

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        """Risk from the command classifier; only read-only commands skip approval."""
        cmd = arg_str(args, "command")
        c = classify_command(cmd, ctx.workspace)
        return ApprovalInfo(
            summary=self.summary(args),
            risk=c.risk,
            risk_reason=c.reason,
            needs_approval=c.risk != "read_only",
            details=cmd,
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the command; cancelling the caller kills the whole process group."""
        cmd = arg_str(args, "command")
        if not cmd.strip():
            raise ToolError("command must not be empty")
        timeout = args.get("timeout", DEFAULT_TIMEOUT)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise ToolError("argument 'timeout' must be a number of seconds")
        timeout = max(1.0, min(MAX_TIMEOUT, float(timeout)))
        notes: list[str] = []
        if uses_client(ctx):
            delegated = await run_in_client(cmd, ctx, timeout, KEEP_BYTES)
            if delegated is not None:
                return delegated
            notes.append(UNREACHABLE)
        ws = ctx.workspace.resolve()
        env = dict(ctx.env) if ctx.env is not None else dict(os.environ)
        # A non-login shell keeps the daemon's environment (PATH of an activated venv, pyenv...).
        argv = [_shell(env), "-lc" if ctx.login_shell else "-c", cmd]
        sandboxed = False
        if ctx.sandbox:
            prefix, why = await sandbox_prefix(ws)
            if prefix is None:
                # Asked-for confinement that cannot start fails closed: never run unconfined.
                raise ToolError(
                    f"the sandbox is on but {why}, so the command was not run; install "
                    "bubblewrap or start ggd without --sandbox"
                )
            argv, sandboxed = prefix + argv, True
        log_path, log = await asyncio.to_thread(_open_log, ctx)
        loop = asyncio.get_running_loop()
        try:
            transport, proto = await loop.subprocess_exec(
                lambda: _Collector(log),
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                cwd=ws,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            log.close()
            raise ToolError(f"could not start the shell: {exc.strerror}") from None
        pgid = transport.get_pid()
        timed_out = lingering = False
        try:
            try:
                await asyncio.wait_for(proto.exited.wait(), timeout)
            except TimeoutError:
                timed_out = True
                await kill_group(pgid, proto.exited)
            try:
                await asyncio.wait_for(proto.eof.wait(), DRAIN_SECONDS)
            except TimeoutError:
                lingering = True
        except asyncio.CancelledError:
            await asyncio.shield(kill_group(pgid, proto.exited))
            raise
        finally:
            transport.close()
            log.close()
        code = transport.get_returncode()
        return self._result(
            proto, code, timeout, timed_out, lingering, notes, log_path, pgid, sandboxed
        )

    def _result(
        self,
        proto: _Collector,
        code: int | None,
        timeout: float,
        timed_out: bool,
        lingering: bool,
        notes: list[str],
        log_path: Path,
        pgid: int,
        sandboxed: bool,
    ) -> ToolResult:
        tail = bytes(proto.tail[-KEEP_BYTES:])
        if proto.total > KEEP_BYTES:
            notes.append(
                f"[output truncated: showing the last {KEEP_BYTES // 1024} KiB of "
                f"{proto.total} bytes; the full output is saved in the run log]"
            )
        body = tail.decode("utf-8", errors="replace")
        parts = [*notes, body.rstrip("\n")] if body else notes
        if timed_out:
            parts.append(f"[timed out after {timeout:g} s; the process group was killed]")
        if lingering:
            parts.append("[background processes still hold the output open; stopped reading]")
        if code is not None and code < 0:
            parts.append(f"[killed by signal {-code}]")
        parts.append(f"[exit code: {code}]")
        details = {
            "exitCode": code,
            "timedOut": timed_out,
            "pid": pgid,
            "sandboxed": sandboxed,
            "outputBytes": proto.total,
            "truncated": proto.total > KEEP_BYTES,
            "logPath": str(log_path),
        }
        failed = timed_out or code != 0
        return ToolResult("\n".join(p for p in parts if p), is_error=failed, details=details)
