"""config.json: validated at start; an error names the key that is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class ConfigError(Exception):
    """config.json is unreadable or invalid; the message names the key."""


class ProviderEntry(BaseModel):
    """One model provider (an OpenAI-compatible endpoint)."""

    model_config = ConfigDict(extra="forbid")
    baseUrl: str | None = None
    apiKey: str | None = None
    apiKeyEnv: str | None = None
    models: list[str] | None = None
    contextWindow: int | None = Field(default=None, gt=0)


class Config(BaseModel):
    """The daemon's settings file."""

    model_config = ConfigDict(extra="forbid")
    model: str | None = None
    providers: dict[str, ProviderEntry] = Field(default_factory=dict)
    sandbox: bool = False
    maxActiveRuns: int = Field(default=16, ge=1, le=1024)
    runTimeoutSeconds: float = Field(default=1800, gt=0)
    # 500 model requests: 5x a long 100-step task; the run timeout bounds wall time.
    maxTurns: int = Field(default=500, ge=1, le=100_000)
    bashLoginShell: bool = False
    approvalMode: Literal["auto", "on-request", "yolo", "never"] = "auto"

    def providers_dict(self) -> dict[str, Any]:
        """The raw provider section, for the provider registry."""
        return {
            "model": self.model,
            "providers": {k: v.model_dump(exclude_none=True) for k, v in self.providers.items()},
        }


def load_config(path: Path) -> Config:
    """Read and validate config.json; a missing file is the defaults."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config()
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ConfigError(
            f"config.json is not valid JSON (line {exc.__dict__.get('lineno', '?')})"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError("config.json must hold a JSON object")
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first.get("loc", ())) or "(root)"
        raise ConfigError(f"config.json: {key}: {first.get('msg')}") from None
