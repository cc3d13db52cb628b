"""One knowledge base on disk: GG_HOME/kb/<name>/index.sqlite (FTS5 + float32 vector BLOBs).

Tables: `meta` (root, embedding model and dimension, generation), `files` (path -> content hash),
`chunks` (text, heading path, line range, content hash), `chunks_fts` (FTS5, rowid = chunk id)
and `vectors` (chunk content hash -> float32 BLOB, so an unchanged chunk is never re-embedded).
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .names import NAME_RE, kb_root

SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY, hash TEXT NOT NULL, size INTEGER NOT NULL, chunks INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, ord INTEGER NOT NULL, heading TEXT NOT NULL,
  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, hash TEXT NOT NULL, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  text, heading, path, tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS vectors (hash TEXT PRIMARY KEY, vec BLOB NOT NULL);
"""


class KbError(Exception):
    """A knowledge-base mistake the user can fix (bad name, unknown base, model mismatch)."""


class KbNotFound(KbError):
    """No knowledge base of that name."""


class ModelMismatch(KbError):
    """The index was built with another embedding model or dimension."""


def check_name(name: str) -> str:
    """The name if it is a safe folder name, else KbError."""
    if not NAME_RE.match(name) or name == "models":
        raise KbError(
            "a knowledge base name is 1-64 letters, digits, '.', '_' or '-' "
            "(not starting with a dot, and not 'models')"
        )
    return name


def default_name(folder: Path) -> str:
    """A name from the folder's base name."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", folder.name).strip(".-_") or "kb"
    return base[:64]


def _private_dir(p: Path) -> None:
    p.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(p, 0o700)


@dataclass
class KbInfo:
    """What `gg/kb.list` shows of one base."""

    name: str
    root: str
    files: int
    chunks: int
    vectors: int
    model: str
    dim: int
    updated: str


class Store:
    """An open index.sqlite; one per thread (sqlite3 connections are not shared)."""

    def __init__(self, home: Path, name: str, create: bool = False) -> None:
        self.name = check_name(name)
        self.dir = kb_root(home) / name
        self.path = self.dir / "index.sqlite"
        if not self.path.is_file():
            if not create:
                raise KbNotFound(f"no knowledge base named '{name}' (see `gg kb list`)")
            _private_dir(kb_root(home))
            _private_dir(self.dir)
        self.db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        if create:
            # Only an indexer (under the base's lock) writes; searches open the file read-only
            # in effect and never take SQLite's write lock.
            os.chmod(self.path, 0o600)
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
            self.db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,)
            )
            self.db.commit()
            for side in ("-wal", "-shm"):
                p = self.path.with_name(self.path.name + side)
                if p.exists():
                    os.chmod(p, 0o600)
        elif self.meta("schema") != SCHEMA_VERSION:
            raise KbError(
                f"knowledge base '{name}' was written by another gg version; "
                f"remove and re-index it (gg kb remove {name})"
            )

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def meta(self, key: str, default: str = "") -> str:
        """One meta value."""
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return str(row[0]) if row else default

    def set_meta(self, **values: Any) -> None:
        """Set meta values (inside the caller's transaction)."""
        self.db.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            [(k, str(v)) for k, v in values.items()],
        )

    @property
    def model(self) -> str:
        """The embedding model the vectors were made with ('' for BM25 only)."""
        return self.meta("model")

    @property
    def dim(self) -> int:
        """The vectors' dimension (0 for BM25 only)."""
        return int(self.meta("dim", "0") or 0)

    @property
    def generation(self) -> int:
        """Bumped by every index run that changed something (invalidates vector caches)."""
        return int(self.meta("generation", "0") or 0)

    def info(self) -> KbInfo:
        """Counts and model for the listing."""

        def q(sql: str) -> int:
            return int(self.db.execute(sql).fetchone()[0])

        return KbInfo(
            name=self.name,
            root=self.meta("root"),
            files=q("SELECT count(*) FROM files"),
            chunks=q("SELECT count(*) FROM chunks"),
            vectors=q("SELECT count(*) FROM vectors"),
            model=self.model,
            dim=self.dim,
            updated=self.meta("updated"),
        )
