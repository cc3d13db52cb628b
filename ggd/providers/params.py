"""Request parameters of a provider and of its models: validated once, sent in the API's names.

Config keys (a provider's entry, and the same keys under `modelParams.<model>`, which win):

| key           | Chat Completions field | allowed                                              |
|---------------|------------------------|------------------------------------------------------|
| `temperature` | `temperature`          | a number from 0 to 2                                 |
| `topP`        | `top_p`                | a number above 0, at most 1                          |
| `maxTokens`   | `max_tokens`           | a positive integer (`max_completion_tokens` when the |
|               |                        | server rejected `max_tokens` once)                   |
| `seed`        | `seed`                 | an integer                                           |
| `toolChoice`  | `tool_choice`          | "auto", "none", "required" or {"type": "function",   |
|               |                        | "function": {"name": ...}}                           |
| `extraBody`   | merged into the body   | an object; its fields are sent as they are           |
| `reasoningEffort` | `reasoning_effort` | a non-empty string: "low", "medium", "high" (or the  |
|               |                        | API's own value); a run's `reasoningEffort` wins     |

`extraBody` cannot replace the fields gg owns (`model`, `messages`, `tools`, `stream`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PARAM_KEYS", "RequestParams", "parse_model_params", "parse_params"]

PARAM_KEYS = (
    "temperature",
    "topP",
    "maxTokens",
    "seed",
    "toolChoice",
    "extraBody",
    "reasoningEffort",
)
_OWNED = frozenset({"model", "messages", "tools", "stream", "stream_options"})
_CHOICES = ("auto", "none", "required")


@dataclass(frozen=True)
class RequestParams:
    """One provider's (or model's) request parameters; None = not set, the server's default."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    tool_choice: str | dict[str, Any] | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    reasoning_effort: str | None = None

    def over(self, base: RequestParams) -> RequestParams:
        """These parameters with `base` filling in what is unset (extraBody fields merge)."""
        return RequestParams(
            temperature=self.temperature if self.temperature is not None else base.temperature,
            top_p=self.top_p if self.top_p is not None else base.top_p,
            max_tokens=self.max_tokens if self.max_tokens is not None else base.max_tokens,
            seed=self.seed if self.seed is not None else base.seed,
            tool_choice=self.tool_choice if self.tool_choice is not None else base.tool_choice,
            extra_body={**base.extra_body, **self.extra_body},
            reasoning_effort=(
                self.reasoning_effort
                if self.reasoning_effort is not None
                else base.reasoning_effort
            ),
        )

    def chat_fields(self) -> dict[str, Any]:
        """The Chat Completions fields these parameters set (max_tokens is the caller's)."""
        out: dict[str, Any] = {}
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if self.top_p is not None:
            out["top_p"] = self.top_p
        if self.seed is not None:
            out["seed"] = self.seed
        if self.tool_choice is not None:
            out["tool_choice"] = self.tool_choice
        if self.reasoning_effort is not None:
            out["reasoning_effort"] = self.reasoning_effort
        out.update(self.extra_body)
        return out


def _number(where: str, value: Any, low: float, high: float, *, low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{where} must be a number")
    if value > high or value < low or (low_open and value == low):
        bound = f"above {low:g}" if low_open else f"from {low:g}"
        raise ValueError(f"{where} must be a number {bound} to {high:g} (got {value})")
    return float(value)


def _tool_choice(where: str, value: Any) -> str | dict[str, Any]:
    if isinstance(value, str) and value in _CHOICES:
        return value
    fn = value.get("function") if isinstance(value, dict) else None
    if (
        isinstance(value, dict)
        and value.get("type") == "function"
        and isinstance(fn, dict)
        and isinstance(fn.get("name"), str)
        and fn["name"]
    ):
        return value
    raise ValueError(
        f'{where} must be "auto", "none", "required" or '
        '{"type": "function", "function": {"name": TOOL}}'
    )


def parse_params(where: str, entry: Mapping[str, Any]) -> RequestParams:
    """The parameter keys of one config object; ValueError names the bad key (`where.key`)."""
    temperature = top_p = None
    max_tokens = seed = None
    tool_choice: str | dict[str, Any] | None = None
    extra: dict[str, Any] = {}
    if "temperature" in entry:
        temperature = _number(f"{where}.temperature", entry["temperature"], 0.0, 2.0)
    if "topP" in entry:
        top_p = _number(f"{where}.topP", entry["topP"], 0.0, 1.0, low_open=True)
    if "maxTokens" in entry:
        value = entry["maxTokens"]
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{where}.maxTokens must be a positive integer")
        max_tokens = value
    if "seed" in entry:
        value = entry["seed"]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where}.seed must be an integer")
        seed = value
    if "toolChoice" in entry:
        tool_choice = _tool_choice(f"{where}.toolChoice", entry["toolChoice"])
    if "extraBody" in entry:
        value = entry["extraBody"]
        if not isinstance(value, dict):
            raise ValueError(f"{where}.extraBody must be an object of request fields")
        owned = sorted(_OWNED & set(value))
        if owned:
            raise ValueError(f"{where}.extraBody.{owned[0]} is set by gg and cannot be replaced")
        extra = dict(value)
    effort = None
    if "reasoningEffort" in entry:
        value = entry["reasoningEffort"]
        if not isinstance(value, str) or not value.strip() or len(value) > 40:
            raise ValueError(
                f'{where}.reasoningEffort must be a word like "low", "medium" or "high"'
            )
        effort = value.strip()
    return RequestParams(temperature, top_p, max_tokens, seed, tool_choice, extra, effort)


def parse_model_params(where: str, value: Any) -> dict[str, RequestParams]:
    """`modelParams`: {model: {parameter keys}}; ValueError names the bad key."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{where}.modelParams must be an object of {{model: {{parameters}}}}")
    out: dict[str, RequestParams] = {}
    for model, entry in value.items():
        at = f"{where}.modelParams.{model}"
        if not isinstance(entry, dict):
            raise ValueError(f"{at} must be an object")
        unknown = [k for k in entry if k not in PARAM_KEYS]
        if unknown:
            raise ValueError(f"{at}.{unknown[0]} is not a known key (use {', '.join(PARAM_KEYS)})")
        out[str(model)] = parse_params(at, entry)
    return out
