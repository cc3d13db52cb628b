"""SessionTranscript: the agent loop's Transcript backed by a session file."""

from __future__ import annotations

from typing import Any

from ggd.agent import TranscriptContext

from .service import Service


class SessionTranscript:
    """Reads the in-memory projection; every append goes through the service's write lock."""

    def __init__(self, svc: Service) -> None:
        self.svc = svc

    def context(self) -> TranscriptContext:
        """The latest summary and the messages after its firstKeptId, on the active branch."""
        summary: str | None = None
        first_kept = ""
        messages: list[tuple[str, dict[str, Any]]] = []
        for e in self.svc.file.active_path():
            if e.kind == "summary":
                summary = str(e.data.get("summary") or "")
                first_kept = str(e.data.get("firstKeptId") or "")
            elif e.kind == "message":
                messages.append((e.id, dict(e.data)))
        if first_kept:
            for i, (eid, _) in enumerate(messages):
                if eid == first_kept:
                    messages = messages[i:]
                    break
        return TranscriptContext(summary=summary, messages=messages)

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
