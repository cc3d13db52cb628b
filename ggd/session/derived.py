"""Derived files beside a session's JSONL: bytes built from it, served only while it is unchanged.

A derived file is a cache, never a source of truth. Its header records the JSONL it was built
from (device, inode, size, mtime in ns, last bytes) and its payload's length and CRC-32; it is
used only when all of them still match, and anything else (stale, torn, foreign, another
format, unreadable) reads as "no cache" so the caller builds again. Deleting one is always safe.
"""

from __future__ import annotations

import contextlib
import logging
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

from . import journal

__all__ = ["DerivedKind", "Stamp", "stamp_of"]

log = logging.getLogger("ggd.session")

# Format of the header, bumped on any layout change: an older file is then ignored and rebuilt.
_MAGIC = b"GGDRV\x00\x01\n"
# magic, dev, ino, size, mtime_ns, payload length, crc32, tail length, tail, key length
_HEAD = struct.Struct("<8sQQQqQIB32sH")
# The derived file's own (st_dev, st_ino, st_size, st_mtime_ns) and the CRC its header names.
_Seen = tuple[int, int, int, int, int]
_VERIFIED_MAX = 256


@dataclass(frozen=True, slots=True)
class Stamp:
    """The identity of a JSONL as a derived file records it."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    tail: bytes


def stamp_of(path: Path, tail: bytes) -> Stamp | None:
    """The JSONL's stamp if its last bytes are `tail` (what the caller's view ends with), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        fp = journal.fingerprint_at(fd, st)
        if fp.tail != tail:
            return None
        return Stamp(fp.dev, fp.ino, fp.size, st.st_mtime_ns, tail)
    except OSError:
        return None
    finally:
        os.close(fd)


def _sweep(path: Path) -> None:
    """Delete temporary copies of path a killed writer left behind (they can be tens of MB).

    A concurrent writer's copy may go too: its rename then fails and it only logs.
    """
    prefix = f".{path.name}."
    with contextlib.suppress(OSError):
        for name in os.listdir(path.parent):
            if name.startswith(prefix) and name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    os.unlink(path.parent / name)


class DerivedKind:
    """One kind of derived file: `<session id><suffix>`, its payload format named by `key`.

    `key` is the builder's own format name and version (b"snapshot/1"): a file another
    builder (or another version of it) wrote is foreign and rebuilt.
    """

    def __init__(self, suffix: str, key: bytes) -> None:
        if not suffix.startswith(".") or suffix == ".jsonl" or len(key) > 255:
            raise ValueError("a derived suffix starts with a dot and is not .jsonl; key <= 255 B")
        self.suffix = suffix
        self.key = key
        # Files whose payload CRC this process already checked (a bounded set of ints each).
        self._verified: dict[_Seen, None] = {}

    def path_for(self, jsonl: Path) -> Path:
        """Where the derived file of a session's JSONL lives (same 0700 directory)."""
        return jsonl.with_name(jsonl.stem + self.suffix)

    def _header(self, fd: int) -> tuple[Stamp, int, int, _Seen] | None:
        """(stamp, payload length, crc, file identity) of a well-formed header of a whole file."""
        start = _HEAD.size + len(self.key)
        raw = os.pread(fd, start, 0)
        if len(raw) != start:
            return None
        magic, dev, ino, size, mtime, length, crc, tail_len, tail, key_len = _HEAD.unpack_from(raw)
        if magic != _MAGIC or key_len != len(self.key) or raw[_HEAD.size :] != self.key:
            return None
        st = os.fstat(fd)
        if tail_len > journal.TAIL_BYTES or st.st_size != start + length:
            return None  # torn (or grown): not the file store() wrote
        seen = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, crc)
        return Stamp(dev, ino, size, mtime, tail[:tail_len]), length, crc, seen

    def matches(self, jsonl: Path, stamp: Stamp) -> bool:
        """Whether a derived file built from exactly this JSONL state exists.

        Its payload's checksum is not read here: load() checks it (and a caller that finds it
        bad builds from the entries instead).
        """
        try:
            fd = os.open(self.path_for(jsonl), os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            head = self._header(fd)
            return head is not None and head[0] == stamp
        except OSError:
            return False
        finally:
            os.close(fd)

    def load(self, jsonl: Path, stamp: Stamp) -> bytes | None:
        """The payload built from this JSONL state, or None (missing, stale, torn, foreign)."""
        try:
            fd = os.open(self.path_for(jsonl), os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            head = self._header(fd)
            if head is None or head[0] != stamp:
                return None
            _, length, crc, seen = head
            payload = os.pread(fd, length, _HEAD.size + len(self.key))
        except OSError:
            return None
        finally:
            os.close(fd)
        if len(payload) != length:
            return None
        if seen not in self._verified:
            # A torn or damaged copy shows at its first read; the same file (same inode, size
            # and mtime: never rewritten in place, only replaced) is not summed again.
            if zlib.crc32(payload) != crc:
                return None
            if len(self._verified) >= _VERIFIED_MAX:
                self._verified.clear()
            self._verified[seen] = None
        return payload

    def store(self, jsonl: Path, stamp: Stamp, payload: bytes) -> None:
        """Write the payload built from this JSONL state (atomic, 0600); failures only log.

        The caller built payload from the view `stamp` describes; if the JSONL moved on since,
        the file written here is simply stale and the next load ignores it.
        """
        head = _HEAD.pack(
            _MAGIC,
            stamp.dev,
            stamp.ino,
            stamp.size,
            stamp.mtime_ns,
            len(payload),
            zlib.crc32(payload),
            len(stamp.tail),
            stamp.tail,
            len(self.key),
        )
        path = self.path_for(jsonl)
        _sweep(path)
        try:
            journal.write_atomic(path, head + self.key, payload)
        except OSError as exc:  # a full disk or a read-only directory: the cache is optional
            log.info("derived file not written: %s", exc.strerror or type(exc).__name__)

    def discard(self, jsonl: Path) -> None:
        """Delete the derived file of a session, if any."""
        with contextlib.suppress(OSError):
            os.unlink(self.path_for(jsonl))
