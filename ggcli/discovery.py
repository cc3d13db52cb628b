"""Finding, starting and connecting to ggd: the discovery file, auto-start and private children."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ggcli.private import DaemonError, find_ggd, gg_home, start_private
from ggcli.private import private_dir as _private_dir
from ggcli.rpc import Client, PipeChannel, SocketChannel

if TYPE_CHECKING:  # imported where a process is started: not on the connect-only fast path
    import subprocess

__all__ = [
    "DaemonError",
    "Discovery",
    "connect",
    "find_ggd",
    "gg_home",
    "live_daemon",
    "open_client",
    "pid_alive",
    "read_discovery",
    "start_daemon",
    "start_private",
]

START_TIMEOUT = 20.0
IDLE_EXIT_MINUTES = 30


class Discovery(NamedTuple):
    """The contents of GG_HOME/run/ggd.json, written by a running daemon."""

    pid: int
    socket: str
    ws: str | None = None
    http: str | None = None
    token: str | None = None
    version: str | None = None
    protocol_version: str | None = None
    started_at: int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Discovery:
        """Build from the file's camelCase JSON; raises KeyError/ValueError when malformed."""
        return cls(
            pid=int(data["pid"]),
            socket=str(data["socket"]),
            ws=data.get("ws"),
            http=data.get("http"),
            token=data.get("token"),
            version=data.get("version"),
            protocol_version=data.get("protocolVersion"),
            started_at=data.get("startedAt"),
        )


def discovery_path(home: Path) -> Path:
    """Where a running daemon writes its discovery file."""
    return home / "run" / "ggd.json"


def log_path(home: Path) -> Path:
    """The auto-started daemon's log file."""
    return home / "logs" / "ggd.log"


def read_discovery(home: Path) -> Discovery | None:
    """The discovery file's contents, or None when absent or unreadable."""
    try:
        data = json.loads(discovery_path(home).read_text(encoding="utf-8"))
        return Discovery.from_json(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def live_daemon(home: Path) -> Discovery | None:
    """The running daemon's discovery, or None when the file is missing or stale."""
    disc = read_discovery(home)
    if disc is None or not pid_alive(disc.pid):
        return None
    try:
        SocketChannel.connect(disc.socket, timeout=1.0).close()
    except OSError:
        return None
    return disc


def start_daemon(
    home: Path, extra: list[str] | None = None, idle_exit: int | None = IDLE_EXIT_MINUTES
) -> Discovery:
    """Start the user's daemon in the background and wait until it accepts connections."""
    _private_dir(home)
    logs = _private_dir(home / "logs")
    cmd = [find_ggd(), "--log-file", str(log_path(home))]
    if idle_exit is not None:
        cmd += ["--idle-exit", str(idle_exit)]
    cmd += extra or []
    import subprocess

    # The daemon outlives this gg: its own session, no stdin, stderr kept only for start failures.
    err_path = logs / f"launch-{os.getpid()}.err"
    with open(err_path, "ab") as err:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
            close_fds=True,
        )
    try:
        return _wait_for_daemon(home, proc, err_path)
    finally:
        err_path.unlink(missing_ok=True)


def _wait_for_daemon(home: Path, proc: subprocess.Popen[bytes], err_path: Path) -> Discovery:
    deadline = time.monotonic() + START_TIMEOUT
    lost_race = False
    while time.monotonic() < deadline:
        disc = live_daemon(home)
        if disc is not None:
            return disc
        if not lost_race and proc.poll() is not None:
            tail = _tail(err_path)
            if "already running" not in tail:
                why = startup_message(tail)
                raise DaemonError(
                    f"ggd failed to start: {why}"
                    if why
                    else f"ggd failed to start (see {log_path(home)})"
                )
            # Another gg started the daemon at the same moment: wait for its discovery file.
            lost_race = True
        time.sleep(0.01)
    raise DaemonError(f"ggd did not come up within {START_TIMEOUT:.0f} s (see {log_path(home)})")


def startup_message(stderr: str) -> str:
    """ggd's own start-up message (`ggd: problem` and its `fix:` lines), else its last line."""
    lines = [ln for ln in stderr.splitlines() if ln.strip() and not ln.startswith("{")]
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("ggd: "):
            return "\n".join([lines[i].removeprefix("ggd: "), *lines[i + 1 :]])
    return lines[-1] if lines else ""


def _tail(path: Path, limit: int = 4000) -> str:
    try:
        data = path.read_bytes()[-limit:]
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


def open_client(
    workspace: Path,
    no_daemon: bool = False,
    autostart: bool = True,
    child: subprocess.Popen[bytes] | None = None,
) -> Client:
    """A connected, not yet initialized client: the user's daemon or a private child.

    `child` is a private ggd the caller already started (`gg --no-daemon` starts it first).
    """
    if no_daemon:
        return Client(PipeChannel(child or start_private(workspace)))
    home = gg_home()
    disc = read_discovery(home)
    if disc is not None and pid_alive(disc.pid):
        # The connection itself is the liveness probe: no extra connect on the fast path.
        try:
            return Client(SocketChannel.connect(disc.socket))
        except OSError:
            pass  # stale: the daemon is gone or not listening any more
    if not autostart:
        raise DaemonError("no ggd is running (start one with `gg daemon start`)")
    disc = start_daemon(home)
    try:
        return Client(SocketChannel.connect(disc.socket))
    except OSError as exc:
        raise DaemonError(f"cannot connect to ggd: {exc.strerror or exc}") from exc


def connect(
    workspace: Path,
    no_daemon: bool = False,
    autostart: bool = True,
    child: subprocess.Popen[bytes] | None = None,
) -> Client:
    """An initialized client for this workspace."""
    client = open_client(workspace, no_daemon, autostart, child)
    try:
        client.initialize(workspace)
    except BaseException:
        client.channel.close()
        raise
    return client
