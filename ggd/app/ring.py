"""EventRing: a run's replayable event log, bounded by count and bytes."""

from __future__ import annotations

from collections import deque
from typing import Any

from ggd.protocol import encode_message
from ggd.protocol import errors as E

MAX_EVENTS = 8192
MAX_BYTES = 4 * 1024 * 1024


class EventRing:
    """Keeps the newest events; asking for older ones raises event_history_expired."""

    def __init__(self, max_events: int = MAX_EVENTS, max_bytes: int = MAX_BYTES) -> None:
        self.max_events = max_events
        self.max_bytes = max_bytes
        self._events: deque[tuple[int, dict[str, Any]]] = deque()
        self._bytes = 0
        self.last_sequence = 0

    @property
    def first_sequence(self) -> int:
        """The oldest sequence still held (last+1 when empty)."""
        return self._events[0][1]["sequence"] if self._events else self.last_sequence + 1

    def append(self, event: dict[str, Any], size: int | None = None) -> None:
        """Add the next event (its sequence must be last+1); size is its encoded length."""
        if size is None:
            size = len(encode_message(event))
        events = self._events
        events.append((size, event))
        self._bytes += size
        self.last_sequence = event["sequence"]
        if len(events) > self.max_events:
            # A full ring during a long stream: one out per one in, without the trim loop.
            old, _ = events.popleft()
            self._bytes -= old
            if self._bytes > self.max_bytes:
                self._trim()
        elif self._bytes > self.max_bytes:
            self._trim()

    def _trim(self) -> None:
        events = self._events
        while len(events) > 1 and (len(events) > self.max_events or self._bytes > self.max_bytes):
            old, _ = events.popleft()
            self._bytes -= old

    def since(self, after: int) -> list[dict[str, Any]]:
        """Events with sequence > after; expired history raises event_history_expired."""
        if after < self.first_sequence - 1:
            raise E.EventHistoryExpiredError(
                f"events after {after} are no longer kept (oldest is {self.first_sequence}); "
                "reload the session snapshot and run status"
            )
        if after >= self.last_sequence:
            return []
        skip = after - (self.first_sequence - 1)
        return [ev for i, (_, ev) in enumerate(self._events) if i >= skip]

    @property
    def nbytes(self) -> int:
        """Serialized size of the events held."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._events)
