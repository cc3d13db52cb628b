"""argparse value types shared by every `gg` command (stdlib only)."""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path

__all__ = ["close_command", "workspace_dir"]


def workspace_dir(text: str) -> Path:
    """A --workspace value: an existing folder, or a usage error that names it (exit 2).

    A shared daemon serves many workspaces; a mistyped folder must never fall back to another
    one, where a run would read (and with --yolo write) the wrong project.
    """
    path = Path(text).expanduser()
    if not path.exists():
        raise argparse.ArgumentTypeError(f"no such folder: {text}")
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"not a folder: {text}")
    return path.resolve()


def close_command(word: str, commands: set[str]) -> str | None:
    """The command a mistyped first word most likely meant (None when none is close)."""
    if word in commands or len(word) < 2 or not word.isascii() or not word.isalpha():
        return None
    found = difflib.get_close_matches(word.lower(), sorted(commands), n=1, cutoff=0.8)
    return found[0] if found else None
