"""The computer tools: computer_info, process_list, process_kill, clipboard_*, notify, open."""

from __future__ import annotations

import asyncio
import os
import platform
import signal
import time
from typing import Any

from ggd.tools import ApprovalInfo, Tool, ToolContext, ToolError, ToolResult

from .procs import HelperError, run_helper

CLIPBOARD_LIMIT = 256 * 1024
_SIGNALS = {
    "TERM": signal.SIGTERM,
    "KILL": signal.SIGKILL,
    "INT": signal.SIGINT,
    "HUP": signal.SIGHUP,
}


def _signal_name(raw: Any) -> str:
    """TERM for TERM, SIGTERM or sigterm (the default when none is given)."""
    if raw is None:
        return "TERM"
    name = str(raw).strip().upper()
    return name[3:] if name.startswith("SIG") else name


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


def _free(summary: str) -> ApprovalInfo:
    return ApprovalInfo(summary=summary, risk="read_only", needs_approval=False)


def _mb(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


class ComputerInfo(Tool):
    """OS, CPU, memory, disks and uptime."""

    name = "computer_info"
    deferred = True
    description = "Facts about this computer: OS, CPU, memory, disks, uptime."
    parameters = _obj({})
    parallel_safe = True

    def summary(self, args: dict[str, Any]) -> str:
        return "computer_info"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return _free("computer_info")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(output=await asyncio.to_thread(_info))


def _info() -> str:
    import psutil  # imported where used: ~8 ms that ggd's start-up does not pay

    vm = psutil.virtual_memory()
    lines = [
        f"os: {platform.system()} {platform.release()} ({platform.machine()})",
        f"cpu: {psutil.cpu_count(logical=True)} logical cores, load {os.getloadavg()[0]:.2f}",
        f"memory: {_mb(vm.used)} used of {_mb(vm.total)} ({vm.percent:.0f} %)",
        f"uptime: {int(time.time() - psutil.boot_time()) // 60} min",
    ]
    for part in psutil.disk_partitions(all=False)[:8]:
        try:
            du = psutil.disk_usage(part.mountpoint)
        except OSError:
            continue
        lines.append(f"disk {part.mountpoint}: {_mb(du.used)} used of {_mb(du.total)}")
    return "\n".join(lines)


class ProcessList(Tool):
    """The busiest processes by CPU or memory."""

    name = "process_list"
    deferred = True
    description = "List processes sorted by cpu or mem (pid, name, cpu %, memory, command)."
    parameters = _obj(
        {
            "sort": {"type": "string", "enum": ["cpu", "mem"]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 200},
        }
    )
    parallel_safe = True

    def summary(self, args: dict[str, Any]) -> str:
        return f"process_list {args.get('sort', 'cpu')}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return _free(self.summary(args))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        sort = args.get("sort", "cpu")
        if sort not in ("cpu", "mem"):
            raise ToolError("sort must be 'cpu' or 'mem'")
        limit = args.get("limit", 20)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 200:
            raise ToolError("limit must be an integer from 1 to 200")
        return ToolResult(output=await asyncio.to_thread(_processes, sort, limit))


def _processes(sort: str, limit: int) -> str:
    import psutil

    procs = list(psutil.process_iter(["pid", "name", "memory_info", "cmdline"]))
    for p in procs:  # the first cpu_percent call primes the counter
        try:
            p.cpu_percent(None)
        except psutil.Error:
            pass
    time.sleep(0.2)
    rows = []
    for p in procs:
        try:
            cpu = p.cpu_percent(None)
            mem = p.info["memory_info"].rss if p.info["memory_info"] else 0
            cmd = " ".join(p.info["cmdline"] or [])[:80]
            rows.append((p.info["pid"], p.info["name"] or "?", cpu, mem, cmd))
        except psutil.Error:
            continue
    rows.sort(key=lambda r: r[2] if sort == "cpu" else r[3], reverse=True)
    out = ["pid\tcpu%\tmemory\tname\tcommand"]
    out += [
        f"{pid}\t{cpu:.1f}\t{_mb(mem)}\t{name}\t{cmd}" for pid, name, cpu, mem, cmd in rows[:limit]
    ]
    return "\n".join(out)


def _protected(pid: int) -> str | None:
    """Why this pid must not be signalled, or None."""
    import psutil

    if pid <= 1:
        return "pid 1 and lower are the system's"
    me = psutil.Process(os.getpid())
    if pid == me.pid:
        return "that is the gg daemon itself"
    try:
        if pid in {c.pid for c in me.children(recursive=True)}:
            return "that process belongs to the gg daemon (a running tool); cancel the run instead"
    except psutil.Error:
        pass
    return None


class ProcessKill(Tool):
    """Send a signal to a process (with approval)."""

    name = "process_kill"
    deferred = True
    description = "Send a signal (TERM, KILL, INT, HUP) to a process by pid. Asks the user first."
    parameters = _obj(
        {
            "pid": {"type": "integer"},
            # Models write both spellings: TERM and SIGTERM name the same signal.
            "signal": {
                "type": "string",
                "enum": sorted([*_SIGNALS, *(f"SIG{n}" for n in _SIGNALS)]),
            },
        },
        ["pid"],
    )

    def summary(self, args: dict[str, Any]) -> str:
        return f"process_kill {args.get('pid')} {_signal_name(args.get('signal'))}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        import psutil

        pid = args.get("pid")
        name = "?"
        if isinstance(pid, int):
            try:
                name = " ".join(psutil.Process(pid).cmdline())[:200] or psutil.Process(pid).name()
            except psutil.Error:
                name = "(no such process)"
        return ApprovalInfo(
            summary=self.summary(args),
            details=f"send SIG{_signal_name(args.get('signal'))} to pid {pid}: {name}",
            risk="normal",
        )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pid, sig = args.get("pid"), _signal_name(args.get("signal"))
        if not isinstance(pid, int) or isinstance(pid, bool):
            raise ToolError("pid must be an integer")
        if sig not in _SIGNALS:
            raise ToolError(f"signal must be one of {', '.join(sorted(_SIGNALS))}")
        why = await asyncio.to_thread(_protected, pid)
        if why:
            raise ToolError(f"refused to signal pid {pid}: {why}")
        try:
            os.kill(pid, _SIGNALS[sig])
        except ProcessLookupError:
            raise ToolError(f"no process with pid {pid}") from None
        except PermissionError:
            raise ToolError(f"not allowed to signal pid {pid} (another user's process)") from None
        return ToolResult(output=f"sent SIG{sig} to pid {pid}")


class ClipboardRead(Tool):
    """Read the clipboard (with approval: its content goes to the model)."""

    name = "clipboard_read"
    deferred = True
    description = "Read the desktop clipboard's text. Asks the user first."
    parameters = _obj({})

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv

    def summary(self, args: dict[str, Any]) -> str:
        return "clipboard_read"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return ApprovalInfo(summary="clipboard_read", details="send the clipboard to the model")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            out = await run_helper(self.argv)
        except HelperError as exc:
            raise ToolError(str(exc)) from None
        text = out[:CLIPBOARD_LIMIT].decode(errors="replace")
        return ToolResult(output=text if text else "(the clipboard is empty)")


class ClipboardWrite(Tool):
    """Put text on the clipboard (with approval)."""

    name = "clipboard_write"
    deferred = True
    description = "Put text on the desktop clipboard. Asks the user first."
    parameters = _obj({"text": {"type": "string"}}, ["text"])

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv

    def summary(self, args: dict[str, Any]) -> str:
        return f"clipboard_write ({len(str(args.get('text', '')))} chars)"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return ApprovalInfo(summary=self.summary(args), details=str(args.get("text", ""))[:2000])

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        text = args.get("text")
        if not isinstance(text, str):
            raise ToolError("text must be a string")
        if len(text.encode()) > CLIPBOARD_LIMIT:
            raise ToolError(f"text is over {CLIPBOARD_LIMIT // 1024} KiB")
        try:
            await run_helper(self.argv, stdin=text.encode(), capture=False)
        except HelperError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(output=f"copied {len(text)} characters")


class Notify(Tool):
    """A desktop notification (shown to the user only; no approval)."""

    name = "notify"
    deferred = True
    description = "Show a desktop notification to the user."
    parameters = _obj({"title": {"type": "string"}, "body": {"type": "string"}}, ["title"])

    def __init__(self, binary: str) -> None:
        self.binary = binary

    def summary(self, args: dict[str, Any]) -> str:
        return f"notify {str(args.get('title', ''))[:60]}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return ApprovalInfo(summary=self.summary(args), risk="read_only", needs_approval=False)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        title, body = args.get("title"), args.get("body", "")
        if not isinstance(title, str) or not isinstance(body, str):
            raise ToolError("title and body must be strings")
        try:
            await run_helper([self.binary, "--", title[:200], body[:2000]])
        except HelperError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(output="notification shown")


class Open(Tool):
    """Open a file or URL with the desktop's default program (with approval)."""

    name = "open"
    deferred = True
    description = "Open a URL or a workspace file with the desktop's default program. Asks first."
    parameters = _obj({"target": {"type": "string"}}, ["target"])

    def __init__(self, binary: str) -> None:
        self.binary = binary

    def summary(self, args: dict[str, Any]) -> str:
        return f"open {str(args.get('target', ''))[:120]}"

    def describe(self, args: dict[str, Any], ctx: ToolContext) -> ApprovalInfo:
        return ApprovalInfo(summary=self.summary(args), details=str(args.get("target", "")))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        target = args.get("target")
        if not isinstance(target, str) or not target.strip() or target.startswith("-"):
            raise ToolError("target must be a URL or a path (not an option)")
        if "://" not in target:
            path = (ctx.workspace / target).resolve()
            if not path.is_relative_to(ctx.workspace.resolve()) or not path.exists():
                raise ToolError("target must be a URL or an existing file inside the workspace")
            target = str(path)
        try:
            await run_helper([self.binary, target])
        except HelperError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(output="opened")
