"""DaemonApp: wires config, providers, runtime, runs and listeners; owns the process lifecycle."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ggd import __version__
from ggd.app import Capability, DaemonCore
from ggd.protocol import PROTOCOL_VERSION
from ggd.rpc.handlers import CAPABILITY as CORE_METHODS
from ggd.rpc.hub import Hub
from ggd.transport import SocketInUseError, serve_stdio, start_unix

from .catalog import all_capabilities
from .compose import ComposeError, config_sections, start_channels
from .compose import compose as _compose
from .config import Config, ConfigError, load_config
from .flags import parse_hostport
from .home import prepare_home, resolve_home
from .instance import AlreadyRunningError, InstanceLock, remove_discovery, write_discovery
from .logs import setup_logging
from .problems import bind_problem, home_problem, probe_writable, socket_problem
from .takeover import TakeoverError, take_over

log = logging.getLogger("ggd.daemon")
WEB_ROOT = Path(__file__).resolve().parent.parent / "web"


@dataclass(frozen=True)
class _Setup:
    """What the daemon reads before it starts anything: all checked, all a clear error."""

    home: Path
    capabilities: tuple[Capability, ...]
    config: Config
    sections: dict[str, BaseModel]
    ws_addr: tuple[str, int] | None


async def _close_core(core: DaemonCore) -> None:
    """Stop the channels, the runs and the sessions (while the listeners still deliver)."""
    await core.supervisor.stop()
    with contextlib.suppress(Exception):
        await core.runs.close()
    await core.runtime.close()


async def _close_late(core: DaemonCore) -> None:
    """Last: the capabilities' providers, then the model clients."""
    await core.registry.aclose()
    with contextlib.suppress(Exception):
        await core.runs.turns.models.aclose()


