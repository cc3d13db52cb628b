"""`ggd install-service` / `uninstall-service`: a systemd user unit so ggd (and its scheduled
jobs) runs after login without a terminal. Refuses clearly where systemd is absent."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from .home import resolve_home

UNIT_NAME = "ggd.service"
COMMANDS = ("install-service", "uninstall-service")


class ServiceError(Exception):
    """The service cannot be installed or removed here; the message says why and what to do."""


def unit_path() -> Path:
    """~/.config/systemd/user/ggd.service (XDG_CONFIG_HOME respected)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user" / UNIT_NAME


def _quote(arg: str) -> str:
    """One ExecStart word, quoted the way systemd reads it."""
    if arg and not any(c in arg for c in " \t\"\\'$%;"):
        return arg
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("$", "$$").replace("%", "%%")
    return f'"{escaped}"'


def ggd_command() -> list[str]:
    """How the unit starts this ggd: the script beside this Python, else `python -m ggd.daemon`."""
    beside = Path(sys.executable).parent / "ggd"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    return [sys.executable, "-m", "ggd.daemon"]


def render_unit(home: Path, ws: str | None) -> str:
    """The unit file's text."""
    cmd = [*ggd_command(), "--log-file", str(home / "logs" / "ggd.log")]
    if ws:
        cmd += ["--ws", ws]
    return "\n".join(
        [
            "# Written by `ggd install-service`; remove with `ggd uninstall-service`.",
            "[Unit]",
            "Description=gg daemon (ggd): the gg agent and its scheduled jobs",
            "",
            "[Service]",
            "Type=simple",
            f"Environment={_quote('GG_HOME=' + str(home))}",
            f"ExecStart={' '.join(_quote(a) for a in cmd)}",
            "WorkingDirectory=%h",
            "Restart=on-failure",
            "RestartSec=5",
            # 1: another ggd already runs for this GG_HOME; 2: a start-up error (bad config).
            # Restarting cannot fix either; the journal says which.
            "RestartPreventExitStatus=1 2",
            "",
            "[Install]",
            "WantedBy=default.target",
            "",
        ]
    )


def _systemctl() -> str:
    found = shutil.which("systemctl")
    if found is None:
        raise ServiceError(
            "systemd is not available here (no systemctl on PATH), so there is no user service "
            "to install; start ggd from your login session instead (`gg daemon start`)"
        )
    return found


def _run(systemctl: str, *args: str) -> None:
    cmd = [systemctl, "--user", *args]
    print(f"running: systemctl --user {' '.join(args)}")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise ServiceError(
            f"`systemctl --user {' '.join(args)}` failed"
            + (f": {detail[-1]}" if detail else "")
            + " (is a systemd user session running? try `loginctl enable-linger` or run it by hand)"
        )


def install(ws: str | None, enable: bool) -> int:
    """Write the unit, reload systemd and enable + start it."""
    systemctl = _systemctl()
    home = resolve_home()
    path = unit_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    text = render_unit(home, ws)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}:")
    print(text.rstrip())
    _run(systemctl, "daemon-reload")
    if enable:
        _run(systemctl, "enable", "--now", UNIT_NAME)
        print("ggd now starts at login and restarts if it crashes (`systemctl --user status ggd`)")
        print("a ggd already running for this GG_HOME keeps the lock: stop it (`gg daemon stop`)")
    return 0


def uninstall() -> int:
    """Stop and disable the unit, remove it, reload systemd."""
    systemctl = _systemctl()
    path = unit_path()
    if not path.exists():
        print(f"no {UNIT_NAME} is installed ({path} does not exist)")
        return 0
    _run(systemctl, "disable", "--now", UNIT_NAME)
    path.unlink()
    print(f"removed {path}")
    _run(systemctl, "daemon-reload")
    return 0


def main(argv: list[str]) -> int:
    """`ggd install-service [--ws HOST:PORT] [--no-enable]` or `ggd uninstall-service`."""
    ap = argparse.ArgumentParser(prog=f"ggd {argv[0]}")
    if argv[0] == "install-service":
        ap.add_argument("--ws", metavar="HOST:PORT", help="also serve WebSocket + the web UI")
        ap.add_argument("--no-enable", action="store_true", help="only write the unit file")
    ns = ap.parse_args(argv[1:])
    try:
        if argv[0] == "install-service":
            return install(ns.ws, not ns.no_enable)
        return uninstall()
    except (ServiceError, OSError) as exc:
        print(f"ggd: {exc}", file=sys.stderr)
        return 1


__all__ = ["COMMANDS", "install", "main", "render_unit", "uninstall", "unit_path"]
