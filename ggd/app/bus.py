"""Fan-out of gg/session.event (never blocking).

A session's subscribers get every event of that session. Every connection of the session's
workspace also gets the list-level events (created, renamed, forked, run state, pending
approvals, artifacts), so a session list and "another session waits for you" badges stay live without
subscribing to each session.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ggd.protocol import SessionEvent, encode_message
from ggd.protocol.methods import SESSION_EVENT

from .fanout import Subscriber  # a Connection: takes a notification without awaiting

LIST_LEVEL = frozenset(
    {
        "created",
        "renamed",
        "forked",
        "run_started",
        "run_finished",
        "approval_pending",
        "artifact_created",
        "artifact_updated",
    }
)


class SessionBus:
    """Session id -> subscribers, workspace id -> members; publish never waits for anyone."""

    def __init__(self) -> None:
        self._subs: dict[str, set[Subscriber]] = defaultdict(set)
        self._members: dict[str, set[Subscriber]] = defaultdict(set)

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

    def join(self, workspace_id: str, sub: Subscriber) -> None:
        """Deliver the workspace's list-level events to sub."""
        for members in self._members.values():
            members.discard(sub)
        self._members[workspace_id].add(sub)

    def drop(self, sub: Subscriber) -> None:
        """Forget a subscriber everywhere (its connection closed)."""
        for sid in [s for s, subs in self._subs.items() if sub in subs]:
            self.unsubscribe(sid, sub)
        for members in self._members.values():
            members.discard(sub)

    def broadcast(self, method: str, params: dict[str, Any], workspace_id: str | None) -> int:
        """A capability notification to every connection of a workspace (None: all of them)."""
        body = encode_message({"jsonrpc": "2.0", "method": method, "params": params})
        if workspace_id is None:
            targets = set().union(*self._members.values()) if self._members else set()
        else:
            targets = set(self._members.get(workspace_id, ()))
        return sum(1 for sub in targets if sub.notify(method, params, droppable=False, body=body))

    def publish(self, event: SessionEvent, workspace_id: str | None = None) -> int:
        """Send an event to its session's subscribers (and workspace members for list events)."""
        params = event.wire()
        body = encode_message({"jsonrpc": "2.0", "method": SESSION_EVENT.name, "params": params})
        targets = set(self._subs.get(event.session_id, ()))
        if workspace_id is not None and event.type in LIST_LEVEL:
            targets |= self._members.get(workspace_id, set())
        return sum(
            1
            for sub in targets
            if sub.notify(SESSION_EVENT.name, params, droppable=False, body=body)
        )
