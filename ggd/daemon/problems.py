"""Start-up problems as one or two lines that name the problem and the fix (never a traceback)."""

from __future__ import annotations

import errno
from pathlib import Path


def home_problem(home: Path, exc: OSError) -> str:
    """GG_HOME cannot be created or written."""
    why = exc.strerror or str(exc)
    where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(home) else ""
    if isinstance(exc, FileExistsError | NotADirectoryError) or exc.errno in (
        errno.EEXIST,
        errno.ENOTDIR,
    ):
        what = f"GG_HOME {home} is not a directory{where}"
    else:
        what = f"GG_HOME {home} is not writable: {why}{where}"
    return f"{what}\n  fix: point GG_HOME at a folder you own (default ~/.gg), e.g. GG_HOME=~/.gg"


def probe_writable(home: Path) -> None:
    """Raise OSError when GG_HOME's run folder does not take a file (read-only mount, no access)."""
    probe = home / "run" / ".write-probe"
    probe.write_bytes(b"")
    probe.unlink()


def bind_problem(host: str, port: int, exc: OSError) -> str:
    """The WebSocket listener could not bind."""
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is already in use (another ggd or another program)\n"
            f"  fix: stop it (`gg daemon status`), or choose another port: --ws {host}:{port + 1} "
            f"(make run PORT={port + 1})"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {host}:{port}: no such local address\n  fix: use --ws 127.0.0.1:{port}"
    if exc.errno == errno.EACCES:
        return f"cannot listen on {host}:{port}: permission denied\n  fix: use a port above 1023"
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}"


def socket_problem(path: Path, exc: OSError) -> str:
    """The Unix socket could not be created."""
    return (
        f"cannot create the daemon socket {path}: {exc.strerror or exc}\n"
        "  fix: check GG_HOME/run is a writable folder, or pass --socket PATH"
    )
