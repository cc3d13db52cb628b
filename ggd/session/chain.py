"""Chain index of an entry list: where a line's parent is not the line before it.

Appends default to the leaf, so almost every entry's parent is the previous line. Recording
only the exceptions ("breaks") lets the active path be cut out of the list as a few slices
instead of walking 100k parent links one dict lookup at a time, and lets the file's
parent-precedes-child rule be checked with C-level list operations.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from .model import Entry

__all__ = ["Chain", "index"]


class Chain:
    """Breaks of an entry list (indexes whose parent is not the previous entry; 0 included)."""

    __slots__ = ("_breaks", "_pos")

    def __init__(self, breaks: list[int]) -> None:
        self._breaks = breaks
        self._pos: dict[str, int] | None = None  # id -> index, built on the first jump

    def extend(self, entries: Sequence[Entry], start: int) -> None:
        """Record entries[start:] (just appended to the list this chain describes)."""
        pos = self._pos
        for i in range(start, len(entries)):
            e = entries[i]
            if i == 0 or e.parent_id != entries[i - 1].id:
                self._breaks.append(i)
            if pos is not None:
                pos[e.id] = i

    def path(self, entries: Sequence[Entry], end: int) -> list[Entry]:
        """Entries root..entries[end] following parentId (empty for end < 0)."""
        segments: list[Sequence[Entry]] = []
        breaks = self._breaks
        while end >= 0:
            # No break lies in (start, end], so entries[start..end] is one parent chain.
            start = breaks[bisect_right(breaks, end) - 1]
            segments.append(entries[start : end + 1])
            pid = entries[start].parent_id
            if pid is None:
                break
            end = self._position(entries, pid)
        if len(segments) == 1:
            return list(segments[0])
        out: list[Entry] = []
        for seg in reversed(segments):
            out.extend(seg)
        return out

    def active_flags(self, entries: Sequence[Entry], end: int) -> bytearray:
        """One byte per entry: 1 where the entry is on the path root..entries[end]."""
        flags = bytearray(len(entries))
        breaks = self._breaks
        while end >= 0:
            start = breaks[bisect_right(breaks, end) - 1]
            flags[start : end + 1] = b"\x01" * (end + 1 - start)
            pid = entries[start].parent_id
            if pid is None:
                break
            end = self._position(entries, pid)
        return flags

    def _position(self, entries: Sequence[Entry], entry_id: str) -> int:
        if self._pos is None:
            self._pos = {e.id: i for i, e in enumerate(entries)}
        return self._pos[entry_id]


def index(entries: list[Entry]) -> tuple[dict[str, Entry], Chain] | None:
    """by_id and the chain of decoded entries, or None if an id repeats or a parent is late."""
    by_id: dict[str, Entry] = {}
    breaks = [0]
    add = breaks.append
    prev: str | None = None
    i = 0
    for e in entries:
        pid = e.parent_id
        if pid != prev:
            # Not the previous line (which is known to be indexed): it must be earlier.
            if pid is not None and pid not in by_id:
                return None
            add(i)
        prev = e.id
        by_id[prev] = e
        i += 1
    if len(by_id) != i:
        return None  # an id is used twice
    return by_id, Chain(breaks)
