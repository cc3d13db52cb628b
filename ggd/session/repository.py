"""SessionRepository: create, open and list session files under one root directory."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import codec, journal, listing, projection
from .derived import DerivedKind
from .errors import SessionFormatError, SessionNotFoundError
from .file import SessionFile
from .model import Entry, SessionHeader, SessionSummary

__all__ = ["SessionRepository", "is_child"]

# Accept any url-safe id (forward compatible); we mint "s_" + 16 hex.
_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
_SUFFIX = ".jsonl"
_LOCK_SUFFIX = ".lock"


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def is_child(parent: dict[str, Any] | None) -> bool:
    """Whether a header's parent link makes the session a subagent's child session."""
    return parent is not None and parent.get("kind") == "child"


def _session_id_of(filename: str) -> str | None:
    if not filename.endswith(_SUFFIX):
        return None
    sid = filename[: -len(_SUFFIX)]
    return sid if _ID_RE.fullmatch(sid) else None


class SessionRepository:
    """All sessions under root, one file each: ``root/<sessionId>.jsonl`` (flat, O(1) by id).

    Example:
        repo = SessionRepository(gg_home / "sessions")
        sf = repo.create("ws1", name="demo")
        sf.append("message", {"role": "user", "content": "hi", "timestamp": 0})
    """

    def __init__(
        self,
        root: Path,
        *,
        clock: Callable[[], int] = _now_ms,
        lease_timeout: float = 5.0,
    ) -> None:
        self.root = Path(root)
        self._clock = clock
        self._lease_timeout = lease_timeout
        journal.ensure_private_dir(self.root)
        self._list_cache = listing.ListCache(self.root)

    def _path(self, session_id: str) -> Path:
        return self.root / f"{session_id}{_SUFFIX}"

    def _file(self, session_id: str, defer: DerivedKind | None = None) -> SessionFile:
        path = self._path(session_id)
        return SessionFile(
            path,
            lock_path=path.with_name(path.name + _LOCK_SUFFIX),
            clock=self._clock,
            lease_timeout=self._lease_timeout,
            creator=self._create_from,
            defer=defer,
        )

    def create(
        self,
        workspace_id: str,
        name: str | None = None,
        model: str | None = None,
        parent: dict[str, Any] | None = None,
    ) -> SessionFile:
        """A new, empty session in workspace_id; `parent` links a child session to its origin
        (`{kind: "child", sessionId, runId, toolCallId, agent}` for a subagent's session)."""
        return self._create_from(workspace_id, name, model, parent, ())

    def _create_from(
        self,
        workspace_id: str,
        name: str | None,
        model: str | None,
        parent: dict[str, Any] | None,
        entries: Sequence[Entry],
    ) -> SessionFile:
        journal.ensure_private_dir(self.root)
        while True:
            sid = "s_" + secrets.token_hex(8)
            header = SessionHeader(
                codec.FORMAT_VERSION, sid, workspace_id, self._clock(), name, model, parent
            )
            lines = [codec.encode_line(header.to_json())]
            lines.extend(codec.encode_line(e.to_json()) for e in entries)
            try:
                journal.write_new_file(self._path(sid), b"".join(lines))
            except FileExistsError:
                continue  # 64-bit id collision: astronomically rare, just draw again
            return self._file(sid)

    def exists(self, session_id: str) -> bool:
        """Whether a session with this id has a file."""
        return bool(_ID_RE.fullmatch(session_id)) and self._path(session_id).is_file()

    def open(self, session_id: str, defer: DerivedKind | None = None) -> SessionFile:
        """Open a session by id.

        With `defer`, a session that has a current derived file of that kind opens without
        decoding its entries (they load on first use, see SessionFile.release()).

        Raises:
            SessionNotFoundError: no such session.
            SessionFormatError: the file is corrupt or of an unsupported version.
        """
        if not isinstance(session_id, str) or not _ID_RE.fullmatch(session_id):
            raise SessionNotFoundError(f"session {session_id!r} not found")
        try:
            return self._file(session_id, defer)
        except (FileNotFoundError, SessionNotFoundError):
            raise SessionNotFoundError(f"session {session_id!r} not found") from None

    def summary(self, session_id: str) -> SessionSummary:
        """The list row of one session, read from its file (no lease, no repair)."""
        return self._summarize(self._path(session_id))

    @staticmethod
    def _summarize(path: Path) -> SessionSummary:
        data, _, _ = journal.read_file(path)
        parsed = codec.parse(data)
        if parsed.header.id != path.stem:
            raise SessionFormatError("session header names another session id")
        active = parsed.chain.path(parsed.entries, len(parsed.entries) - 1)
        return projection.summarize(parsed.header, parsed.entries, active, bool(parsed.damaged))

    def list(
        self,
        workspace_id: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
        *,
        children: bool = True,
        parent_session: str | None = None,
    ) -> tuple[list[SessionSummary], str | None]:
        """One page of sessions, newest first, and the cursor of the next page (or None).

        `children=False` leaves out child sessions (header parent of kind "child");
        `parent_session` keeps only the child sessions of that session.

        Raises:
            ValueError: limit < 1 or a cursor this repository did not make.
        """
        if limit < 1:
            raise ValueError("limit must be at least 1")
        rows = listing.scan(self.root, _session_id_of, self._summarize, self._list_cache)
        if workspace_id is not None:
            rows = [r for r in rows if r.workspace_id == workspace_id]
        if parent_session is not None:
            rows = [
                r
                for r in rows
                if is_child(r.parent) and (r.parent or {}).get("sessionId") == parent_session
            ]
        elif not children:
            rows = [r for r in rows if not is_child(r.parent)]
        rows.sort(key=lambda r: (r.updated_at, r.id), reverse=True)
        if cursor is not None:
            after = listing.decode_cursor(cursor)
            rows = [r for r in rows if (r.updated_at, r.id) < after]
        page = rows[:limit]
        next_cursor = listing.encode_cursor(page[-1]) if len(rows) > limit else None
        return page, next_cursor
