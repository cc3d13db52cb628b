"""The media capability: image_generate, tts and stt through OpenAI-compatible endpoints, results
kept in the core media store and fetched by id (gg/media.get)."""

from __future__ import annotations

from ggd.app import Capability, DeferredHandlers, DeferredRows, SetupContext, ToolProvider

from .config import MediaConfig
from .provider import MediaProvider
from .service import MediaService


def _providers(setup: SetupContext) -> list[ToolProvider]:
    return [MediaProvider(setup.home, setup.section(MediaConfig), setup.env)]


CAPABILITY = Capability(
    name="media",
    summary="Images, speech and transcription through OpenAI-compatible endpoints.",
    config_key="media",
    config_model=MediaConfig,
    providers=_providers,
    methods=DeferredRows(__name__, "media"),
    handlers=DeferredHandlers(__name__),
)

__all__ = ["CAPABILITY", "MediaConfig", "MediaProvider", "MediaService"]
