"""Config resolution: config.json + environment + credentials file -> a registry of providers.

Precedence for the model: cli_model > env GG_MODEL > config "model". Provider sources, first match
wins: config "providers"; else env OPENAI_API_KEY / OPENAI_BASE_URL (provider "openai"), else
ANTHROPIC_API_KEY (provider "anthropic"); else a well-known provider named in the model ref
("ollama:qwen2.5-coder", "anthropic:claude-..."); else the offline demo model.
API key per provider: "apiKey" > env["apiKeyEnv"] > credentials.json > the well-known env variable
of its name, then of its kind. A provider's `kind` is its wire API (kinds.py: one row each).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ggd.providers.anthropic import BASE_URL as ANTHROPIC_BASE_URL
from ggd.providers.demo import DEMO_MODEL, DemoProvider
from ggd.providers.gemini import BASE_URL as GEMINI_BASE_URL
from ggd.providers.kinds import (
    FACTORIES,
    KIND_BASE,
    KIND_KEY_ENV,
    KINDS,
    LOCAL_KEYS,
    NAME_KINDS,
    kind_of,
    make_local,
    provider_params,
)
from ggd.providers.native import NativeProvider
from ggd.providers.openai_compat import OpenAICompatProvider, ProviderOptions
from ggd.providers.params import PARAM_KEYS
from ggd.providers.probe import shown_url
from ggd.providers.types import ChatProvider, Probe
from ggd.providers.vision import ImageSupport, accepts_images, parse_images

__all__ = ["WELL_KNOWN", "ProviderRegistry", "ProviderState", "build_registry", "resolve_provider"]

WELL_KNOWN: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "ollama": "http://127.0.0.1:11434/v1",
    "lmstudio": "http://127.0.0.1:1234/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "deepseek": "https://api.deepseek.com/v1",
    "gemini": GEMINI_BASE_URL,
    "anthropic": ANTHROPIC_BASE_URL,
}
# Base URLs from the environment, by well-known name (Anthropic's SDK reads the same variable).
_BASE_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
}
_PROVIDER_KEYS = frozenset(
    {"kind", "baseUrl", "apiKey", "apiKeyEnv", "models", "contextWindow", "modelParams", "images"}
    | set(PARAM_KEYS)
    | LOCAL_KEYS
)
# The model of a provider implied by its key alone, talking to its own API.
_DEFAULT_MODELS = {"openai": "gpt-4.1-mini", "anthropic": "claude-sonnet-4-6"}


@dataclass
class ProviderState:
    """A configured provider as `gg models` shows it (its URL without credentials or query)."""

    name: str
    kind: str
    base_url: str | None
    probe: Probe
    models: list[str]


@dataclass
class ProviderRegistry:
    """Named providers plus the default "provider:model"."""

    providers: dict[str, ChatProvider]
    default_model: str
    model_lists: dict[str, list[str]] = field(default_factory=dict)
    context_windows: dict[str, int] = field(default_factory=dict)
    # provider -> its `images` config: which models take images (ggd.providers.vision)
    image_support: dict[str, ImageSupport] = field(default_factory=dict)
    # provider -> (monotonic time, the endpoint's model ids or None when it lists none)
    _listed: dict[str, tuple[float, list[str] | None]] = field(default_factory=dict, repr=False)
    # provider -> the GET /models in flight, shared by every check that needs it meanwhile
    _inflight: dict[str, asyncio.Task[list[str] | None]] = field(default_factory=dict, repr=False)

    @property
    def default_provider(self) -> str:
        """Name of the provider of the default model."""
        return self.default_model.split(":", 1)[0]

    @property
    def is_demo(self) -> bool:
        """True when the default model is the offline demo."""
        return self.providers[self.default_provider].is_demo

    def split(self, model_ref: str | None) -> tuple[str, str]:
        """ "provider:model" or a bare model (default provider) -> (provider, model)."""
        ref = (model_ref or "").strip() or self.default_model
        name, sep, model = ref.partition(":")
        if sep and name in self.providers:
            return name, model
        return self.default_provider, ref

    def get(self, model_ref: str | None = None) -> tuple[ChatProvider, str]:
        """The provider and bare model name for a model reference."""
        name, model = self.split(model_ref)
        if not model:
            raise ValueError(f"model reference {model_ref!r} names no model")
        return self.providers[name], model

    async def check_model(self, model_ref: str | None) -> str | None:
        """Why a model reference cannot run (unknown provider, a model the endpoint does not list).

        None when it can. Asked before a run starts, so a typo is an error, not a silent
        answer from another model. An endpoint that does not list models accepts any name.
        """
        ref = (model_ref or "").strip() or self.default_model
        name, model = self.split(ref)
        provider = self.providers[name]
        prefix, sep, _ = ref.partition(":")
        configured = ", ".join(self.providers)
        unknown = bool(sep) and prefix not in self.providers
        if provider.is_demo:
            if model in self.model_lists.get(name, []):
                return None
            if unknown:
                return (
                    f"unknown provider {prefix!r} in model {ref!r} (configured: {configured}); "
                    "configure it in GG_HOME/config.json providers (see docs/providers.md)"
                )
            return f"unknown model {ref!r}: the demo offers only {self.models()[0]}"
        listed = await self._list(name, provider)
        if listed is None or model in listed:
            return None
        shown = ", ".join(listed[:8]) + (", ..." if len(listed) > 8 else "")
        where = getattr(provider, "base_url", name)
        head = f"unknown provider {prefix!r} (configured: {configured}), and " if unknown else ""
        return (
            f"{head}model {model!r} is not offered by {name} ({where}/models lists: {shown}); "
            f"use --model {name}:MODEL"
        )

    async def _list(self, name: str, provider: ChatProvider) -> list[str] | None:
        now = time.monotonic()
        cached = self._listed.get(name)
        # A list is kept 5 minutes; "does not list" is retried after 30 s.
        if cached is not None and now - cached[0] < (300.0 if cached[1] is not None else 30.0):
            return cached[1]
        task = self._listing(name, provider)
        # Shielded: a run cancelled while it waits leaves the list coming for the next one.
        return None if task is None else await asyncio.shield(task)

    def _listing(self, name: str, provider: ChatProvider) -> asyncio.Task[list[str] | None] | None:
        """The provider's GET /models in flight, started if need be; None when it lists none."""
        lister = getattr(provider, "list_models", None)
        if lister is None:
            return None
        task = self._inflight.get(name)
        if task is None:
            task = asyncio.ensure_future(self._fetch(name, lister))
            # A prefetch is awaited by nobody: an unexpected error is consumed, not logged at exit.
            task.add_done_callback(lambda t: None if t.cancelled() else t.exception())
            self._inflight[name] = task
        return task

    async def _fetch(
        self, name: str, lister: Callable[[], Awaitable[list[str] | None]]
    ) -> list[str] | None:
        try:
            listed = await lister()
            self._listed[name] = (time.monotonic(), listed)
            return listed
        finally:
            self._inflight.pop(name, None)

    def prefetch(self) -> None:
        """Start listing the default provider's models while the daemon is still starting.

        The first run's model check then finds the list (and an open connection to the
        endpoint) ready: one round trip to the provider off the path to its first request.
        A failure is what the check would have met anyway; the check itself retries later.
        """
        name = self.default_provider
        provider = self.providers.get(name)
        if provider is not None and not provider.is_demo and name not in self._listed:
            self._listing(name, provider)

    def models(self) -> list[str]:
        """Every known "provider:model", default first."""
        out = [self.default_model]
        for name, models in self.model_lists.items():
            out.extend(f"{name}:{m}" for m in models if f"{name}:{m}" not in out)
        return out

    def model_states(self) -> dict[str, str]:
        """ "provider:model" -> state, for providers that run a server of their own (`state`)."""
        out: dict[str, str] = {}
        for name, provider in self.providers.items():
            state = getattr(provider, "state", None)
            if isinstance(state, str):
                out.update({f"{name}:{m}": state for m in self.model_lists.get(name, [])})
        return out

    def accepts_images(self, model_ref: str | None = None) -> bool:
        """Whether a model takes images in its prompt (the provider's `images` config)."""
        name, model = self.split(model_ref)
        provider = self.providers[name]
        if provider.is_demo:
            return False
        return accepts_images(provider.kind, self.image_support.get(name), model)

    async def status(self) -> list[ProviderState]:
        """Each provider with its kind and its answer to one listing request, asked together."""
        names = list(self.providers)
        found = await asyncio.gather(*(self.providers[n].probe() for n in names))
        known = self.models()
        out = []
        for name, probe in zip(names, found, strict=True):
            provider = self.providers[name]
            url = getattr(provider, "base_url", None)
            local = provider.is_demo or provider.kind == "llamacpp"
            out.append(
                ProviderState(
                    name=name,
                    kind=provider.kind,
                    base_url=None if local or not url else shown_url(url),
                    probe=probe,
                    models=[m for m in known if m.split(":", 1)[0] == name],
                )
            )
        return out

    def context_window(self, model_ref: str | None = None) -> int | None:
        """The configured context window of a model's provider, if any."""
        return self.context_windows.get(self.split(model_ref)[0])

    async def aclose(self) -> None:
        """Close every provider's connections (a list still in flight is dropped first)."""
        for task in list(self._inflight.values()):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        for provider in self.providers.values():
            await provider.aclose()


