"""Chain index of an entry list: each id's position, and where a parent is not the line before.

Appends default to the leaf, so almost every entry's parent is the previous line. Recording
only the exceptions ("breaks") lets a root..node path be cut out of the list as a few slices
instead of walking 100k parent links one dict lookup at a time.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from .model import Entry

__all__ = ["Chain", "index"]


class Chain:
    """Positions by id, and breaks: indexes whose parent is not the previous entry (0 included)."""

    __slots__ = ("breaks", "pos")

    def __init__(self, pos: dict[str, int], breaks: list[int]) -> None:
        self.pos = pos
        self.breaks = breaks

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self.pos

    def extend(self, entries: Sequence[Entry], start: int) -> None:
        """Record entries[start:], just appended to the list this chain describes."""
        pos = self.pos
        for i in range(start, len(entries)):
            e = entries[i]
            if i == 0 or e.parent_id != entries[i - 1].id:
                self.breaks.append(i)
            pos[e.id] = i

    def _segments(self, entries: Sequence[Entry], end: int) -> list[tuple[int, int]]:
        """(start, stop) index ranges of the path root..entries[end], leaf first."""
        out: list[tuple[int, int]] = []
        breaks = self.breaks
        while end >= 0:
            # No break lies in (start, end], so entries[start..end] is one parent chain.
            start = breaks[bisect_right(breaks, end) - 1]
            out.append((start, end + 1))
            pid = entries[start].parent_id
            if pid is None:
                break
            end = self.pos[pid]
        return out

    def path(self, entries: Sequence[Entry], end: int) -> list[Entry]:
        """Entries root..entries[end] following parentId (empty for end < 0)."""
        segments = self._segments(entries, end)
        if len(segments) == 1:
            start, stop = segments[0]
            return list(entries[start:stop])
        out: list[Entry] = []
        for start, stop in reversed(segments):
            out.extend(entries[start:stop])
        return out

    def path_to(self, entries: Sequence[Entry], entry_id: str | None) -> list[Entry]:
        """Entries root..entry_id (empty for None); KeyError for an unknown id."""
        return [] if entry_id is None else self.path(entries, self.pos[entry_id])

    def active_flags(self, entries: Sequence[Entry], end: int) -> bytearray:
        """One byte per entry: 1 where the entry is on the path root..entries[end]."""
        flags = bytearray(len(entries))
        for start, stop in self._segments(entries, end):
            flags[start:stop] = b"\x01" * (stop - start)
        return flags

    def targets(self, entries: Sequence[Entry]) -> set[str]:
        """Ids named as parent by an entry that is not the line after them."""
        return {pid for i in self.breaks[1:] if (pid := entries[i].parent_id) is not None}


def index(entries: list[Entry]) -> Chain | None:
    """The chain of decoded entries, or None if an id repeats or a parent does not precede."""
    pos: dict[str, int] = {}
    breaks = [0]
    add = breaks.append
    prev: str | None = None
    i = 0
    for e in entries:
        pid = e.parent_id
        if pid != prev:
            # Not the previous line (which is known to be indexed): it must be earlier.
            if pid is not None and pid not in pos:
                return None
            add(i)
        prev = e.id
        pos[prev] = i
        i += 1
    if len(pos) != i:
        return None  # an id is used twice
    return Chain(pos, breaks if i else [])
