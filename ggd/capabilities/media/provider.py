"""The media provider: each tool exists only where its endpoint is configured."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ggd.app import (
    Contribution,
    ScopeContext,
    SessionContext,
    ToolProvider,
)
from ggd.tools import Tool

from .config import MediaConfig, resolve
from .service import MediaService
from .tools import ImageGenerate, Stt, Tts


class MediaProvider(ToolProvider):
    """image_generate, tts and stt against OpenAI-compatible endpoints."""

    name = "media"

    def __init__(self, home: Path, config: MediaConfig, env: Mapping[str, str]) -> None:
        eps = {k: resolve(k, getattr(config, k), env) for k in ("image", "tts", "stt")}
        self.svc = MediaService(home, eps)
        self.capabilities = tuple(f"media.{k}" for k, ep in eps.items() if ep is not None)

    def available(self, scope: ScopeContext) -> str | None:
        """Absent when no media endpoint is configured."""
        return None if self.capabilities else "no media endpoint configured"

    async def build(self, session: SessionContext) -> Contribution:
        """The tools whose endpoint is configured."""
        tools: list[Tool] = []
        if self.svc.endpoints.get("image"):
            tools.append(ImageGenerate(self.svc))
        if self.svc.endpoints.get("tts"):
            tools.append(Tts(self.svc))
        if self.svc.endpoints.get("stt"):
            tools.append(Stt(self.svc))
        return Contribution(tools=tools)
