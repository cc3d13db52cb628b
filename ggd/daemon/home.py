"""GG_HOME: owner-only state folder, enforced on paths that already exist."""

from __future__ import annotations

import os
import stat
from pathlib import Path

SUBDIRS = ("sessions", "run", "logs", "logs/tools")


def resolve_home(env: dict[str, str] | None = None) -> Path:
    """GG_HOME from the environment, else ~/.gg."""
    env = dict(os.environ) if env is None else env
    raw = env.get("GG_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".gg"


def prepare_home(home: Path) -> Path:
    """Create GG_HOME and its folders 0700; tighten existing folders and top-level files."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    _tighten(home, 0o700)
    for sub in SUBDIRS:
        p = home / sub
        p.mkdir(parents=True, exist_ok=True, mode=0o700)
        _tighten(p, 0o700)
    for child in home.iterdir():
        if child.is_file() and not child.is_symlink():
            _tighten(child, 0o600)
    return home


def _tighten(path: Path, mode: int) -> None:
    st = path.stat()
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(path, mode)
