"""Voice notes: the STT and TTS HTTP calls, duplicated from the media capability on purpose.

Capabilities never import each other, so the channel reads the same settings (GG_STT_* and
GG_TTS_* env, else config.json `media.stt` / `media.tts`) and makes the two small
OpenAI-compatible requests itself: POST /audio/transcriptions (multipart) and /audio/speech.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

DEFAULT_MODELS = {"tts": "gpt-4o-mini-tts", "stt": "whisper-1"}


@dataclass(frozen=True)
class Speech:
    """One resolved endpoint."""

    base_url: str
    model: str
    api_key: str | None
    timeout: float


class SpeechError(Exception):
    """The endpoint refused or sent nothing usable (the message is safe to show)."""


def resolve(kind: str, media: Any, env: Mapping[str, str] | None = None) -> Speech | None:
    """The STT or TTS endpoint, or None when media is not configured for it."""
    env = os.environ if env is None else env
    section = getattr(media, kind, None)
    prefix = f"GG_{kind.upper()}_"
    base = env.get(prefix + "BASE_URL") or getattr(section, "baseUrl", None)
    if not base:
        return None
    key_env = getattr(section, "apiKeyEnv", None)
    return Speech(
        base_url=str(base).rstrip("/"),
        model=env.get(prefix + "MODEL") or getattr(section, "model", None) or DEFAULT_MODELS[kind],
        api_key=env.get(prefix + "API_KEY") or (env.get(key_env) if key_env else None),
        timeout=float(getattr(section, "timeoutSeconds", 120) or 120),
    )


def _headers(ep: Speech) -> dict[str, str]:
    return {"Authorization": f"Bearer {ep.api_key}"} if ep.api_key else {}


async def transcribe(ep: Speech, audio: bytes, filename: str) -> str:
    """The text of a voice note."""
    try:
        async with httpx.AsyncClient(timeout=ep.timeout) as http:
            resp = await http.post(
                f"{ep.base_url}/audio/transcriptions",
                headers=_headers(ep),
                data={"model": ep.model},
                files={"file": (filename, audio, "application/octet-stream")},
            )
    except httpx.HTTPError as exc:
        raise SpeechError(
            f"the transcription endpoint is unreachable ({type(exc).__name__})"
        ) from None
    if resp.status_code != 200:
        raise SpeechError(f"the transcription endpoint answered HTTP {resp.status_code}")
    try:
        text = str(resp.json().get("text", "")).strip()
    except ValueError:
        raise SpeechError("the transcription endpoint sent no JSON") from None
    return text


async def speak(ep: Speech, text: str, voice: str) -> bytes:
    """Speech audio for a reply (opus: what Telegram plays as a voice note)."""
    body = {"model": ep.model, "input": text[:4000], "voice": voice, "response_format": "opus"}
    try:
        async with httpx.AsyncClient(timeout=ep.timeout) as http:
            resp = await http.post(f"{ep.base_url}/audio/speech", headers=_headers(ep), json=body)
    except httpx.HTTPError as exc:
        raise SpeechError(f"the speech endpoint is unreachable ({type(exc).__name__})") from None
    if resp.status_code != 200 or not resp.content:
        raise SpeechError(f"the speech endpoint answered HTTP {resp.status_code}")
    return resp.content
