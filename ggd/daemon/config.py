"""config.json: validated at start; an error names the key that is wrong."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator


class ConfigError(Exception):
    """config.json is unreadable or invalid; the message names the key."""


class ProviderEntry(BaseModel):
    """One model provider: a Chat Completions endpoint, OpenAI Responses, Anthropic Messages,
    Gemini, or a local GGUF (the `kind`; docs/providers.md).

    Values are range-checked by the provider registry, whose errors name the key
    (docs/providers.md lists them).
    """

    model_config = ConfigDict(extra="forbid")
    kind: (
        Literal["openai", "openai-chat", "llamacpp", "openai-responses", "gemini", "anthropic"]
        | None
    ) = None
    baseUrl: str | None = None
    apiKey: str | None = None
    apiKeyEnv: str | None = None
    models: list[str] | None = None
    contextWindow: int | None = Field(default=None, gt=0)
    # Request parameters (ggd/providers/params.py), and the same keys per model.
    temperature: float | None = None
    topP: float | None = None
    maxTokens: int | None = None
    seed: int | None = None
    toolChoice: str | dict[str, Any] | None = None
    extraBody: dict[str, Any] | None = None
    reasoningEffort: str | None = None
    modelParams: dict[str, dict[str, Any]] | None = None
    # Which models take images: all, none, or these names (ggd/providers/vision.py).
    images: bool | list[str] | None = None
    # kind "llamacpp" (ggd/providers/kinds.py)
    modelPath: str | None = None
    threads: int | None = None
    chatTemplate: str | None = None
    idleSeconds: float | None = None
    port: int | None = None
    startTimeout: float | None = None


class LoopGuardConfig(BaseModel):
    """`loopGuard`: stop a run that repeats the same tool call (docs/agent.md)."""

    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    identicalCalls: int = Field(default=3, ge=2, le=1000)
    identicalFailures: int = Field(default=3, ge=2, le=1000)


class CheckpointsConfig(BaseModel):
    """`checkpoints`: snapshots of the workspace for undo, redo and restore (docs/checkpoints.md)."""

    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    # gitignore patterns never snapshotted (besides .gitignore); null: the defaults.
    ignore: list[str] | None = None
    maxFileBytes: int = Field(default=10 * 1024 * 1024, ge=0)
    maxFiles: int = Field(default=100_000, ge=1)
    maxAgeDays: float = Field(default=30, gt=0)
    maxStoreBytes: int = Field(default=2 * 1024 * 1024 * 1024, ge=0)


class BudgetLimits(BaseModel):
    """One budget: USD and tokens (every token of every request, summed)."""

    model_config = ConfigDict(extra="forbid")
    maxCostUsd: float | None = Field(default=None, gt=0)
    maxTokens: int | None = Field(default=None, gt=0)


class BudgetConfig(BaseModel):
    """`budget`: the default limits of every run, and of every session (docs/providers.md)."""

    model_config = ConfigDict(extra="forbid")
    run: BudgetLimits | None = None
    session: BudgetLimits | None = None


class SubagentsConfig(BaseModel):
    """`subagents`: child runs the `task` tool starts (docs/agents.md)."""

    model_config = ConfigDict(extra="forbid")
    maxParallel: int = Field(default=4, ge=1, le=16)


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
    approvalMode: Literal["auto", "on-request", "yolo", "never", "plan"] = "auto"
    loopGuard: LoopGuardConfig = Field(default_factory=LoopGuardConfig)
    # The model that titles a session once its first answer is in ("provider:model"); false:
    # sessions keep their first prompt as name; unset: the run's model on a hosted API only.
    titleModel: str | bool | None = None
    checkpoints: CheckpointsConfig = Field(default_factory=CheckpointsConfig)
    subagents: SubagentsConfig = Field(default_factory=SubagentsConfig)
    # Claude Code's hooks format (docs/hooks.md); checked at start, read again at each event.
    hooks: dict[str, Any] | None = None

    @field_validator("hooks")
    @classmethod
    def _hooks_valid(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            from ggd.hooks.config import HookConfigError, parse

            try:
                parse(value, "config.json hooks")
            except HookConfigError as exc:
                raise ValueError(str(exc)) from None
        return value

    # USD per million tokens by "provider:model", over the shipped table (ggd/providers/prices).
    prices: dict[str, dict[str, Any]] | None = None
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    # Deferrable tools (MCP, browser, ...) are declared up front while their declarations fit
    # this share of the model's context window; 0 defers them all (docs/agent.md).
    toolDeclarationShare: float = Field(default=0.1, ge=0, le=0.5)

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

    A missing file is the defaults. Errors name the key and the fix (`memory.enabled: ...`).
    """
    sections = dict(sections or {})
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raw = "{}"
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
    core = {k: v for k, v in data.items() if k not in sections}
    unknown = [k for k in core if k not in Config.model_fields]
    if unknown:
        known = ", ".join([*Config.model_fields, *sorted(sections)])
        raise ConfigError(
            f"{path}: unknown key {unknown[0]!r} (known: {known})\n  fix: edit {path}"
        )
    config = _validate(Config, core, "", path)
    out: dict[str, BaseModel] = {}
    for key, model in sections.items():
        if key not in data and not any(f.is_required() for f in model.model_fields.values()):
            # An absent section is the defaults: constructed, not validated (a field validator
            # sees only given values), so its model's deferred validator is never built.
            out[key] = model.model_construct()
            continue
        section = data.get(key, {})
        if not isinstance(section, dict):
            raise ConfigError(f"{path}: {key}: must be an object\n  fix: edit {path}")
        out[key] = _validate(model, section, key + ".", path)
    return config, out


def _validate(model: type[BaseModel], data: dict[str, Any], prefix: str, path: Path) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            f"{path}: {_explain(exc.errors()[0], model, prefix)}\n  fix: edit {path}"
        ) from None


def _explain(err: Any, model: type[BaseModel], prefix: str) -> str:
    """One pydantic error as a person would say it: the key, what is wrong, what is allowed."""
    loc = [str(p) for p in err.get("loc", ())]
    key = prefix + ".".join(loc) if loc else prefix.rstrip(".") or "(root)"
    if err.get("type") == "extra_forbidden":
        where: type[BaseModel] = model
        if model is Config and loc[:1] == ["providers"]:
            where = ProviderEntry
        elif model is Config and loc[:1] == ["loopGuard"]:
            where = LoopGuardConfig
        elif model is Config and loc[:1] == ["subagents"]:
            where = SubagentsConfig
        known = ", ".join(where.model_fields)
        return f"unknown key {key!r} (known: {known})"
    got = err.get("input")
    shown = json.dumps(got) if isinstance(got, str | int | float | bool) or got is None else ""
    return f"{key}: {err.get('msg', 'invalid')}" + (f" (got {shown})" if shown else "")
