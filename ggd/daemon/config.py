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
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(raw)
    except ValueError as exc:
        line = exc.__dict__.get("lineno", "?")
        raise ConfigError(
            f"{path} is not valid JSON (line {line}: {exc.__dict__.get('msg', exc)})\n"
            f"  fix: correct it, or move it away to start with the defaults"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f'{path} must hold a JSON object, like {{"model": "openai:gpt-4o"}}')
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {_explain(exc.errors()[0])}\n  fix: edit {path}") from None


def _explain(err: Any) -> str:
    """One pydantic error as a person would say it: the key, what is wrong, what is allowed."""
    loc = [str(p) for p in err.get("loc", ())]
    key = ".".join(loc) or "(root)"
    if err.get("type") == "extra_forbidden":
        model: type[BaseModel] = ProviderEntry if loc[:1] == ["providers"] else Config
        known = ", ".join(model.model_fields)
        return f"unknown key {key!r} (known: {known})"
    got = err.get("input")
    shown = json.dumps(got) if isinstance(got, str | int | float | bool) or got is None else ""
    return f"{key}: {err.get('msg', 'invalid')}" + (f" (got {shown})" if shown else "")
