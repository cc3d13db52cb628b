"""MediaService: generation, speech and transcription with their results kept in the media store."""

from __future__ import annotations

import asyncio
import mimetypes
from pathlib import Path

from ggd.app.media import MediaError, MediaItem, MediaStore

from . import client
from .client import AUDIO_LIMIT, MediaRequestError
from .config import Endpoint

AUDIO_TYPES = {
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".flac": "audio/flac",
    ".m4a": "audio/mp4",
    ".webm": "audio/webm",
    ".mp4": "audio/mp4",
}


class MediaService:
    """The configured endpoints (None where absent) and the store their results go to."""

    def __init__(self, home: Path, endpoints: dict[str, Endpoint | None]) -> None:
        self.home = home
        self.store = MediaStore(home)
        self.endpoints = endpoints

    def endpoint(self, kind: str) -> Endpoint:
        """The endpoint of a kind; MediaRequestError naming the setting when it is absent."""
        ep = self.endpoints.get(kind)
        if ep is None:
            raise MediaRequestError(
                f"no {kind} endpoint is configured: set media.{kind}.baseUrl in config.json "
                f"or GG_{kind.upper()}_BASE_URL"
            )
        return ep

    async def image(self, prompt: str, size: str = "1024x1024") -> MediaItem:
        """Generate an image and keep it."""
        img = await client.generate_image(self.endpoint("image"), prompt, size)
        return await asyncio.to_thread(self.store.save, img.data, img.mime, "image_generate")

    async def tts(self, text: str, voice: str = "alloy") -> MediaItem:
        """Speak text and keep the WAV."""
        audio = await client.speak(self.endpoint("tts"), text, voice)
        return await asyncio.to_thread(self.store.save, audio, "audio/wav", "tts")

    async def stt(self, audio: bytes, filename: str, mime: str) -> str:
        """Transcribe audio bytes."""
        return await client.transcribe(self.endpoint("stt"), audio, filename, mime)

    async def stt_media(self, media_id: str) -> str:
        """Transcribe a stored media item (a voice message, a TTS result)."""
        try:
            item, data = await asyncio.to_thread(self.store.read, media_id)
        except MediaError as exc:
            raise MediaRequestError(str(exc)) from None
        return await self.stt(data, f"{item.id}.{item.mime.split('/')[-1]}", item.mime)

    async def stt_path(self, raw: str, workspace: Path) -> str:
        """Transcribe a file inside the workspace or GG_HOME/media (nowhere else)."""
        path = confine(raw, workspace, self.store.root)
        return await self.stt(*await asyncio.to_thread(read_audio, path))


def confine(raw: str, workspace: Path, media_root: Path) -> Path:
    """Resolve raw (relative to the workspace) inside the workspace or the media folder."""
    if not raw or "\x00" in raw:
        raise MediaRequestError("path must be a non-empty string")
    p = Path(raw).expanduser()
    p = (p if p.is_absolute() else workspace / p).resolve()
    for root in (workspace.resolve(), media_root.resolve()):
        if p.is_relative_to(root):
            return p
    raise MediaRequestError("the audio file must be inside the workspace or GG_HOME/media")


def read_audio(path: Path) -> tuple[bytes, str, str]:
    """(bytes, file name, MIME type) of an audio file, reading at most the limit + 1 byte."""
    mime = AUDIO_TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or ""
    if not mime.startswith("audio/"):
        raise MediaRequestError(
            f"{path.name} is not an audio file (mp3, wav, ogg, flac, m4a, webm)"
        )
    try:
        with path.open("rb") as fh:
            data = fh.read(AUDIO_LIMIT + 1)
    except OSError as exc:
        raise MediaRequestError(f"cannot read {path.name} ({exc.strerror})") from None
    if len(data) > AUDIO_LIMIT:
        raise MediaRequestError(f"{path.name} is over 25 MiB")
    return data, path.name, mime
