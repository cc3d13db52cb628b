"""config.json `kb`: the embedding source (an OpenAI-compatible endpoint or the offline model)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class EmbeddingsConfig(BaseModel):
    """`kb.embeddings`: an OpenAI-compatible /v1/embeddings endpoint."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    baseUrl: str | None = None
    model: str | None = None
    apiKeyEnv: str | None = None
    batchSize: int = Field(default=64, ge=1, le=2048)
    timeoutSeconds: float = Field(default=60, gt=0, le=600)


class KbConfig(BaseModel):
    """`kb: {embeddings: {...}, localModel: "auto"|"off"}`."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    # model_construct: the defaults need no validation, so they never build the validator.
    embeddings: EmbeddingsConfig = Field(default_factory=EmbeddingsConfig.model_construct)
    localModel: Literal["auto", "off"] = "auto"


@dataclass(frozen=True)
class Endpoint:
    """A resolved embeddings endpoint."""

    base_url: str
    model: str
    api_key: str | None
    batch: int
    timeout: float


DEFAULT_MODEL = "text-embedding-3-small"


def resolve(cfg: KbConfig, env: Mapping[str, str]) -> Endpoint | None:
    """The endpoint, or None when none is configured.

    `GG_EMBEDDINGS_BASE_URL`, `GG_EMBEDDINGS_MODEL` and `GG_EMBEDDINGS_API_KEY` override the
    file; nothing falls back to the chat model's endpoint, so indexing never costs by surprise.
    """
    e = cfg.embeddings
    base = env.get("GG_EMBEDDINGS_BASE_URL") or e.baseUrl
    if not base:
        return None
    key = env.get("GG_EMBEDDINGS_API_KEY") or (env.get(e.apiKeyEnv) if e.apiKeyEnv else None)
    return Endpoint(
        base_url=base.rstrip("/"),
        model=env.get("GG_EMBEDDINGS_MODEL") or e.model or DEFAULT_MODEL,
        api_key=key,
        batch=e.batchSize,
        timeout=e.timeoutSeconds,
    )
