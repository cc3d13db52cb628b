"""`gg daemon start|stop|status|logs`: managing the user's ggd."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

from ggcli.discovery import (
    DaemonError,
    Discovery,
    gg_home,
    live_daemon,
    log_path,
    pid_alive,
    read_discovery,
    start_daemon,
)

__all__ = ["daemon_logs", "daemon_start", "daemon_status", "daemon_stop"]

STOP_TIMEOUT = 15.0


def _describe(disc: Discovery) -> str:
    lines = [f"ggd {disc.version or '?'} running (pid {disc.pid})", f"  socket: {disc.socket}"]
    if disc.ws:
        lines.append(f"  websocket: {disc.ws}")
    if disc.http:
        lines.append(f"  web UI: {disc.http}" + (f"#token={disc.token}" if disc.token else ""))
    if disc.started_at:
        up = max(0, int(time.time() - disc.started_at / 1000))
        lines.append(f"  up: {up // 3600}h{up // 60 % 60:02d}m{up % 60:02d}s")
    return "\n".join(lines)


def daemon_start(ws: str | None = None, idle_exit: int | None = None) -> int:
    """Start the daemon unless one runs; print where it listens."""
    home = gg_home()
    disc = live_daemon(home)
    if disc is not None:
        print(_describe(disc))
        return 0
    extra = ["--ws", ws] if ws else []
    disc = start_daemon(home, extra, idle_exit=idle_exit)
    print(_describe(disc))
    return 0


def daemon_stop() -> int:
    """SIGTERM the running daemon and wait until it is gone."""
    home = gg_home()
    disc = read_discovery(home)
    if disc is None or not pid_alive(disc.pid):
        print("ggd is not running")
        return 0
    try:
        os.kill(disc.pid, signal.SIGTERM)
    except ProcessLookupError:
        print("ggd is not running")
        return 0
    deadline = time.monotonic() + STOP_TIMEOUT
    while time.monotonic() < deadline:
        if not pid_alive(disc.pid) or _reaped_or_zombie(disc.pid):
            print(f"ggd stopped (pid {disc.pid})")
            return 0
        time.sleep(0.02)
    raise DaemonError(f"ggd (pid {disc.pid}) did not stop within {STOP_TIMEOUT:.0f} s")


def _reaped_or_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] == "Z"


def daemon_url() -> int:
    """Print the running daemon's web UI link; exit 1 (saying how to get one) when there is none."""
    disc = live_daemon(gg_home())
    if disc is not None and disc.http and disc.token:
        print(f"{disc.http}#token={disc.token}")
        return 0
    why = "ggd is not running" if disc is None else "the running ggd serves no web UI"
    sys.stderr.write(
        f"gg: {why}; start it with the web UI: make run, or gg daemon start --ws 127.0.0.1:8765\n"
    )
    return 1


def daemon_status(as_json: bool = False) -> int:
    """Print whether a daemon runs; exit 0 when it does, 1 when not."""
    disc = live_daemon(gg_home())
    if as_json:
        print(json.dumps(_as_dict(disc)))
    elif disc is None:
        print("ggd is not running")
    else:
        print(_describe(disc))
    return 0 if disc is not None else 1


def _as_dict(disc: Discovery | None) -> dict[str, object]:
    if disc is None:
        return {"running": False}
    return {
        "running": True,
        "pid": disc.pid,
        "socket": disc.socket,
        "ws": disc.ws,
        "http": disc.http,
        "version": disc.version,
        "protocolVersion": disc.protocol_version,
        "startedAt": disc.started_at,
    }


_LOG_FIELDS = ("ts", "level", "logger", "msg", "exc")


def format_log_line(raw: str) -> str:
    """One JSON log line for a person: `09:12:03 info  ggd.app  run started  run=r_1 ...`."""
    try:
        rec = json.loads(raw)
    except ValueError:
        return raw
    if not isinstance(rec, dict) or "msg" not in rec:
        return raw
    ts = str(rec.get("ts", ""))
    when = ts[11:19] if len(ts) >= 19 else ts
    level = str(rec.get("level", ""))
    extra = " ".join(f"{k}={v}" for k, v in rec.items() if k not in _LOG_FIELDS)
    line = f"{when} {level:<7} {rec.get('logger', '')}: {rec['msg']}" + (
        f"  {extra}" if extra else ""
    )
    exc = rec.get("exc")
    if exc:
        line += "\n" + "\n".join("    " + ln for ln in str(exc).splitlines())
    return line


def daemon_logs(lines: int = 50, follow: bool = False, raw: bool = False) -> int:
    """Print the end of the daemon's log (readable, or raw JSON lines), optionally following it."""
    path = log_path(gg_home())

    def emit(data: bytes) -> None:
        if raw:
            sys.stdout.buffer.write(data)
        else:
            text = data.decode("utf-8", "replace")
            sys.stdout.write("".join(format_log_line(ln) + "\n" for ln in text.splitlines()))
        sys.stdout.flush()

    try:
        with open(path, "rb") as fh:
            data = fh.read()
            tail = b"\n".join(data.splitlines()[-lines:]) if lines > 0 else b""
            emit(tail + (b"\n" if tail else b""))
            pending = b""
            while follow:
                chunk = fh.read()
                if chunk:
                    pending += chunk
                    whole, _, pending = pending.rpartition(b"\n")
                    if whole:
                        emit(whole + b"\n")
                else:
                    time.sleep(0.2)
    except FileNotFoundError:
        print(f"no daemon log yet ({path})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0
