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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggd import __version__
from ggd.protocol import PROTOCOL_VERSION
from ggd.rpc.hub import Hub
from ggd.transport import SocketInUseError, serve_stdio, start_unix

from .catalog import all_capabilities
from .compose import ComposeError, config_sections, start_channels
from .compose import compose as _compose
from .config import ConfigError, load_config
from .home import prepare_home, resolve_home
from .instance import AlreadyRunningError, InstanceLock, remove_discovery, write_discovery
from .logs import setup_logging
from .problems import bind_problem, home_problem, probe_writable, socket_problem
from .takeover import TakeoverError, take_over

if TYPE_CHECKING:
    from ggd.transport.websocket import WebSocketListener

log = logging.getLogger("ggd.daemon")
WEB_ROOT = Path(__file__).resolve().parent.parent / "web"


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
        """Start everything, wait for a stop signal, then shut down cleanly."""
        ns = self.ns
        from .main import parse_hostport

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
        ws_addr: tuple[str, int] | None = None
        if ns.ws:
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
        lock = InstanceLock(home / "run" / "ggd.lock")
        if not self.private:
            try:
                lock.acquire()
            except AlreadyRunningError:
                # Reuse a daemon with the web UI (print its URL) or replace the one
                # gg auto-started without it; see takeover.py.
                try:
                    await take_over(
                        lock,
                        home / "run" / "ggd.json",
                        want_ws=ws_addr is not None,
                        ws_addr=ws_addr,
                    )
                except TakeoverError as exc:
                    raise StartupError(str(exc), exit_code=1) from None
        workspace = (ns.workspace or Path.cwd()).resolve()
        if not workspace.is_dir():
            raise StartupError("--workspace must be an existing folder")

        try:
            core, info = await _compose(
                config,
                sections,
                ns,
                home,
                workspace,
                owns_channels=not self.private,
                capabilities=capabilities,
            )
        except ComposeError as exc:
            raise StartupError(str(exc)) from None
        hub = Hub(core, info)
        self.hub = hub

        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.request_stop, sig.name)
        tasks: list[asyncio.Task[Any]] = []
        unix_server = None
        ws_listener: WebSocketListener | None = None
        discovery = home / "run" / "ggd.json"
        try:
            sock_path = ns.socket or home / "run" / "ggd.sock"
            if not self.private or ns.socket:
                try:
                    unix_server = await start_unix(hub, sock_path, version=__version__)
                except SocketInUseError as exc:
                    raise StartupError(str(exc), exit_code=1) from None
                except OSError as exc:  # say what and how, no traceback
                    raise StartupError(socket_problem(sock_path, exc)) from None
            # GG_TOKEN keeps the token out of /proc/<pid>/cmdline, which other local users can read.
            from .token import ws_token

            token = ws_token(home, ns.token or os.environ.get("GG_TOKEN"), rotate=ns.rotate_token)
            if ws_addr is not None:
                from ggd.transport.websocket import WebSocketListener, WsOptions

                ws_listener = WebSocketListener(
                    hub,
                    WsOptions(
                        token=token,
                        host=ws_addr[0],
                        port=ws_addr[1],
                        allow_remote=ns.allow_remote,
                        allowed_origins=frozenset(ns.allow_origin or ()),
                        web_root=WEB_ROOT,
                        version=__version__,
                    ),
                )
                try:
                    await ws_listener.start()
                except OSError as exc:  # port in use is a message, not a traceback
                    ws_listener = None
                    raise StartupError(bind_problem(ws_addr[0], ws_addr[1], exc)) from None
            http = ws_url = None
            if ws_listener is not None:
                host = ws_addr[0] if ws_addr else "127.0.0.1"
                shown = f"[{host}]" if ":" in host else host
                http = f"http://{shown}:{ws_listener.port}/"
                ws_url = f"ws://{shown}:{ws_listener.port}/ws"
                print(f"gg web UI: {http}#token={token}", file=sys.stderr, flush=True)
                # Whoever starts the web UI learns where it works and what answers.
                print(f"gg workspace: {workspace}", file=sys.stderr, flush=True)
                if info.demo:
                    print(
                        "gg: the offline demo model is active (no provider configured); set "
                        "OPENAI_API_KEY / GG_MODEL or GG_HOME/config.json (docs/providers.md)",
                        file=sys.stderr,
                        flush=True,
                    )
            if not self.private:
                write_discovery(
                    discovery,
                    {
                        "pid": os.getpid(),
                        "socket": str(sock_path),
                        "ws": ws_url,
                        "http": http,
                        "token": token if ws_listener is not None else None,
                        "version": __version__,
                        "protocolVersion": PROTOCOL_VERSION,
                        # marks a daemon gg auto-started (takeover.py may replace it)
                        "idleExit": ns.idle_exit,
                    },
                )
            start_channels(
                core,
                capabilities,
                not_owner=self._not_owner_reason(home),
                off=tuple(getattr(ns, "no_channel", None) or ()),
            )
            log.info("ggd started", extra={"pid": os.getpid(), "private": self.private})
            if ns.stdio:
                tasks.append(asyncio.create_task(self._stdio(hub)))
            elif ns.exit_on_stdin_eof:
                tasks.append(asyncio.create_task(self._watch_stdin()))
            if ns.idle_exit:
                tasks.append(asyncio.create_task(self._idle_watch(hub, ns.idle_exit * 60)))
            await self.stop.wait()
        except BaseException as exc:
            log.info("stopping on %s", type(exc).__name__)
            raise
        finally:
            log.info("ggd stopping")
            for t in tasks:
                t.cancel()
            await core.supervisor.stop()
            with contextlib.suppress(Exception):
                await core.runs.close()
            await core.runtime.close()
            if ws_listener is not None:
                await ws_listener.close()
            if unix_server is not None:
                unix_server.close()
                sock_path.unlink(missing_ok=True)
            if not self.private:
                remove_discovery(discovery, os.getpid())
                lock.release()
            await core.registry.aclose()
            with contextlib.suppress(Exception):
                await core.runs.turns.models.aclose()
        return self.exit_code

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
