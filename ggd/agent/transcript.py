"""Where the loop persists messages: a Protocol the app backs with a session file."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

Message = dict[str, Any]


@dataclass
class TranscriptContext:
    """What the model sees: the latest compaction summary and the messages kept after it."""

    summary: str | None
    messages: list[tuple[str, Message]]


def project(entries: Iterable[tuple[str, str, dict[str, Any]]]) -> TranscriptContext:
    """What the model sees from (kind, entry id, data) rows of the active branch, in order.

    The latest `summary` row replaces every message before its firstKeptId.
    """
    summary: str | None = None
    first_kept = ""
    messages: list[tuple[str, Message]] = []
    for kind, eid, data in entries:
        if kind == "summary":
            summary = str(data.get("summary") or "")
            first_kept = str(data.get("firstKeptId") or "")
        elif kind == "message":
            messages.append((eid, data))
    if first_kept:
        for i, (eid, _) in enumerate(messages):
            if eid == first_kept:
                messages = messages[i:]
                break
    return TranscriptContext(summary=summary, messages=messages)


class Transcript(Protocol):
    """Persistence for one conversation's active branch."""

    def context(self) -> TranscriptContext:
        """Summary plus (entry id, protocol Message) pairs after the latest summary's firstKeptId."""
        ...

    async def append_message(self, msg: Message) -> str:
        """Append a protocol Message; returns its entry id."""
        ...

    async def append_summary(self, summary: str, first_kept_id: str) -> None:
        """Record a compaction: messages before first_kept_id are replaced by summary."""
        ...

    async def append_usage(self, usage: dict[str, Any]) -> None:
        """Record the token usage of one model request."""
        ...


@dataclass
class InMemoryTranscript:
    """A Transcript kept in a list; for tests and throwaway runs."""

    entries: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def _next_id(self) -> str:
        return f"e{next(self._ids)}"

    def context(self) -> TranscriptContext:
        """Summary plus the messages from the latest summary's firstKeptId on."""
        return project(self.entries)

    def messages(self) -> list[Message]:
        """Every message ever appended (ignores compaction), in order."""
        return [data for kind, _, data in self.entries if kind == "message"]

    def usages(self) -> list[dict[str, Any]]:
        """Every usage record, in order."""
        return [data for kind, _, data in self.entries if kind == "usage"]

    async def append_message(self, msg: Message) -> str:
        """Append a message and return its id."""
        eid = self._next_id()
        self.entries.append(("message", eid, dict(msg)))
        return eid

    async def append_summary(self, summary: str, first_kept_id: str) -> None:
        """Append a compaction summary."""
        self.entries.append(
            ("summary", self._next_id(), {"summary": summary, "firstKeptId": first_kept_id})
        )

    async def append_usage(self, usage: dict[str, Any]) -> None:
        """Append a usage record."""
        self.entries.append(("usage", self._next_id(), dict(usage)))
