"""SessionTranscript: the agent loop's Transcript backed by a session file."""

from __future__ import annotations

from typing import Any

from ggd.agent import TranscriptContext, project

from .service import Service


class SessionTranscript:
    """Reads the in-memory projection; every append goes through the service's write lock."""

    def __init__(self, svc: Service) -> None:
        self.svc = svc

    def context(self) -> TranscriptContext:
        """The latest summary and the messages after its firstKeptId, on the active branch."""
        return project((e.kind, e.id, dict(e.data)) for e in self.svc.file.active_path())

    async def append_message(self, msg: dict[str, Any]) -> str:
        """Persist a message (fsynced) before the loop moves on."""
        entry = await self.svc.write(lambda sf: sf.append("message", msg))
        return str(entry.id)

    async def append_summary(self, summary: str, first_kept_id: str) -> None:
        """Persist a compaction summary."""
        data = {"summary": summary, "firstKeptId": first_kept_id}
        await self.svc.write(lambda sf: sf.append("summary", data))

    async def append_usage(self, usage: dict[str, Any]) -> None:
        """Persist one request's usage."""
        await self.svc.write(lambda sf: sf.append("usage", dict(usage)))
