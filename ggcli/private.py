"""Spawning a private `ggd --stdio` child, importable before the rest of the CLI.

Kept to the standard library's cheapest modules so `gg --no-daemon` can start the child first
thing: ggd's own start-up (~0.4 s) then overlaps the CLI importing everything else.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import subprocess

__all__ = ["DaemonError", "find_ggd", "gg_home", "private_dir", "start_private"]


class DaemonError(Exception):
    """ggd could not be found, started or reached; the message says what to do."""


def gg_home() -> Path:
    """GG_HOME, else ~/.gg."""
    env = os.environ.get("GG_HOME")
    return Path(env).expanduser() if env else Path.home() / ".gg"


def find_ggd() -> str:
    """The ggd executable: GG_GGD, then next to this Python, then PATH."""
    override = os.environ.get("GG_GGD")
    if override:
        return override
    beside = Path(sys.executable).parent / "ggd"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    import shutil

    found = shutil.which("ggd")
    if found:
        return found
    raise DaemonError("ggd was not found next to this Python or on PATH; install gg-agent")


def private_dir(path: Path) -> Path:
    """Create an owner-only folder (and its parents) if needed."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def start_private(workspace: Path) -> subprocess.Popen[bytes]:
    """Spawn a private `ggd --stdio` child that exits when this gg goes away."""
    import subprocess

    home = gg_home()
    logs = private_dir(private_dir(home) / "logs")
    cmd = [find_ggd(), "--stdio", "--exit-on-stdin-eof", "--workspace", str(workspace)]
    cmd += ["--log-file", str(logs / "ggd-stdio.log")]
    err_path = logs / "ggd-stdio.err"
    with open(err_path, "ab") as err:
        # Where this child's stderr starts: a start-up failure is shown from there (PipeChannel).
        err_from = err.tell()
        # Own process group: Ctrl+C in the terminal is gg's to handle (it cancels the run),
        # it must not kill the private daemon directly.
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            bufsize=0,
            start_new_session=True,
        )
    proc.gg_err = (err_path, err_from)  # type: ignore[attr-defined]
    return proc