class StartupError(Exception):
    """The daemon cannot start; the message says why and what to do."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class DaemonApp:
    """One daemon process."""

    def __init__(self, ns: argparse.Namespace) -> None:
        self.ns = ns
        self.private = bool(ns.stdio or ns.exit_on_stdin_eof or ns.private)
        self.stop = asyncio.Event()
        self.exit_code = 0

    async def run(self) -> int:
        """Start everything, wait for a stop signal, then shut down cleanly.

        Each part is pushed on one exit stack as it starts, so whatever started is closed, in
        reverse, however far the start got: the daemon's tasks, then the channels, runs and
        sessions (while clients can still hear about them), the discovery file, the listeners,
        the capabilities and models, and the instance lock last.
        """
        ns = self.ns
        setup = self._setup()
        async with contextlib.AsyncExitStack() as stack:
            if not self.private:
                await self._lock(stack, setup)
            workspace = (ns.workspace or Path.cwd()).resolve()
            if not workspace.is_dir():
                raise StartupError("--workspace must be an existing folder")
            try:
                core, info = await _compose(
                    setup.config,
                    setup.sections,
                    ns,
                    setup.home,
                    workspace,
                    owns_channels=not self.private,
                    capabilities=setup.capabilities,
                )
            except ComposeError as exc:
                raise StartupError(str(exc)) from None
            stack.push_async_callback(_close_late, core)
            hub = self.hub = Hub(core, info, CORE_METHODS)  # the core's methods join the table
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.request_stop, sig.name)
            # GG_TOKEN keeps the token out of /proc/<pid>/cmdline, which other local users can read.
            from .token import ws_token

            token = ws_token(
                setup.home, ns.token or os.environ.get("GG_TOKEN"), rotate=ns.rotate_token
            )
            sock_path = await self._listen_unix(stack, hub, setup.home)
            urls = await self._listen_ws(stack, hub, setup.ws_addr, token)
            if urls is not None:
                self._announce_ui(urls[0], token, workspace, demo=info.demo)
            if not self.private:
                self._write_discovery(stack, setup.home, sock_path, urls, token)
            stack.push_async_callback(_close_core, core)
            start_channels(
                core,
                setup.capabilities,
                not_owner=self._not_owner_reason(setup.home),
                off=tuple(getattr(ns, "no_channel", None) or ()),
            )
            log.info("ggd started", extra={"pid": os.getpid(), "private": self.private})
            self._start_tasks(stack, hub)
            stack.callback(log.info, "ggd stopping")
            try:
                await self.stop.wait()
            except BaseException as exc:
                log.info("stopping on %s", type(exc).__name__)
                raise
        return self.exit_code

    def _setup(self) -> _Setup:
        """GG_HOME, logging, the catalog, config.json and --ws, each checked with a clear error."""
        ns = self.ns
        # An unusable GG_HOME or log file is a two-line message, not a traceback.
        home = resolve_home()
        try:
            prepare_home(home)
            probe_writable(home)
        except OSError as exc:
            raise StartupError(home_problem(home, exc)) from None
        try:
            setup_logging(log_file=ns.log_file)
        except OSError as exc:
            raise StartupError(f"cannot write the log file {ns.log_file}: {exc.strerror}") from None
        try:
            capabilities = all_capabilities(os.environ)
        except ValueError as exc:
            raise StartupError(str(exc)) from None
        try:
            config, sections = load_config(home / "config.json", config_sections(capabilities))
        except ConfigError as exc:
            raise StartupError(str(exc)) from None
        return _Setup(home, capabilities, config, sections, self._ws_addr())

    def _ws_addr(self) -> tuple[str, int] | None:
        ns = self.ns
        if not ns.ws:
            return None
        from ggd.transport.websocket import is_loopback_host

        try:
            ws_addr = parse_hostport(ns.ws)
        except ValueError as exc:
            raise StartupError(str(exc)) from None
        if not is_loopback_host(ws_addr[0]) and not ns.allow_remote:
            raise StartupError(
                f"refusing to listen on non-loopback address {ws_addr[0]}: pass --allow-remote "
                "if you really want other machines to reach this agent"
            )
        return ws_addr

    async def _lock(self, stack: contextlib.AsyncExitStack, setup: _Setup) -> None:
        lock = InstanceLock(setup.home / "run" / "ggd.lock")
        try:
            lock.acquire()
        except AlreadyRunningError:
            # Reuse a daemon with the web UI (print its URL) or replace the one
            # gg auto-started without it; see takeover.py.
            try:
                await take_over(
                    lock,
                    setup.home / "run" / "ggd.json",
                    want_ws=setup.ws_addr is not None,
                    ws_addr=setup.ws_addr,
                )
            except TakeoverError as exc:
                raise StartupError(str(exc), exit_code=1) from None
        stack.callback(lock.release)

    async def _listen_unix(
        self, stack: contextlib.AsyncExitStack, hub: Hub, home: Path
    ) -> Path | None:
        sock_path: Path = self.ns.socket or home / "run" / "ggd.sock"
        if self.private and not self.ns.socket:
            return sock_path
        try:
            server = await start_unix(hub, sock_path, version=__version__)
        except SocketInUseError as exc:
            raise StartupError(str(exc), exit_code=1) from None
        except OSError as exc:  # say what and how, no traceback
            raise StartupError(socket_problem(sock_path, exc)) from None

        def close() -> None:
            server.close()
            sock_path.unlink(missing_ok=True)

        stack.callback(close)
        return sock_path

    async def _listen_ws(
        self,
        stack: contextlib.AsyncExitStack,
        hub: Hub,
        ws_addr: tuple[str, int] | None,
        token: str,
    ) -> tuple[str, str] | None:
        """Start the WebSocket listener (and web UI) when asked; its (http, ws) URLs."""
        if ws_addr is None:
            return None
        from ggd.transport.websocket import WebSocketListener, WsOptions

        host, port = ws_addr
        listener = WebSocketListener(
            hub,
            WsOptions(
                token=token,
                host=host,
                port=port,
                allow_remote=self.ns.allow_remote,
                allowed_origins=frozenset(self.ns.allow_origin or ()),
                web_root=WEB_ROOT,
                version=__version__,
            ),
        )
        try:
            await listener.start()
        except OSError as exc:  # port in use is a message, not a traceback
            raise StartupError(bind_problem(host, port, exc)) from None
        stack.push_async_callback(listener.close)
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{listener.port}/", f"ws://{shown}:{listener.port}/ws"

    @staticmethod
    def _announce_ui(http: str, token: str, workspace: Path, *, demo: bool) -> None:
        print(f"gg web UI: {http}#token={token}", file=sys.stderr, flush=True)
        # Whoever starts the web UI learns where it works and what answers.
        print(f"gg workspace: {workspace}", file=sys.stderr, flush=True)
        if demo:
            print(
                "gg: the offline demo model is active (no provider configured); set "
                "OPENAI_API_KEY / GG_MODEL or GG_HOME/config.json (docs/providers.md)",
                file=sys.stderr,
                flush=True,
            )

    def _write_discovery(
        self,
        stack: contextlib.AsyncExitStack,
        home: Path,
        sock_path: Path | None,
        urls: tuple[str, str] | None,
        token: str,
    ) -> None:
        discovery = home / "run" / "ggd.json"
        write_discovery(
            discovery,
            {
                "pid": os.getpid(),
                "socket": str(sock_path),
                "ws": urls[1] if urls else None,
                "http": urls[0] if urls else None,
                "token": token if urls else None,
                "version": __version__,
                "protocolVersion": PROTOCOL_VERSION,
                # marks a daemon gg auto-started (takeover.py may replace it)
                "idleExit": self.ns.idle_exit,
            },
        )
        stack.callback(remove_discovery, discovery, os.getpid())

    def _start_tasks(self, stack: contextlib.AsyncExitStack, hub: Hub) -> None:
        ns = self.ns
        tasks: list[asyncio.Task[Any]] = []
        if ns.stdio:
            tasks.append(asyncio.create_task(self._stdio(hub)))
        elif ns.exit_on_stdin_eof:
            tasks.append(asyncio.create_task(self._watch_stdin()))
        if ns.idle_exit:
            tasks.append(asyncio.create_task(self._idle_watch(hub, ns.idle_exit * 60)))
        for task in tasks:
            stack.callback(task.cancel)

    def _not_owner_reason(self, home: Path) -> str:
        """Why a private daemon (sidecar, --stdio) runs no channels, for system.info and /health.

        A sidecar never takes the instance lock, even when no other ggd runs: holding it would
        make a later `ggd` refuse to start. It reads the discovery file instead of probing the
        lock, so it never holds the lock even for a moment.
        """
        from .instance import running_daemon_pid

        pid = running_daemon_pid(home / "run" / "ggd.json")
        if pid is not None:
            return f"another ggd (pid {pid}) owns the channels; scheduled jobs fire there"
        return (
            "a private daemon (--stdio, --exit-on-stdin-eof, --private) runs no channels; "
            "start `ggd` (or `ggd install-service`) so scheduled jobs fire"
        )

    def request_stop(self, reason: str) -> None:
        """Begin a clean shutdown."""
        log.info("shutdown requested", extra={"reason": reason})
        self.stop.set()

    async def _stdio(self, hub: Hub) -> None:
        try:
            # LSP: `exit` without `shutdown` ends the server with 1
            self.exit_code = max(self.exit_code, await serve_stdio(hub, version=__version__))
        finally:
            self.stop.set()

    async def _watch_stdin(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
            while await reader.read(4096):
                pass
        except (OSError, ValueError):
            pass
        finally:
            log.info("stdin closed: exiting")
            self.stop.set()

    async def _idle_watch(self, hub: Hub, seconds: float) -> None:
        while True:
            await asyncio.sleep(min(30.0, max(1.0, seconds / 4)))
            if hub.idle() and time.monotonic() - hub.last_activity >= seconds:
                log.info("idle: exiting")
                self.stop.set()
                return
