"""Chain index of an entry list: where a line's parent is not the line before it.

Appends default to the leaf, so almost every entry's parent is the previous line. Recording
only the exceptions ("breaks") lets the active path be cut out of the list as a few slices
instead of walking 100k parent links one dict lookup at a time, and the file's
parent-precedes-child rule is checked in the same pass that indexes the ids.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import islice

from .model import Entry

__all__ = ["Chain", "index"]


class Chain:
    """Breaks of an entry list: indexes whose parent is not the previous entry (0 included)."""

    __slots__ = ("_targets", "breaks")

    def __init__(self, breaks: list[int]) -> None:
        self.breaks = breaks
        # Position of each entry a break names as parent: found in one pass on the first
        # jump (a chain of appends never needs it); positions cost an int object each.
        self._targets: dict[str, int] | None = None

    def extend(self, entries: Sequence[Entry], start: int) -> None:
        """Record entries[start:], just appended to the list this chain describes."""
        for i in range(start, len(entries)):
            if i == 0 or entries[i].parent_id != entries[i - 1].id:
                self.breaks.append(i)
                self._targets = None  # a new jump target, maybe: found again when needed

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
            end = self._position(entries, pid)
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

    def active_flags(self, entries: Sequence[Entry], end: int) -> bytearray:
        """One byte per entry: 1 where the entry is on the path root..entries[end]."""
        flags = bytearray(len(entries))
        for start, stop in self._segments(entries, end):
            flags[start:stop] = b"\x01" * (stop - start)
        return flags

    def targets(self, entries: Sequence[Entry]) -> set[str]:
        """Ids named as parent by an entry that is not the line after them."""
        return {pid for i in self.breaks[1:] if (pid := entries[i].parent_id) is not None}

    def _position(self, entries: Sequence[Entry], entry_id: str) -> int:
        found = self._targets
        if found is None:
            wanted = self.targets(entries)
            found = self._targets = {e.id: i for i, e in enumerate(entries) if e.id in wanted}
        return found[entry_id]


def index(entries: list[Entry]) -> tuple[dict[str, Entry], Chain] | None:
    """by_id and the chain of decoded entries, or None if an id repeats or a parent is late."""
    if not entries:
        return {}, Chain([])
    first = entries[0]
    if first.parent_id is not None:
        return None  # nothing precedes the first entry
    by_id: dict[str, Entry] = {first.id: first}
    breaks = [0]
    add = breaks.append
    prev = first.id
    for e in islice(entries, 1, None):
        pid = e.parent_id
        if pid != prev:
            # Not the previous line (which is known to be indexed): it must be earlier.
            if pid is not None and pid not in by_id:
                return None
            add(len(by_id))  # its position, unless an id repeated (then None below)
        prev = e.id
        by_id[prev] = e
    if len(by_id) != len(entries):
        return None  # an id is used twice
    return by_id, Chain(breaks)
