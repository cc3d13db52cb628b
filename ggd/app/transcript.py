"""SessionTranscript: the agent loop's Transcript backed by a session file."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ggd.agent import TranscriptContext, project

from .service import Service


class SessionTranscript:
    """Reads the in-memory projection; every append goes through the service's write lock.

    `ready`, when given, is awaited before every append: a run's transcript waits for its
    turn-start checkpoint (`Checkpointer.settled`) so that entry precedes the turn's answers.
    """

    def __init__(self, svc: Service, ready: Callable[[], Awaitable[None]] | None = None) -> None:
        self.svc = svc
        self._ready = ready

    async def _write(self, kind: str, data: dict[str, Any]) -> str:
        if self._ready is not None:
            await self._ready()
        entry = await self.svc.write(lambda sf: sf.append(kind, data))
        return str(entry.id)

    def context(self) -> TranscriptContext:
        """The latest summary and the messages after its firstKeptId, on the active branch."""
        return project((e.kind, e.id, dict(e.data)) for e in self.svc.file.active_path())

    async def append_message(self, msg: dict[str, Any]) -> str:
        """Persist a message (fsynced) before the loop moves on."""
        return await self._write("message", msg)

    async def append_summary(self, summary: str, first_kept_id: str) -> None:
        """Persist a compaction summary."""
        data = {"summary": summary, "firstKeptId": first_kept_id}
        await self._write("summary", data)

    async def append_usage(self, usage: dict[str, Any]) -> None:
        """Persist one request's usage."""
        await self._write("usage", dict(usage))
