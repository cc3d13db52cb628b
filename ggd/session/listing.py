"""The list cache: summaries keyed by file identity, rebuilt from the files when stale."""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from . import journal
from .model import SessionSummary

__all__ = ["CACHE_NAME", "ListCache", "decode_cursor", "encode_cursor", "scan"]

log = logging.getLogger("ggd.session")

CACHE_NAME = "index.json"
_CACHE_VERSION = 4  # 2: summaries carry firstPrompt; 3: stamps carry the device; 4: usage


_Stamp = tuple[int, int, int, int]  # (size, mtime_ns, inode, device) of a session file
_Rows = dict[str, tuple[_Stamp, SessionSummary]]


def _stamp(st: os.stat_result) -> _Stamp:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


class _WireSummary(msgspec.Struct, rename="camel"):
    id: str
    workspace_id: str
    name: str | None
    model: str | None
    created_at: int
    updated_at: int
    message_count: int
    preview: str
    parent: dict[str, Any] | None = None
    first_prompt: str = ""
    damaged: bool = False
    usage: dict[str, Any] | None = None


class _WireRow(msgspec.Struct):
    stamp: tuple[int, int, int, int]
    summary: _WireSummary


class _WireIndex(msgspec.Struct):
    version: int
    sessions: dict[str, _WireRow]


# A well-formed index.json decodes in one typed C pass; anything else (a malformed row, an
# older version) takes the tolerant path below, which keeps the good rows.
_INDEX = msgspec.json.Decoder(_WireIndex)


def _load_typed(data: bytes) -> _Rows | None:
    try:
        index = _INDEX.decode(data)
    except msgspec.MsgspecError:
        return None
    if index.version != _CACHE_VERSION:
        return {}
    return {
        sid: (
            row.stamp,
            SessionSummary(
                (w := row.summary).id,
                w.workspace_id,
                w.name,
                w.model,
                w.created_at,
                w.updated_at,
                w.message_count,
                w.preview,
                w.parent,
                w.first_prompt,
                w.damaged,
                w.usage,
            ),
        )
        for sid, row in index.sessions.items()
    }


def _load_cache(path: Path) -> _Rows:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError:
        log.warning("session list cache is unreadable; rebuilding it")
        return {}
    typed = _load_typed(data)
    if typed is not None:
        return typed
    try:
        obj = json.loads(data)
    except ValueError:
        log.warning("session list cache is unreadable; rebuilding it")
        return {}
    if not isinstance(obj, dict) or obj.get("version") != _CACHE_VERSION:
        return {}
    sessions = obj.get("sessions")
    rows: _Rows = {}
    if not isinstance(sessions, dict):
        return rows
    for sid, row in sessions.items():
        try:
            stamp = row["stamp"]
            if not (isinstance(stamp, list) and len(stamp) == 4):
                continue
            rows[sid] = (
                (int(stamp[0]), int(stamp[1]), int(stamp[2]), int(stamp[3])),
                SessionSummary.from_json(row["summary"]),
            )
        except (KeyError, TypeError, ValueError):
            continue  # a malformed row is simply re-read from its file
    return rows


def _file_stamp(path: Path) -> _Stamp | None:
    try:
        return _stamp(os.stat(path))
    except OSError:
        return None


class ListCache:
    """The rows of root/index.json, kept in memory while index.json is what we last saw.

    Only an accelerator, like the file: every row is still checked against its session
    file's stamp on every list. Reloaded when index.json changes under us (another daemon
    sharing GG_HOME, or a hand edit), so the file and the memory never disagree for long.
    """

    def __init__(self, root: Path) -> None:
        self.path = root / CACHE_NAME
        # (index.json stamp when read or written, rows): swapped whole, so a list running in
        # another worker thread sees one consistent state.
        self._state: tuple[_Stamp | None, _Rows] | None = None
        # File name -> session id (None: not a session file), so each name is checked once.
        self.names: dict[str, str | None] = {}

    def rows(self) -> _Rows:
        """The cached rows (read from index.json when it changed since we last saw it)."""
        state = self._state
        stamp = _file_stamp(self.path)
        if state is not None and state[0] == stamp:
            return state[1]
        rows = _load_cache(self.path)
        self._state = (stamp, rows)
        return rows

    def store(self, rows: _Rows) -> None:
        """Remember rows and rewrite index.json atomically (a failed write is only logged)."""
        sessions = {
            sid: {"stamp": list(st), "summary": s.to_json()} for sid, (st, s) in rows.items()
        }
        try:
            payload = json.dumps({"version": _CACHE_VERSION, "sessions": sessions}).encode()
            journal.write_atomic(self.path, payload)
        except OSError as exc:
            log.warning("session list cache not written: %s", exc)
        self._state = (_file_stamp(self.path), rows)


def scan(
    root: Path,
    is_session_file: Callable[[str], str | None],
    summarize_file: Callable[[Path], SessionSummary],
    cache: ListCache | None = None,
) -> list[SessionSummary]:
    """Summaries of every readable session under root; a bad file is logged and skipped.

    The cache (root/index.json, also held in memory) is only an accelerator: a row is used
    when the file's size, mtime, inode and device still match, otherwise the file is read.
    """
    cache = cache or ListCache(root)
    cached = cache.rows()
    names = cache.names
    fresh: _Rows = {}
    out: list[SessionSummary] = []
    dirty = False
    with os.scandir(root) as it:
        for de in it:
            name = de.name
            try:
                sid = names[name]
            except KeyError:
                sid = names[name] = is_session_file(name)
            if sid is None:
                continue
            try:
                stamp = _stamp(de.stat())
            except OSError:
                continue  # deleted while listing
            row = cached.get(sid)
            if row is not None and row[0] == stamp:
                summary = row[1]
            else:
                dirty = True
                try:
                    summary = summarize_file(Path(de.path))
                except Exception as exc:  # one bad file must never break the list
                    log.warning("session %s skipped in list: %s", sid, exc)
                    continue
            fresh[sid] = (stamp, summary)
            out.append(summary)
    if dirty or fresh.keys() != cached.keys():
        cache.store(fresh)
    return out


def encode_cursor(summary: SessionSummary) -> str:
    """Opaque cursor pointing just after summary in newest-first order."""
    raw = json.dumps([summary.updated_at, summary.id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[int, str]:
    """Inverse of encode_cursor; ValueError for anything else."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        updated_at, sid = json.loads(raw)
    except (ValueError, TypeError) as exc:
        raise ValueError("invalid cursor") from exc
    if type(updated_at) is not int or not isinstance(sid, str):
        raise ValueError("invalid cursor")
    return updated_at, sid
