"""The three OpenAI-compatible media calls over httpx, with their size limits and typed errors."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import httpx

from .config import Endpoint

TEXT_LIMIT = 1024 * 1024
AUDIO_LIMIT = 25 * 1024 * 1024
IMAGE_SIZES = ("1024x1024", "1024x1536", "1536x1024", "512x512", "256x256", "auto")
VOICES = ("alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer")


class MediaRequestError(Exception):
    """The endpoint refused or failed; the message names the endpoint, never the key."""


@dataclass
class Image:
    """A generated image."""

    data: bytes
    mime: str


def _headers(ep: Endpoint) -> dict[str, str]:
    return {"Authorization": f"Bearer {ep.api_key}"} if ep.api_key else {}


async def _post(ep: Endpoint, path: str, **kw: Any) -> httpx.Response:
    url = f"{ep.base_url}{path}"
    try:
        async with httpx.AsyncClient(timeout=ep.timeout) as http:
            resp = await http.post(url, headers=_headers(ep), **kw)
    except httpx.HTTPError as exc:
        raise MediaRequestError(
            f"{ep.kind} endpoint {ep.base_url} unreachable ({type(exc).__name__})"
        ) from None
    if resp.status_code >= 400:
        detail = ""
        try:
            detail = str(resp.json().get("error", {}).get("message", ""))[:200]
        except (ValueError, AttributeError):
            pass
        raise MediaRequestError(
            f"{ep.kind} endpoint {ep.base_url} answered {resp.status_code}"
            + (f": {detail}" if detail else "")
        )
    return resp


async def generate_image(ep: Endpoint, prompt: str, size: str) -> Image:
    """POST /images/generations; the image comes back base64-encoded."""
    if not prompt.strip() or len(prompt.encode()) > TEXT_LIMIT:
        raise MediaRequestError("the prompt must be non-empty and at most 1 MiB")
    if size not in IMAGE_SIZES:
        raise MediaRequestError(f"size must be one of {', '.join(IMAGE_SIZES)}")
    body = {
        "model": ep.model,
        "prompt": prompt,
        "size": size,
        "n": 1,
        "response_format": "b64_json",
    }
    resp = await _post(ep, "/images/generations", json=body)
    try:
        b64 = resp.json()["data"][0]["b64_json"]
        data = base64.b64decode(b64, validate=True)
    except (ValueError, KeyError, IndexError, TypeError):
        raise MediaRequestError(f"image endpoint {ep.base_url} sent no image") from None
    if data.startswith(b"\x89PNG"):
        return Image(data, "image/png")
    if data.startswith(b"\xff\xd8"):
        return Image(data, "image/jpeg")
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return Image(data, "image/webp")
    raise MediaRequestError(f"image endpoint {ep.base_url} sent something that is not an image")


async def speak(ep: Endpoint, text: str, voice: str) -> bytes:
    """POST /audio/speech; WAV bytes (lossless, and what every player and STT endpoint takes)."""
    if not text.strip() or len(text.encode()) > TEXT_LIMIT:
        raise MediaRequestError("the text must be non-empty and at most 1 MiB")
    if voice not in VOICES:
        raise MediaRequestError(f"voice must be one of {', '.join(VOICES)}")
    body = {"model": ep.model, "input": text, "voice": voice, "response_format": "wav"}
    resp = await _post(ep, "/audio/speech", json=body)
    if not resp.content or len(resp.content) > AUDIO_LIMIT:
        raise MediaRequestError(f"speech endpoint {ep.base_url} sent no usable audio")
    return resp.content


async def transcribe(ep: Endpoint, audio: bytes, filename: str, mime: str) -> str:
    """POST /audio/transcriptions (multipart); the transcript text."""
    if not audio:
        raise MediaRequestError("the audio file is empty")
    if len(audio) > AUDIO_LIMIT:
        raise MediaRequestError("audio over 25 MiB cannot be transcribed")
    files = {"file": (filename, audio, mime)}
    resp = await _post(ep, "/audio/transcriptions", data={"model": ep.model}, files=files)
    try:
        return str(resp.json()["text"])
    except (ValueError, KeyError, TypeError):
        raise MediaRequestError(f"transcription endpoint {ep.base_url} sent no text") from None
