"""The library: the user's own files, flat under GG_HOME/library/, listed by index.json.

index.json (id, name, source, size, addedAt) is the source of truth and is rewritten atomically
under a flock on library.lock; a file on disk the index does not name is not in the library.
Adding streams the bytes into a temp file and stops at the limit (counted on what was copied,
never on a prior stat, so a growing file or a pipe cannot slip past it).

Committing hard-links the temp file to its final name, rewrites index.json, then deletes the
temp file. So a process killed mid-commit leaves a final file still linked to its `.add-*.part`:
recovery (under the lock, before a process's first write) deletes such a file when the index
does not list it, the part files, and index.json's own leftover temp files. A file nobody can
prove we left is never deleted.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO

from ggd.protocol import errors as E

from .files import FILE_MODE, locked, now_ms, private_dir, read_json, write_json

MAX_ADD_BYTES = 50 * 1024 * 1024
CHUNK = 1024 * 1024
MAX_NAME_CHARS = 200
# A temp file this old belongs to an add whose process died (an add writes it continuously).
STALE_PART_SECONDS = 3600
INDEX = "index.json"
LOCK = "library.lock"
_RESERVED = {INDEX, LOCK}
_ID = re.compile(r"^l_[0-9a-f]{12}$")
# Roots this process has already recovered (once, before its first write there).
_recovered: set[Path] = set()


class TooLargeError(E.InvalidParamsError):
    """The bytes to add passed the library's limit."""


@dataclass
class LibraryItem:
    """One index.json entry."""

    id: str
    name: str
    source: str
    size: int
    addedAt: int


def check_name(name: str) -> str:
    """A file name fit for the flat folder, or invalid params."""
    clean = name.strip()
    if (
        not clean
        or len(clean) > MAX_NAME_CHARS
        or "/" in clean
        or "\\" in clean
        or "\x00" in clean
        or clean in (".", "..")
        or clean.startswith(".")
        or clean.lower() in _RESERVED
    ):
        raise E.InvalidParamsError(
            "invalid params: name must be a plain file name (no path separators, not hidden, "
            f"not {INDEX!r}, at most {MAX_NAME_CHARS} characters)"
        )
    return clean


def _candidates(name: str) -> list[str]:
    stem, dot, ext = name.rpartition(".")
    if not stem:  # no extension, or a name like "README"
        stem, dot, ext = name, "", ""
    return [f"{stem} ({n}){dot}{ext}" for n in range(2, 10_000)]