def _load_credentials(path: Path | None) -> dict[str, Any]:
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise ValueError("credentials.json is not valid JSON") from None
    if not isinstance(data, dict):
        raise ValueError("credentials.json must be an object of {provider: {apiKey}}")
    return data


def _cred_key(creds: dict[str, Any], name: str) -> str | None:
    entry = creds.get(name)
    if isinstance(entry, dict) and isinstance(entry.get("apiKey"), str) and entry["apiKey"]:
        return str(entry["apiKey"])
    return None


def _check_entry(name: Any, entry: Any) -> dict[str, Any]:
    where = f"providers.{name}"
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"providers: invalid provider name {name!r}")
    if not isinstance(entry, dict):
        raise ValueError(f"{where} must be an object")
    for key in entry:
        if key not in _PROVIDER_KEYS:
            raise ValueError(
                f"{where}.{key} is not a known key (use {', '.join(sorted(_PROVIDER_KEYS))})"
            )
    for key in ("baseUrl", "apiKey", "apiKeyEnv"):
        if key in entry and not isinstance(entry[key], str):
            raise ValueError(f"{where}.{key} must be a string")
    if "baseUrl" in entry and not entry["baseUrl"].startswith(("http://", "https://")):
        raise ValueError(f"{where}.baseUrl must start with http:// or https://")
    models = entry.get("models", [])
    if not isinstance(models, list) or not all(isinstance(m, str) and m for m in models):
        raise ValueError(f"{where}.models must be a list of model names")
    window = entry.get("contextWindow")
    if window is not None and (
        not isinstance(window, int) or isinstance(window, bool) or window <= 0
    ):
        raise ValueError(f"{where}.contextWindow must be a positive integer")
    kind = kind_of(name, entry)
    if kind not in KINDS:
        raise ValueError(f"{where}.kind must be one of {', '.join(KINDS)} (got {kind!r})")
    local = sorted(k for k in entry if k in LOCAL_KEYS)
    if kind != "llamacpp" and local:
        raise ValueError(f'{where}.{local[0]} needs "kind": "llamacpp"')
    if kind == "llamacpp" and "baseUrl" in entry:
        raise ValueError(f"{where}.baseUrl: a llamacpp provider runs its own server; drop it")
    if "baseUrl" not in entry and name not in WELL_KNOWN and kind == "openai":
        raise ValueError(f"{where}.baseUrl is required (not a well-known provider)")
    return entry


