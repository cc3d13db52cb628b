"""`ggd --ws` when a daemon already holds GG_HOME: end with a working web UI URL.

The CLI auto-starts a daemon without WebSocket (with --idle-exit); `make run` afterwards used to
stop at "already running" with no URL. Now: a running daemon with the web UI is reused (its URL
comes from the discovery file); one the CLI auto-started without it is stopped and replaced.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from .instance import AlreadyRunningError, InstanceLock
from .problems import bind_problem

STOP_WAIT = 15.0
START_WAIT = 5.0


class AlreadyServing(Exception):
    """A daemon with the web UI runs already; the message is its URL for the user."""


class TakeoverError(Exception):
    """A running daemon cannot be reused or replaced; the message says what to do."""


def ui_url(disc: dict[str, Any]) -> str | None:
    """The `http://...#token=...` a browser opens, from a discovery file's contents."""
    http, token = disc.get("http"), disc.get("token")
    return f"{http}#token={token}" if http and token else None


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("pid"), int) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def _acquire_within(lock: InstanceLock, seconds: float) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        try:
            lock.acquire()
            return True
        except AlreadyRunningError:
            if loop.time() >= deadline:
                return False
        await asyncio.sleep(0.05)  # the other daemon is exiting: nothing to wait on but the lock


def _port_problem(addr: tuple[str, int]) -> str | None:
    """Why the WebSocket port cannot be bound now (None when it can)."""
    host, port = addr
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        with socket.socket(infos[0][0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(infos[0][4])
    except OSError as exc:
        return bind_problem(host, port, exc)
    return None


async def take_over(
    lock: InstanceLock, discovery: Path, want_ws: bool, ws_addr: tuple[str, int] | None = None
) -> None:
    """Return holding the lock, or raise AlreadyServing (with the URL) / TakeoverError."""
    disc = _read(discovery)
    if disc is None or not _alive(disc["pid"]):
        # Starting or just exiting: give it a moment, then treat it as running.
        if await _acquire_within(lock, START_WAIT):
            return
        disc = _read(discovery) or {}
    pid = disc.get("pid", "?")
    if not want_ws:
        raise TakeoverError(
            f"ggd is already running for this GG_HOME (pid {pid}); see `gg daemon status`"
        )
    url = ui_url(disc)
    if url is not None:
        raise AlreadyServing(
            f"gg web UI: {url}\n(ggd pid {pid} is already running with the web UI; "
            "`gg daemon stop` stops it)"
        )
    if not disc.get("idleExit") or not isinstance(pid, int):
        raise TakeoverError(
            f"ggd (pid {pid}) is already running without the web UI; stop it with "
            "`gg daemon stop`, then rerun"
        )
    # Stopping the background daemon for a port we then cannot bind would leave nothing running.
    problem = _port_problem(ws_addr) if ws_addr is not None and ws_addr[1] else None
    if problem is not None:
        raise TakeoverError(f"{problem}\n(the background ggd, pid {pid}, keeps running)")
    print(
        f"gg: restarting the background ggd (pid {pid}) that gg started, now with the web UI",
        file=sys.stderr,
        flush=True,
    )
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    if not await _acquire_within(lock, STOP_WAIT):
        raise TakeoverError(f"the background ggd (pid {pid}) did not stop; run `gg daemon stop`")