class LibraryStore:
    """Synchronous file logic; callers run it off the event loop (asyncio.to_thread)."""

    def __init__(self, home: Path, limit: int = MAX_ADD_BYTES) -> None:
        self.root = home / "library"
        self.index_path = self.root / INDEX
        self.lock_path = self.root / LOCK
        self.limit = limit

    # -- reads ------------------------------------------------------------------------------

    def items(self) -> list[LibraryItem]:
        """Every item, in the order added."""
        try:
            raw = read_json(self.index_path)
        except FileNotFoundError:
            return []
        return [LibraryItem(**item) for item in raw.get("items", [])]

    def get(self, item_id: str) -> LibraryItem:
        """One item, or invalid params when unknown."""
        for item in self.items():
            if item.id == item_id:
                return item
        raise E.InvalidParamsError(
            f"invalid params: no library item {item_id!r}; see gg library list"
        )

    def path(self, item: LibraryItem) -> Path:
        """The item's file (for local clients and reading)."""
        return self.root / item.name

    # -- writes -----------------------------------------------------------------------------

    def add_stream(self, name: str, src: BinaryIO, source: str) -> LibraryItem:
        """Copy src in (at most the limit), then list it under a collision-safe name."""
        wanted = check_name(name)
        private_dir(self.root)
        self._sweep()
        tmp = self.root / f".add-{secrets.token_hex(8)}.part"
        try:
            size = self._copy(src, tmp)
            return self._commit(tmp, wanted, source, size)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    def add_bytes(self, name: str, data: bytes, source: str) -> LibraryItem:
        """Add bytes already in memory (an upload, a published artifact)."""
        import io

        return self.add_stream(name, io.BytesIO(data), source)

    def remove(self, item_id: str) -> LibraryItem:
        """Drop an item from the index, then delete its file."""
        with locked(self.lock_path, "library"):
            self._first_write()
            items = self.items()
            keep = [i for i in items if i.id != item_id]
            if len(keep) == len(items):
                raise E.InvalidParamsError(
                    f"invalid params: no library item {item_id!r}; see gg library list"
                )
            gone = next(i for i in items if i.id == item_id)
            self._write_index(keep)
            with contextlib.suppress(FileNotFoundError):
                self.path(gone).unlink()
        return gone

    def _sweep(self) -> None:
        """Delete temp files an add left when its process died (never listed, never reused)."""
        cutoff = time.time() - STALE_PART_SECONDS
        for part in self.root.glob(".add-*.part"):
            with contextlib.suppress(OSError):
                st = part.stat()
                # A part with a second link was being committed: recover() decides, locked.
                if st.st_mtime < cutoff and st.st_nlink == 1:
                    part.unlink()

    def _first_write(self) -> None:
        if self.root not in _recovered:
            self.recover()

    def recover(self) -> None:
        """Undo what a commit killed midway left (caller holds the lock, see the docstring)."""
        _recovered.add(self.root)
        if not self.root.is_dir():
            return
        listed = {i.name for i in self.items()}
        parts: dict[tuple[int, int], Path] = {}
        for entry in os.scandir(self.root):
            if not entry.is_file(follow_symlinks=False):
                continue
            st = entry.stat(follow_symlinks=False)
            if entry.name.startswith(f".{INDEX}."):  # write_private's temp: only lives locked
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
            elif entry.name.startswith(".add-") and st.st_nlink > 1:
                parts[(st.st_dev, st.st_ino)] = Path(entry.path)
        if not parts:
            return
        for entry in os.scandir(self.root):
            if entry.name.startswith(".") or entry.name in listed:
                continue
            if not entry.is_file(follow_symlinks=False):
                continue
            st = entry.stat(follow_symlinks=False)
            if (st.st_dev, st.st_ino) in parts:  # linked in, index never written: not added
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
        for part in parts.values():  # committed or undone above: the temp name goes either way
            with contextlib.suppress(FileNotFoundError):
                part.unlink()

    def _copy(self, src: BinaryIO, tmp: Path) -> int:
        # Never read more than limit + 1 bytes: one byte past the limit proves it is too large.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        total = 0
        try:
            while True:
                want = min(CHUNK, self.limit + 1 - total)
                chunk = src.read(want)
                if not chunk:
                    break
                if total + len(chunk) > self.limit:
                    raise TooLargeError(
                        f"invalid params: the file is larger than the library's limit of "
                        f"{self.limit // (1024 * 1024)} MiB; nothing was added"
                    )
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view) :]
                total += len(chunk)
            os.fsync(fd)
        finally:
            os.close(fd)
        return total

    def _commit(self, tmp: Path, wanted: str, source: str, size: int) -> LibraryItem:
        with locked(self.lock_path, "library"):
            self._first_write()
            items = self.items()
            taken = {i.name.lower() for i in items}
            # Files the index does not name (left by a crash) still block a name on disk.
            taken |= {n.lower() for n in os.listdir(self.root)}
            name = wanted
            if name.lower() in taken:
                name = next(c for c in _candidates(wanted) if c.lower() not in taken)
            final = self.root / name
            os.link(tmp, final)  # fails rather than replace a file that appeared meanwhile
            item = LibraryItem(f"l_{secrets.token_hex(6)}", name, source, size, now_ms())
            try:
                self._write_index([*items, item])
            except BaseException:
                final.unlink(missing_ok=True)
                raise
        return item

    def _write_index(self, items: list[LibraryItem]) -> None:
        write_json(self.index_path, {"items": [asdict(i) for i in items]})