def _make(
    name: str, base_url: str, key: str | None, options: ProviderOptions | None, kind: str = "openai"
) -> OpenAICompatProvider | NativeProvider:
    opts = ProviderOptions(**{**vars(options)}) if options else None
    return FACTORIES[kind](base_url, key, name=name, options=opts)


def _env_key(env: Mapping[str, str], name: str, kind: str) -> str | None:
    """The API key from the environment: the well-known name's variable, then the kind's."""
    names = ((_KEY_ENV[name],) if name in _KEY_ENV else ()) + KIND_KEY_ENV.get(kind, ())
    return next((env[v] for v in names if env.get(v)), None)


def build_registry(
    config: dict[str, Any],
    env: Mapping[str, str],
    cli_model: str | None = None,
    credentials_path: Path | None = None,
    *,
    options: ProviderOptions | None = None,
    home: Path | None = None,
) -> ProviderRegistry:
    """Resolve providers and the default model; ValueError names the bad config key."""
    model = cli_model or env.get("GG_MODEL") or config.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise ValueError("model must be a non-empty string like 'openai:gpt-4.1-mini'")
    raw = config.get("providers") or {}
    if not isinstance(raw, dict):
        raise ValueError("providers must be an object of {name: {baseUrl, apiKey, ...}}")
    creds = _load_credentials(credentials_path)
    providers: dict[str, ChatProvider] = {}
    lists: dict[str, list[str]] = {}
    windows: dict[str, int] = {}
    images: dict[str, ImageSupport] = {}
    for name, entry in raw.items():
        provider, models, window = _configured(name, entry, env, creds, home, options)
        providers[name], lists[name] = provider, models
        if window is not None:
            windows[name] = window
        images[name] = parse_images(f"providers.{name}", entry.get("images"))  # entry checked
    implicit = _implicit_provider(model, env, creds, providers)
    if implicit is not None:
        name, base = implicit
        kind = NAME_KINDS.get(name, "openai")
        key = _cred_key(creds, name) or _env_key(env, name, kind)
        providers[name] = _make(name, base, key, options, kind)
        lists[name] = []
        if model is None and base == WELL_KNOWN[name] and name in _DEFAULT_MODELS:
            model = _DEFAULT_MODELS[name]
    providers.setdefault("demo", DemoProvider())
    lists.setdefault("demo", [DEMO_MODEL])
    registry = ProviderRegistry(
        providers, _default_model(model, providers, lists), lists, windows, images
    )
    _set_default_models(registry, providers, lists)
    return registry


