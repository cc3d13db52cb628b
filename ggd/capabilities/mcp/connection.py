"""One live MCP client connection, owned by its own task.

The SDK's transports are anyio task groups: entered in one task they must be exited in the same
task. A connection therefore lives in a dedicated task that opens the client, lists the tools,
then waits to be closed; tool calls from turn tasks go through the client's streams. The `mcp`
package is imported here, inside the functions that connect, so daemon start-up never pays for it.

That task is stopped through an anyio cancel scope, never `Task.cancel()`: the stdio transport
stops its server (close stdin, wait, kill the process group) inside a shielded scope, and only
anyio's own cancellation honours the shield. A native cancel broke into that shutdown, left the
server running and its stdout reader waiting on it, and the daemon's exit then waited as long.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from .config import HttpServer, ServerSpec, StdioServer

log = logging.getLogger("ggd.mcp")

# The only variables of the daemon's environment a stdio server inherits (API keys never do).
INHERITED_ENV = ("PATH", "HOME", "LANG")
CLOSE_TIMEOUT_SECONDS = 5.0
# After a cancel, how long the transport may take to stop its server (the SDK bounds each of its
# waits: 2 s for the server to exit, then SIGTERM and SIGKILL to its process group).
STOP_TIMEOUT_SECONDS = 10.0
_ABS_PATH = re.compile(r"(?<![\w.~])/[^\s'\":,;)]+")


def server_env(spec: StdioServer, base: dict[str, str] | None = None) -> dict[str, str]:
    """PATH, HOME and LANG of the daemon, then the server's own env map."""
    source = os.environ if base is None else base
    env = {k: source[k] for k in INHERITED_ENV if k in source}
    env.update(spec.env)
    return env


# The SDK's own timeouts for an MCP HTTP client: a server may hold a response stream open.
HTTP_TIMEOUT_SECONDS = 30.0
HTTP_READ_TIMEOUT_SECONDS = 300.0
# Where `env -u` lives on every POSIX system gg runs on.
ENV_PROGRAM = "/usr/bin/env"


def spawn_command(spec: StdioServer, command: str) -> tuple[str, list[str], dict[str, str]]:
    """The program, arguments and env to hand the SDK so the server sees only `server_env`.

    The SDK merges the env it is given over its own default set (`get_default_environment()`:
    PATH, HOME, and on POSIX also LOGNAME, SHELL, TERM, USER). None of those is a secret, but
    the policy is PATH, HOME and LANG plus the server's own map, so the ones the SDK would add
    besides are unset by `env -u` in front of the command: the process `env` execs keeps its
    pid, so the SDK stops it as it would the command itself. Nothing of the env map goes on
    the command line (other local users can read a process's argv).
    """
    from mcp.client.stdio import get_default_environment

    env = server_env(spec)
    extra = sorted(set(get_default_environment()) - set(env))
    if not extra or not os.access(ENV_PROGRAM, os.X_OK):
        return command, list(spec.args), env
    unset = [arg for name in extra for arg in ("-u", name)]
    return ENV_PROGRAM, [*unset, "--", command, *spec.args], env


def _load_sdk() -> None:
    """Import the SDK modules a connection uses (≈1 s): done in a worker thread, not on the loop."""
    import mcp
    import mcp.client.stdio
    import mcp.client.streamable_http  # noqa: F401


async def load_sdk() -> None:
    """Make sure the SDK is imported without blocking the event loop."""
    if "mcp.client.streamable_http" not in sys.modules:
        await asyncio.to_thread(_load_sdk)


def describe_error(exc: BaseException) -> str:
    """A short reason for a failed server, free of paths (secrets are masked by the registry)."""
    if isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, asyncio.CancelledError)]
        if inner:
            return describe_error(inner[0])
    if isinstance(exc, ServerProblem):
        return str(exc)
    name = type(exc).__name__
    text = str(exc).strip()
    if "Connection closed" in text or name in (
        "ClosedResourceError",
        "BrokenResourceError",
        "EndOfStream",
    ):
        return "the server closed the connection (it exited or crashed during start-up)"
    if name in ("ConnectError", "ConnectTimeout"):
        return "cannot connect to the server's URL (is it running?)"
    if name == "HTTPStatusError":
        return f"the server answered HTTP {getattr(getattr(exc, 'response', None), 'status_code', '?')}"
    text = _ABS_PATH.sub("<path>", text)
    return f"{name}: {text}" if text else name


class ServerProblem(Exception):
    """An expected server failure with a user-facing reason."""


def resolve_command(spec: StdioServer) -> str:
    """The executable to start, found on the restricted PATH; a clear error when missing."""
    cmd = spec.command
    env = server_env(spec)
    if os.sep in cmd:
        base = Path(spec.cwd or ".") / cmd if not os.path.isabs(cmd) else Path(cmd)
        if base.is_file() and os.access(base, os.X_OK):
            return str(base)
        raise ServerProblem(f"command not found: {cmd} (no executable file at that path)")
    found = shutil.which(cmd, path=env.get("PATH"))
    if not found:
        raise ServerProblem(f"command not found: {cmd} (not on PATH)")
    return found


