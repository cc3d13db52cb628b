"""The list cache: summaries keyed by file identity, rebuilt from the files when stale."""

from __future__ import annotations

import base64
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import journal
from .model import SessionSummary

__all__ = ["CACHE_NAME", "decode_cursor", "encode_cursor", "scan"]

log = logging.getLogger("ggd.session")

CACHE_NAME = "index.json"
_CACHE_VERSION = 2  # 2: summaries carry firstPrompt


def _load_cache(path: Path) -> dict[str, Any]:
    try:
        obj = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        log.warning("session list cache is unreadable; rebuilding it")
        return {}
    if not isinstance(obj, dict) or obj.get("version") != _CACHE_VERSION:
        return {}
    sessions = obj.get("sessions")
    return sessions if isinstance(sessions, dict) else {}


def scan(
    root: Path,
    is_session_file: Callable[[str], str | None],
    summarize_file: Callable[[Path], SessionSummary],
) -> list[SessionSummary]:
    """Summaries of every readable session under root; a bad file is logged and skipped.

    The cache (root/index.json) is only an accelerator: an entry is used when the file's
    size, mtime and inode still match, otherwise the file itself is read.
    """
    cache_path = root / CACHE_NAME
    cache = _load_cache(cache_path)
    fresh: dict[str, Any] = {}
    out: list[SessionSummary] = []
    dirty = False
    with os.scandir(root) as it:
        for de in it:
            sid = is_session_file(de.name)
            if sid is None:
                continue
            try:
                st = de.stat()
            except OSError:
                continue  # deleted while listing
            stamp = [st.st_size, st.st_mtime_ns, st.st_ino]
            cached = cache.get(sid)
            summary: SessionSummary | None = None
            if isinstance(cached, dict) and cached.get("stamp") == stamp:
                try:
                    summary = SessionSummary.from_json(cached["summary"])
                except (KeyError, TypeError, ValueError):
                    summary = None
            if summary is None:
                dirty = True
                try:
                    summary = summarize_file(Path(de.path))
                except Exception as exc:  # one bad file must never break the list
                    log.warning("session %s skipped in list: %s", sid, exc)
                    continue
            fresh[sid] = {"stamp": stamp, "summary": summary.to_json()}
            out.append(summary)
    if dirty or fresh.keys() != cache.keys():
        try:
            payload = json.dumps({"version": _CACHE_VERSION, "sessions": fresh}).encode()
            journal.write_atomic(cache_path, payload)
        except OSError as exc:
            log.warning("session list cache not written: %s", exc)
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