def _configured(
    name: str,
    entry: object,
    env: Mapping[str, str],
    creds: dict[str, Any],
    home: Path | None,
    options: ProviderOptions | None,
) -> tuple[ChatProvider, list[str], int | None]:
    """One config.json provider: the provider, its listed models and its context window."""
    entry = _check_entry(name, entry)
    if entry.get("kind") == "llamacpp":
        local = make_local(name, entry, home, options)
        local.params, local.model_params = provider_params(name, entry)
        return local, list(local.models), local.settings.context_window
    kind = kind_of(name, entry)
    base = entry.get("baseUrl") or (env.get(_BASE_ENV[name]) if name in _BASE_ENV else None)
    key = (
        entry.get("apiKey")
        or (env.get(entry["apiKeyEnv"]) if "apiKeyEnv" in entry else None)
        or _cred_key(creds, name)
        or _env_key(env, name, kind)
    )
    made = _make(name, base or KIND_BASE.get(kind) or WELL_KNOWN[name], key, options, kind)
    made.params, made.model_params = provider_params(name, entry)
    return made, list(entry.get("models", [])), entry.get("contextWindow")


def _set_default_models(
    registry: ProviderRegistry, providers: dict[str, ChatProvider], lists: dict[str, list[str]]
) -> None:
    """A model for every OpenAI-compatible provider a request may name without one: the
    default model for the default provider, else the first one its config lists."""
    for name, provider in providers.items():
        if not isinstance(provider, OpenAICompatProvider) or provider.default_model is not None:
            continue
        if name == registry.default_provider:
            provider.default_model = registry.split(registry.default_model)[1]
        elif lists.get(name):
            provider.default_model = lists[name][0]


def _implicit_provider(
    model: str | None, env: Mapping[str, str], creds: dict[str, Any], configured: dict[str, Any]
) -> tuple[str, str] | None:
    """A provider implied by a well-known model prefix, or by OpenAI (else Anthropic)
    env/credentials alone."""
    prefix = model.partition(":")[0] if model and ":" in model else None
    openai_base = env.get("OPENAI_BASE_URL") or WELL_KNOWN["openai"]
    if prefix in WELL_KNOWN and prefix not in configured:
        own = env.get(_BASE_ENV[prefix]) if prefix in _BASE_ENV else None
        return prefix, own or WELL_KNOWN[prefix]
    if configured or (prefix is not None and prefix in ("demo", *WELL_KNOWN)):
        return None
    has_openai = (
        env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL") or _cred_key(creds, "openai")
    )
    if has_openai:
        return "openai", openai_base
    if env.get("ANTHROPIC_API_KEY") or _cred_key(creds, "anthropic"):
        return "anthropic", env.get("ANTHROPIC_BASE_URL") or WELL_KNOWN["anthropic"]
    return None


def _default_model(
    model: str | None, providers: dict[str, ChatProvider], lists: dict[str, list[str]]
) -> str:
    real = [n for n in providers if n != "demo" or not providers[n].is_demo]
    if model is None:
        for name in real:
            if lists.get(name):
                return f"{name}:{lists[name][0]}"
        if real:
            raise ValueError('model is not set: set "model" in config.json or GG_MODEL')
        return f"demo:{DEMO_MODEL}"
    name, sep, bare = model.partition(":")
    if sep and name in providers:
        if not bare:
            raise ValueError(f"model {model!r} names no model after the provider")
        return model
    if sep and name in WELL_KNOWN:
        raise ValueError(f"model {model!r}: provider {name!r} is not configured in providers")
    # A bare model (or one with a colon inside, like "qwen2.5:7b") belongs to the default provider.
    owner = next((n for n in real if model in lists.get(n, [])), real[0] if real else "demo")
    return f"{owner}:{model}"


def resolve_provider(
    config: dict[str, Any],
    env: Mapping[str, str],
    model: str | None = None,
    credentials_path: Path | None = None,
) -> ChatProvider:
    """The provider of the default model (the DemoProvider when nothing is configured)."""
    registry = build_registry(config, env, model, credentials_path)
    return registry.get(registry.default_model)[0]
