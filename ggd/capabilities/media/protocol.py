"""gg/media.image, gg/media.tts and gg/media.stt: the media capability's protocol rows."""

from __future__ import annotations

from pydantic import Field

from ggd.protocol import MethodSpec
from ggd.protocol.base import Params, Result


class MediaImageParams(Params):
    """Generate an image."""

    prompt: str = Field(min_length=1, max_length=32_000)
    size: str = "1024x1024"


class MediaTtsParams(Params):
    """Speak text."""

    text: str = Field(min_length=1, max_length=100_000)
    voice: str = "alloy"


class MediaItemResult(Result):
    """A stored media item (fetch its bytes with gg/media.get)."""

    media_id: str
    mime: str
    size: int


class MediaSttParams(Params):
    """Transcribe audio: a stored media item, base64 data, or (local clients) a workspace path."""

    media_id: str | None = None
    data: str | None = Field(default=None, max_length=3_500_000)
    filename: str = "audio.mp3"
    path: str | None = None


class MediaSttResult(Result):
    """The transcript."""

    text: str


MEDIA_IMAGE = MethodSpec(
    "gg/media.image",
    "Generate an image through the configured endpoint; returns its media id.",
    MediaImageParams,
    MediaItemResult,
    example={
        "params": {"prompt": "a lighthouse at dusk", "size": "1024x1024"},
        "result": {"mediaId": "m_5f1c0a9e3b7d2c4a", "mime": "image/png", "size": 183211},
    },
)
MEDIA_TTS = MethodSpec(
    "gg/media.tts",
    "Speak text through the configured endpoint; returns the WAV's media id.",
    MediaTtsParams,
    MediaItemResult,
    example={
        "params": {"text": "Build passed.", "voice": "alloy"},
        "result": {"mediaId": "m_0b1e2d3c4a5f6789", "mime": "audio/wav", "size": 9321},
    },
)
MEDIA_STT = MethodSpec(
    "gg/media.stt",
    "Transcribe audio (a media id, base64 data, or a workspace path from a local client).",
    MediaSttParams,
    MediaSttResult,
    example={"params": {"mediaId": "m_0b1e2d3c4a5f6789"}, "result": {"text": "Build passed."}},
)
METHODS = (MEDIA_IMAGE, MEDIA_TTS, MEDIA_STT)
