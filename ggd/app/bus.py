"""Fan-out of gg/session.event to the connections subscribed to a session (never blocking)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Protocol

from ggd.protocol import SessionEvent
from ggd.protocol.methods import SESSION_EVENT


class Subscriber(Protocol):
    """Anything that can take a notification without awaiting (a Connection)."""

    def notify(self, method: str, params: dict[str, Any], *, droppable: bool = True) -> bool: ...


class SessionBus:
    """Session id -> subscribers; publish hands each a notification and moves on."""

    def __init__(self) -> None:
        self._subs: dict[str, set[Subscriber]] = defaultdict(set)

    def subscribe(self, session_id: str, sub: Subscriber) -> None:
        """Start delivering a session's events to sub."""
        self._subs[session_id].add(sub)

    def unsubscribe(self, session_id: str, sub: Subscriber) -> None:
        """Stop delivering a session's events to sub."""
        subs = self._subs.get(session_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[session_id]

    def drop(self, sub: Subscriber) -> None:
        """Forget a subscriber everywhere (its connection closed)."""
        for sid in [s for s, subs in self._subs.items() if sub in subs]:
            self.unsubscribe(sid, sub)

    def publish(self, event: SessionEvent) -> int:
        """Send an event to every subscriber of its session; returns how many took it."""
        params = event.wire()
        return sum(
            1
            for sub in list(self._subs.get(event.session_id, ()))
            if sub.notify(SESSION_EVENT.name, params, droppable=False)
        )
