"""config.json: validated at start; an error names the key that is wrong."""

from __future__ import annotations

import json
from collections.abc import Mapping
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
    maxTurns: int = Field(default=50, ge=1, le=10_000)
    approvalMode: Literal["auto", "on-request", "yolo", "never"] = "auto"

    def providers_dict(self) -> dict[str, Any]:
        """The raw provider section, for the provider registry."""
        return {
            "model": self.model,
            "providers": {k: v.model_dump(exclude_none=True) for k, v in self.providers.items()},
        }


def load_config(
    path: Path, sections: Mapping[str, type[BaseModel]] | None = None
) -> tuple[Config, dict[str, BaseModel]]:
    """Read and validate config.json: the core keys, then each capability's section.

    A missing file is the defaults. Errors name the key (`memory.enabled: ...`).
    """
    sections = dict(sections or {})
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raw = "{}"
    except OSError as exc:
        raise ConfigError(
            f"config.json cannot be read ({exc.strerror}); check its permissions"
        ) from None
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ConfigError(
            f"config.json is not valid JSON (line {exc.__dict__.get('lineno', '?')}); fix it or "
            "move it aside"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError("config.json must hold a JSON object")
    core = {k: v for k, v in data.items() if k not in sections}
    known = sorted([*Config.model_fields, *sections])
    unknown = [k for k in core if k not in Config.model_fields]
    if unknown:
        raise ConfigError(f"config.json: unknown key {unknown[0]!r} (known: {', '.join(known)})")
    config = _validate(Config, core, "")
    out: dict[str, BaseModel] = {}
    for key, model in sections.items():
        section = data.get(key, {})
        if not isinstance(section, dict):
            raise ConfigError(f"config.json: {key}: must be an object")
        out[key] = _validate(model, section, key + ".")
    return config, out


def _validate(model: type[BaseModel], data: dict[str, Any], prefix: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(p) for p in first.get("loc", ())]
        key = prefix + ".".join(loc) if loc else prefix.rstrip(".") or "(root)"
        if first.get("type") == "extra_forbidden":
            fields = ", ".join(sorted(model.model_fields))
            raise ConfigError(f"config.json: unknown key {key!r} (known: {fields})") from None
        raise ConfigError(f"config.json: {key}: {first.get('msg')}") from None
