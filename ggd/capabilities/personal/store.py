"""The memory store under GG_HOME/memory/: curated MEMORY.md, daily logs, people and groups.

Only ggd writes here. Every write replaces the whole file atomically (owner-only, fsynced) while
holding a cross-process lock, so two daemons (a sidecar and the user's) never lose an entry.
Reads take no lock: a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ggd.app import write_private
from ggd.app.files import owner_lock

from .scope import (
    CURATED_FILE,
    GROUPS_DIR,
    PEOPLE_DIR,
    MemoryInputError,
    Scope,
    daily_name,
)

MEMORY_DIR = "memory"
LEGACY_FILE = "memory.md"
LOCK_FILE = ".lock"
LOCK_TIMEOUT_SECONDS = 5.0
MAX_ENTRY_CHARS = 4000
DIR_MODE = 0o700
_DAILY = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")

Clock = Callable[[], _dt.datetime]


def local_now() -> _dt.datetime:
    """The daemon's local wall-clock time (daily logs follow the machine's day)."""
    return _dt.datetime.now().astimezone()


class MemoryBusyError(Exception):
    """Another process held the memory lock for too long."""


@dataclass(frozen=True)
class Added:
    """Where one memory_add went."""

    path: str  # relative to the memory root, POSIX style
    scope: Scope


class MemoryStore:
    """GG_HOME/memory/ and the legacy GG_HOME/memory.md it replaces."""

    def __init__(self, home: Path, retention_days: int = 90, clock: Clock = local_now) -> None:
        self.home = home
        self.root = home / MEMORY_DIR
        self.retention_days = retention_days
        self.clock = clock

    # -- layout -------------------------------------------------------------------------------

    def today(self) -> _dt.date:
        """The current day of the daily log."""
        return self.clock().date()

    def ensure(self) -> None:
        """Create the folders owner-only (and tighten them if someone loosened them)."""
        for folder in (self.root, self.root / PEOPLE_DIR, self.root / GROUPS_DIR):
            folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
            if folder.stat().st_mode & 0o777 != DIR_MODE:
                os.chmod(folder, DIR_MODE)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's cross-process write lock."""
        self.ensure()
        with owner_lock(
            self.root / LOCK_FILE,
            timeout=LOCK_TIMEOUT_SECONDS,
            check_interval=0.01,
            busy=lambda: MemoryBusyError("the memory store is busy; try again in a moment"),
        ):
            yield

    # -- start-up chores ----------------------------------------------------------------------

    def prepare(self) -> list[str]:
        """At daemon start: create folders, migrate the legacy file, prune old daily logs."""
        self.ensure()
        notes = []
        migrated = self.migrate_legacy()
        if migrated:
            notes.append(migrated)
        removed = self.prune()
        if removed:
            notes.append(
                f"pruned {len(removed)} daily log(s) older than {self.retention_days} days"
            )
        return notes

    def migrate_legacy(self) -> str | None:
        """Move GG_HOME/memory.md into MEMORY.md once (appended, never overwriting), keep a .bak."""
        legacy = self.home / LEGACY_FILE
        if not legacy.is_file():
            return None
        with self.locked():
            text = legacy.read_text(encoding="utf-8", errors="replace").strip()
            curated = self.root / CURATED_FILE
            existing = _read(curated)
            # Already there (a crash between the write and the rename): do not append it twice.
            if text and text not in existing:
                if existing.strip():
                    merged = f"{existing.rstrip()}\n\n## Migrated from memory.md\n\n{text}\n"
                else:
                    merged = text + "\n"
                write_private(curated, merged.encode("utf-8"))
            backup = _free_name(self.home / (LEGACY_FILE + ".bak"))
            os.rename(legacy, backup)
        return f"migrated {LEGACY_FILE} into {MEMORY_DIR}/{CURATED_FILE} (kept {backup.name})"

    def prune(self) -> list[str]:
        """Delete daily logs older than the retention; returns the names removed."""
        cutoff = self.today() - _dt.timedelta(days=self.retention_days)
        removed = []
        for name in self._daily_names():
            day = _dt.date.fromisoformat(name[:10])
            if day < cutoff:
                with contextlib.suppress(FileNotFoundError):
                    (self.root / name).unlink()
                removed.append(name)
        return removed

    # -- writing ------------------------------------------------------------------------------

    def add(self, content: str, scope: Scope) -> Added:
        """Append one entry to the scope's file (created with a heading); prunes on daily adds."""
        entry = _entry(content)
        now = self.clock()
        rel = scope.relpath(now.date())
        if scope.kind == "daily":
            entry = f"{now.strftime('%H:%M')} {entry}"
        lines = entry.splitlines()
        block = "- " + "\n  ".join(lines) + "\n"
        path = self.root / Path(*rel.parts)
        with self.locked():
            existing = _read(path) or f"# {scope.title(now.date())}\n\n"
            if not existing.endswith("\n"):
                existing += "\n"
            write_private(path, (existing + block).encode("utf-8"))
            if scope.kind == "daily":
                self.prune()
        return Added(rel.as_posix(), scope)

    # -- reading ------------------------------------------------------------------------------

    def curated(self) -> str:
        """MEMORY.md ('' when absent)."""
        return _read(self.root / CURATED_FILE)

    def today_log(self) -> str:
        """Today's daily log ('' when there is none yet)."""
        return _read(self.root / daily_name(self.today()))

    def files(self) -> list[PurePosixPath]:
        """Every memory file, in search order: MEMORY.md, people, groups, daily logs newest first."""
        out: list[PurePosixPath] = []
        if (self.root / CURATED_FILE).is_file():
            out.append(PurePosixPath(CURATED_FILE))
        for folder in (PEOPLE_DIR, GROUPS_DIR):
            with contextlib.suppress(OSError):
                names = sorted(p.name for p in (self.root / folder).glob("*.md") if p.is_file())
                out += [PurePosixPath(folder, n) for n in names]
        out += [PurePosixPath(n) for n in sorted(self._daily_names(), reverse=True)]
        return out

    def read(self, rel: PurePosixPath) -> str:
        """One memory file by its relative path ('' when unreadable)."""
        return _read(self.root / Path(*rel.parts))

    def _daily_names(self) -> list[str]:
        try:
            names = os.listdir(self.root)
        except OSError:
            return []
        out = []
        for name in names:
            m = _DAILY.match(name)
            if m is None:
                continue
            try:
                _dt.date.fromisoformat(m.group(1))
            except ValueError:
                continue  # 2026-13-45.md is somebody's file, not a daily log
            out.append(name)
        return out


def _entry(content: str) -> str:
    text = "\n".join(line.rstrip() for line in content.strip().splitlines()).strip()
    if not text:
        raise MemoryInputError("content is empty; say what to remember")
    if len(text) > MAX_ENTRY_CHARS:
        raise MemoryInputError(
            f"content is {len(text)} characters; keep one memory under {MAX_ENTRY_CHARS}"
        )
    return text


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return ""


def _free_name(path: Path) -> Path:
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.{n}")
    return candidate


__all__ = ["LEGACY_FILE", "MEMORY_DIR", "Added", "MemoryBusyError", "MemoryStore", "local_now"]
