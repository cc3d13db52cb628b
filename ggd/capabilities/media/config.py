"""config.json `media`: an OpenAI-compatible endpoint, model and key per kind, with env overrides."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_MODELS = {"image": "gpt-image-1", "tts": "gpt-4o-mini-tts", "stt": "whisper-1"}


class EndpointConfig(BaseModel):
    """One media endpoint."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    baseUrl: str | None = None
    model: str | None = None
    apiKeyEnv: str | None = None
    timeoutSeconds: float = Field(default=120, gt=0, le=600)


class MediaConfig(BaseModel):
    """`media: {image: {...}, tts: {...}, stt: {...}}`."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    image: EndpointConfig = Field(default_factory=EndpointConfig.model_construct)
    tts: EndpointConfig = Field(default_factory=EndpointConfig.model_construct)
    stt: EndpointConfig = Field(default_factory=EndpointConfig.model_construct)


@dataclass(frozen=True)
class Endpoint:
    """A resolved endpoint: where to send requests and how to authenticate."""

    kind: str
    base_url: str
    model: str
    api_key: str | None
    timeout: float


def resolve(kind: str, cfg: EndpointConfig, env: Mapping[str, str]) -> Endpoint | None:
    """The endpoint for one kind, or None when none is configured.

    `GG_<KIND>_BASE_URL`, `GG_<KIND>_MODEL` and `GG_<KIND>_API_KEY` override the config file;
    nothing falls back to the chat model's endpoint, so media never costs money by surprise.
    """
    prefix = f"GG_{kind.upper()}_"
    base = env.get(prefix + "BASE_URL") or cfg.baseUrl
    if not base:
        return None
    key = env.get(prefix + "API_KEY") or (env.get(cfg.apiKeyEnv) if cfg.apiKeyEnv else None)
    return Endpoint(
        kind=kind,
        base_url=base.rstrip("/"),
        model=env.get(prefix + "MODEL") or cfg.model or DEFAULT_MODELS[kind],
        api_key=key,
        timeout=cfg.timeoutSeconds,
    )
