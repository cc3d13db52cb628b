"""SessionFile: one open session, its entries in memory, appends under the writer lease."""

from __future__ import annotations

import json
import logging
import os
import secrets
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from . import codec, journal, projection
from .chain import Chain
from .derived import DerivedKind, Stamp, stamp_of
from .errors import SessionConflictError, SessionFormatError, SessionNotFoundError
from .model import LEAF, Entry, SessionHeader, TreeNode, _Leaf

T = TypeVar("T")

__all__ = ["SessionFile"]

log = logging.getLogger("ggd.session")

Clock = Callable[[], int]
_View = tuple[list[Entry], dict[str, Entry], Chain]


class _Creator(Protocol):
    def __call__(
        self,
        workspace_id: str,
        name: str | None,
        model: str | None,
        parent: dict[str, Any] | None,
        entries: Sequence[Entry],
    ) -> SessionFile: ...


class SessionFile:
    """One session file: read once on open, then kept in sync by its own appends.

    Synchronous by design; the daemon calls it from a worker thread when latency matters.
    One object is not thread-safe: use it from one thread at a time (the app serializes per
    session). Separate objects, threads or processes are kept apart by the writer lease.
    """

    def __init__(
        self,
        path: Path,
        *,
        lock_path: Path,
        clock: Clock,
        lease_timeout: float,
        creator: _Creator,
        defer: DerivedKind | None = None,
    ) -> None:
        self._path = path
        self._lock_path = lock_path
        self._clock = clock
        self._lease_timeout = lease_timeout
        self._creator = creator
        # (entries in file order, entries by id, their chain); None after release() until
        # the next read.
        self._view: _View | None = None
        self._active: list[Entry] | None = None
        if defer is None or not self._open_deferred(defer):
            self.reload()

    # -- loading -------------------------------------------------------------------------

    def reload(self) -> None:
        """Re-read the file (after a conflict); a torn last line is truncated under the lease."""
        try:
            data, dev, ino = journal.read_file(self._path)
        except FileNotFoundError:
            raise SessionNotFoundError(f"session {self._path.stem!r} no longer exists") from None
        parsed = codec.parse(data)
        if parsed.torn:
            # The tail may be another writer's append in flight: decide only under the lease.
            with journal.lease(self._lock_path, self._lease_timeout):
                data, dev, ino = journal.read_file(self._path)
                parsed = codec.parse(data)
                if parsed.torn:
                    log.warning(
                        "session %s: dropping %d bytes of an incomplete last line",
                        parsed.header.id,
                        len(data) - parsed.valid_length,
                    )
                    journal.truncate_to(self._path, parsed.valid_length)
        if parsed.header.id != self._path.stem:
            raise SessionFormatError("session header names another session id")
        if parsed.damaged:
            # Opened with what is valid; the damaged lines stay on disk for a person to mend.
            log.warning(
                "session %s: %d damaged line(s) skipped: %s",
                parsed.header.id,
                len(parsed.damaged),
                "; ".join(parsed.damaged[:5]),
            )
        self._header = parsed.header
        self._view = (parsed.entries, parsed.by_id, parsed.chain)
        self._active = None
        self._fp = journal.Fingerprint(dev, ino, parsed.valid_length, parsed.tail)

    def _open_deferred(self, kind: DerivedKind) -> bool:
        """Open without decoding the entries when a `kind` file built from this very file exists.

        Such a file was built from a complete, valid view of exactly these bytes (its stamp
        names the device, inode, size, mtime and last bytes), so there is no torn tail to
        repair. The entries load on first use as after release(), from the first
        fingerprint.size bytes: the conflict check keeps the identity taken here.
        """
        edges = journal.read_edges(self._path)
        if edges is None:
            return False
        first, fp, mtime_ns = edges
        if not kind.matches(self._path, Stamp(fp.dev, fp.ino, fp.size, mtime_ns, fp.tail)):
            return False
        try:
            header = codec.header_from_json(json.loads(first))
        except (ValueError, UnicodeDecodeError, SessionFormatError):
            return False  # reload() words the error
        if header.id != self._path.stem:
            return False
        self._header = header
        self._view = None
        self._active = None
        self._fp = fp
        return True

    def derived(
        self, kind: DerivedKind, build: Callable[[SessionFile], bytes | None]
    ) -> bytes | None:
        """The payload of a derived file for this view: read when its stamp matches, else built.

        build(self) makes it from the entries; it is stored only when the file on disk is
        exactly this view (another writer's append makes it stale, so it is not written).
        None from build: nothing to cache (the caller takes its own path).
        """
        fp = self._fp
        stamp = stamp_of(self._path, fp.tail)
        if stamp is not None and (stamp.dev, stamp.ino, stamp.size) != (fp.dev, fp.ino, fp.size):
            stamp = None  # the disk is not this view (another writer appended): never stored
        if stamp is not None:
            payload = kind.load(self._path, stamp)
            if payload is not None:
                return payload
        payload = build(self)
        if payload is not None and stamp is not None:
            kind.store(self._path, stamp, payload)
        return payload

    def moved_on(self) -> bool:
        """Whether the file on disk is no longer the one this object last read or wrote.

        Another process (a private `ggd --stdio`, the CLI without a daemon) appended to it,
        repaired it, or replaced it: its device, inode, size or last bytes differ. One open,
        fstat and pread of TAIL_BYTES; no lock (a writer mid-append just reads as moved on).
        """
        try:
            fd = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return True  # gone: reload() says so precisely
        try:
            return journal.fingerprint_at(fd, os.fstat(fd)) != self._fp
        except OSError:
            return True
        finally:
            os.close(fd)

    # -- idle memory ---------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        """Whether the entries are in memory (False after release() until the next read)."""
        return self._view is not None

    def release(self) -> None:
        """Drop the entries of an idle session; the next read rebuilds this same view.

        Only the header and the fingerprint stay (a few hundred bytes). The rebuilt view is
        the file's first fingerprint.size bytes, so it is exactly what this object saw even
        if another writer appended since, and the next append still conflicts as before.
        """
        self._view = None
        self._active = None

    def _restore(self) -> _View:
        fp = self._fp
        try:
            data, dev, ino = journal.read_file(self._path)
        except FileNotFoundError:
            raise SessionConflictError("session file disappeared; reload the session") from None
        start = max(0, fp.size - journal.TAIL_BYTES)
        if (dev, ino) != (fp.dev, fp.ino) or data[start : fp.size] != fp.tail:
            raise SessionConflictError(
                "session changed since it was read (another writer); reload and retry"
            )
        parsed = codec.parse(data[: fp.size])
        if parsed.torn or parsed.header.id != self._header.id:
            raise SessionConflictError("session changed since it was read; reload and retry")
        self._view = (parsed.entries, parsed.by_id, parsed.chain)
        return self._view

    @property
    def _entries(self) -> list[Entry]:
        return (self._view or self._restore())[0]

    @property
    def _by_id(self) -> dict[str, Entry]:
        return (self._view or self._restore())[1]

    # -- identity and entries ------------------------------------------------------------

    @property
    def id(self) -> str:
        """Stable session id."""
        return self._header.id

    @property
    def header(self) -> SessionHeader:
        """The header line (line 1)."""
        return self._header

    @property
    def entries(self) -> Sequence[Entry]:
        """Every entry in file order (do not mutate)."""
        return self._entries

    def get(self, entry_id: str) -> Entry | None:
        """The entry with this id, or None."""
        return self._by_id.get(entry_id)

    @property
    def leaf_id(self) -> str | None:
        """Id of the last entry; the active branch runs from it to the root."""
        return self._entries[-1].id if self._entries else None

    def active_path(self) -> list[Entry]:
        """Entries root..leaf following parentId.

        Raises:
            SessionConflictError: after release(), the file was replaced or rewritten.
        """
        if self._active is None:
            entries, _, chain = self._view or self._restore()
            self._active = chain.path(entries, len(entries) - 1)
        return list(self._active)

    def messages(self) -> list[dict[str, Any]]:
        """The data dicts of message entries on the active path, in order."""
        return [e.data for e in self.active_path() if e.kind == "message"]

    def tree(self) -> list[TreeNode]:
        """A TreeNode for every message entry, in file order."""
        return self.tree_with(projection.tree_nodes)

    def tree_with(self, build: Callable[[Sequence[Entry], bytearray, set[str]], T]) -> T:
        """build(entries, active flags, jump targets): tree() with a caller's own node type."""
        entries, _, chain = self._view or self._restore()
        with codec.bulk_allocation():
            flags = chain.active_flags(entries, len(entries) - 1)
            return build(entries, flags, chain.targets(entries))

    # -- projections ---------------------------------------------------------------------

    @property
    def name(self) -> str | None:
        """Latest name (session_info entries override the header)."""
        return projection.latest(self._entries, "session_info", "name", self._header.name)

    @property
    def model(self) -> str | None:
        """Latest model (model entries override the header)."""
        return projection.latest(self._entries, "model", "model", self._header.model)

    @property
    def updated_at(self) -> int:
        """Timestamp of the last entry (ms), never before the creation time (forks copy)."""
        created = self._header.created_at
        return max(self._entries[-1].timestamp, created) if self._entries else created

    @property
    def message_count(self) -> int:
        """Number of messages on the active path."""
        return sum(1 for e in self.active_path() if e.kind == "message")

    @property
    def first_prompt(self) -> str:
        """Short text of the first user message in the file, whichever branch is active."""
        return projection.first_prompt(self._entries)

    @property
    def preview(self) -> str:
        """Short text of the first user message on the active path."""
        return projection.preview_of(self.active_path())

    # -- writes --------------------------------------------------------------------------

    def append(
        self, kind: str, data: dict[str, Any], parent_id: str | _Leaf | None = LEAF
    ) -> Entry:
        """Append one entry (parent defaults to the leaf) durably; returns it.

        Raises:
            SessionConflictError: the file changed since this object last read or wrote it.
            ValueError: unknown parent, bad kind or data that is not JSON.
        """
        return self.append_many([(kind, data)], parent_id)[0]

    def append_many(
        self,
        items: Iterable[tuple[str, dict[str, Any]]],
        parent_id: str | _Leaf | None = LEAF,
    ) -> list[Entry]:
        """Append a chain of entries (each the parent of the next) in one locked write."""
        parent = self.leaf_id if isinstance(parent_id, _Leaf) else parent_id
        if parent is not None and parent not in self._by_id:
            raise ValueError(f"unknown parent entry {parent!r}")
        now = self._clock()
        fresh: list[Entry] = []
        taken: set[str] = set()
        for kind, data in items:
            if not isinstance(kind, str) or not kind or kind == "session":
                raise ValueError(f"invalid entry kind {kind!r}")
            if not isinstance(data, dict):
                raise ValueError("entry data must be a dict")
            eid = self._new_entry_id(taken)
            fresh.append(Entry(kind, eid, parent, now, data))
            parent = eid
        if not fresh:
            return []
        payload = b"".join(codec.encode_line(e.to_json()) for e in fresh)
        with journal.lease(self._lock_path, self._lease_timeout):
            self._fp = journal.append_checked(self._path, self._fp, payload)
        entries, by_id, chain = self._view or self._restore()
        for e in fresh:
            by_id[e.id] = e
        start = len(entries)
        entries.extend(fresh)
        chain.extend(entries, start)
        self._active = None
        return fresh

    def _new_entry_id(self, taken: set[str]) -> str:
        while True:
            eid = secrets.token_hex(4)
            if eid not in self._by_id and eid not in taken:
                taken.add(eid)
                return eid

    def checkout(self, node_id: str | None) -> Entry:
        """Make node_id the active branch by appending a head entry under it.

        None starts an empty branch (the head becomes a new root): "before the first message".
        """
        if node_id is not None and node_id not in self._by_id:
            raise ValueError(f"unknown entry {node_id!r}")
        return self.append("head", {}, node_id)

    def rename(self, name: str) -> Entry:
        """Rename the session (appends a session_info entry)."""
        if not isinstance(name, str):
            raise ValueError("name must be a string")
        return self.append("session_info", {"name": name})

    def fork(self, node_id: str | None, name: str | None = None) -> SessionFile:
        """A new session holding the path root..node_id; its header records the lineage.

        None forks from before the first entry: an empty session that remembers its origin.
        `name` names the copy (default: this session's name).
        """
        if node_id is not None and node_id not in self._by_id:
            raise ValueError(f"unknown entry {node_id!r}")
        path = projection.path_to(self._by_id, node_id)
        parent = {"sessionId": self.id, "nodeId": node_id, "kind": "fork"}
        return self._copy(path, parent, name)

    def clone(self, name: str | None = None) -> SessionFile:
        """A new session holding the whole active path; its header records the lineage."""
        parent = {"sessionId": self.id, "nodeId": self.leaf_id, "kind": "clone"}
        return self._copy(self.active_path(), parent, name)

    def _copy(self, path: Sequence[Entry], parent: dict[str, Any], name: str | None) -> SessionFile:
        # Metadata entries are dropped (the new header carries the current name and model)
        # and the next kept entry is re-parented, so the copy is a clean single chain.
        kept: list[Entry] = []
        last: str | None = None
        for e in path:
            if e.kind in projection.METADATA_KINDS:
                continue
            kept.append(Entry(e.kind, e.id, last, e.timestamp, e.data))
            last = e.id
        # The copied entries are the new file's first lines; their count says which of its
        # usage entries the origin paid for (timestamps cannot: a request may land in the
        # same millisecond as the copy).
        parent["copied"] = len(kept)
        copy_name = self.name if name is None else name
        return self._creator(self._header.workspace_id, copy_name, self.model, parent, kept)

    def __repr__(self) -> str:
        count = len(self._view[0]) if self._view is not None else "released"
        return f"SessionFile(id={self.id!r}, entries={count})"
