"""The WebSocket bearer token: stable per GG_HOME, so an open web UI tab survives a restart."""

from __future__ import annotations

import secrets
from pathlib import Path

from ggd.app.files import write_private

__all__ = ["TOKEN_FILE", "ws_token"]

TOKEN_FILE = "ws-token"


def ws_token(home: Path, given: str | None, *, rotate: bool = False) -> str:
    """The token a --ws daemon requires: the one given, else GG_HOME's (made on first use).

    `rotate` replaces the stored token, so links and tabs opened with the old one stop working.
    A token file that is unreadable, empty or too short is replaced, never trusted.
    """
    if given:
        return given
    path = home / TOKEN_FILE
    if not rotate:
        try:
            stored = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            stored = ""
        if len(stored) >= 32 and stored.isascii() and stored.isprintable() and " " not in stored:
            return stored
    token = secrets.token_urlsafe(32)
    write_private(path, token.encode("ascii") + b"\n")
    return token