class Connection:
    """A connected MCP server: `open` lists its tools, `call` runs one, `aclose` ends it."""

    def __init__(
        self, spec: ServerSpec, log_dir: Path, stopping: set[asyncio.Task[None]] | None = None
    ) -> None:
        self.spec = spec
        self.log_dir = log_dir
        # Where a connection given up on leaves its task while it stops the server (the
        # capability's state: the daemon waits for them before it exits; see stop_all).
        self._stopping = set() if stopping is None else stopping
        self.tools: list[Any] = []
        self._client: Any = None
        self._ready: asyncio.Future[None] | None = None
        self._closing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._scope: Any = None  # the task's anyio.CancelScope, once it runs
        self.dead = False

    async def open(self, within: float) -> list[Any]:
        """Start, initialize and list tools within `within` seconds; raises with a reason on failure."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._task = asyncio.create_task(self._main(), name=f"mcp:{self.spec.name}")
        try:
            async with asyncio.timeout(within):
                await asyncio.shield(self._ready)
        except TimeoutError:
            self._abandon()
            raise ServerProblem(f"did not start and list its tools within {within:g} s") from None
        except BaseException:
            self._abandon()
            raise
        return self.tools

    def _abandon(self) -> None:
        """Cancel a connection that failed to open without waiting for its process to stop.

        The transport's shutdown waits a few seconds for a stuck server to exit; the turn must not.
        """
        if self._ready is not None and not self._ready.done():
            self._ready.cancel()
        task = self._task
        if task is not None and not task.done():
            self._cancel(task)
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)

    def _cancel(self, task: asyncio.Task[None]) -> None:
        """Cancel the connection's task so the transport's shielded shutdown still runs."""
        if self._scope is not None:
            self._scope.cancel()
        else:  # not started yet: nothing of the SDK runs, a plain cancel keeps it from starting
            task.cancel()

    async def _main(self) -> None:
        assert self._ready is not None
        try:
            import anyio

            # Cancelled only once `_ready` is settled (by `_abandon`, or after the tools listed).
            with anyio.CancelScope() as self._scope:
                await self._serve()
        except BaseException as exc:
            self.dead = True
            if not self._ready.done():
                self._ready.set_exception(ServerProblem(describe_error(exc)))
            elif not isinstance(exc, asyncio.CancelledError):
                log.warning("mcp server connection ended", extra={"server": self.spec.name})
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self.dead = True
            self._client = None

    async def _serve(self) -> None:
        await load_sdk()
        from mcp import Client

        transport = await self._transport()
        async with contextlib.AsyncExitStack() as stack:
            if isinstance(transport, tuple):
                stack.callback(transport[1].close)
                transport = transport[0]
            client = await stack.enter_async_context(Client(transport, mode="legacy", cache=None))
            tools: list[Any] = []
            cursor: str | None = None
            for _page in range(50):
                page = (
                    await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
                )
                tools.extend(page.tools)
                cursor = getattr(page, "next_cursor", None)
                if not cursor:
                    break
            self.tools = tools
            self._client = client
            assert self._ready is not None
            self._ready.set_result(None)
            await self._closing.wait()

    async def _transport(self) -> Any:
        cfg = self.spec.config
        if isinstance(cfg, StdioServer):
            from mcp.client.stdio import StdioServerParameters, stdio_client

            command = await asyncio.to_thread(resolve_command, cfg)
            errlog = await asyncio.to_thread(self._errlog)
            program, args, env = spawn_command(cfg, command)
            params = StdioServerParameters(command=program, args=args, env=env, cwd=cfg.cwd)
            return (stdio_client(params, errlog=errlog), errlog)
        assert isinstance(cfg, HttpServer)
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        # The SDK's documented way to set headers: a client of our own, with its timeouts.
        http = httpx2.AsyncClient(
            headers=dict(cfg.headers),
            timeout=httpx2.Timeout(HTTP_TIMEOUT_SECONDS, read=HTTP_READ_TIMEOUT_SECONDS),
        )
        return streamable_http_client(cfg.url, http_client=http)

    def _errlog(self) -> Any:
        """The server's stderr goes to GG_HOME/logs/mcp/<server>.log (0600), not the daemon's."""
        self.log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self.log_dir / f"{self.spec.name}.log"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return os.fdopen(fd, "a", encoding="utf-8")

    async def call(self, tool: str, args: dict[str, Any], within: float) -> Any:
        """Call one tool; the SDK's CallToolResult."""
        client = self._client
        if client is None or self.dead:
            raise ServerProblem(f"MCP server {self.spec.name} is not connected; try again")
        try:
            async with asyncio.timeout(within):
                return await client.call_tool(tool, args)
        except TimeoutError:
            raise ServerProblem(f"{tool} did not answer within {within:g} s") from None
        except ServerProblem:
            raise
        except Exception as exc:
            if self._task is not None and self._task.done():
                self.dead = True
            raise ServerProblem(describe_error(exc)) from None

    async def aclose(self) -> None:
        """Stop the server (bounded); never raises."""
        self._closing.set()
        task = self._task
        if task is None or task.done():
            return
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_SECONDS):
                await asyncio.shield(task)
        except TimeoutError:
            self._cancel(task)
            with contextlib.suppress(BaseException):
                async with asyncio.timeout(STOP_TIMEOUT_SECONDS):
                    await asyncio.shield(task)
            if not task.done():  # the transport did not stop within its own bounds
                task.cancel()
                log.warning("mcp server did not stop", extra={"server": self.spec.name})
        except BaseException:
            log.debug("mcp connection closed with an error", extra={"server": self.spec.name})


async def stop_all(stopping: set[asyncio.Task[None]], within: float = STOP_TIMEOUT_SECONDS) -> None:
    """Wait (bounded) for connections given up on to stop their servers.

    At the daemon's exit asyncio cancels every task left, natively, which would break into a
    transport's shielded shutdown and leave its server running.
    """
    if stopping:
        await asyncio.wait(set(stopping), timeout=within)


__all__ = [
    "INHERITED_ENV",
    "Connection",
    "ServerProblem",
    "describe_error",
    "server_env",
    "spawn_command",
    "stop_all",
]
