"""Typed errors of the session store; messages are safe to show clients (no paths)."""

from __future__ import annotations

__all__ = ["SessionConflictError", "SessionError", "SessionFormatError", "SessionNotFoundError"]


class SessionError(Exception):
    """Base class of every session store error."""


class SessionNotFoundError(SessionError):
    """No session has the requested id."""


class SessionConflictError(SessionError):
    """The file changed since this object last read or wrote it; reload() and retry."""


class SessionFormatError(SessionError):
    """The session file is corrupt or written by an unsupported version."""
