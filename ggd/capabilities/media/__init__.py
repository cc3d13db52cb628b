"""The media capability: image_generate, tts and stt through OpenAI-compatible endpoints, results
kept in the core media store and fetched by id (gg/media.get)."""

from __future__ import annotations

from .config import MediaConfig
from .provider import CAPABILITY, MediaProvider
from .service import MediaService

__all__ = ["CAPABILITY", "MediaConfig", "MediaProvider", "MediaService"]
