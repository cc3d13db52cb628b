"""Where the knowledge bases live and which exist: no SQLite, so a session's start can ask cheaply.

The kb provider asks `list_names` at every session's start (the tool is absent until a base is
indexed); importing the store for that would load sqlite3 on every first request.
"""

from __future__ import annotations

import re
from pathlib import Path

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def kb_root(home: Path) -> Path:
    """GG_HOME/kb."""
    return home / "kb"


def list_names(home: Path) -> list[str]:
    """Names of the bases that have an index."""
    root = kb_root(home)
    if not root.is_dir():
        return []
    return sorted(
        p.name for p in root.iterdir() if NAME_RE.match(p.name) and (p / "index.sqlite").is_file()
    )
