"""Provider kinds: which wire API a config entry speaks, how its provider is made, and the
request parameters.

FACTORIES maps each HTTP kind to its provider class (one line each; all take the same
arguments); `openai-chat` is another name of `openai` (Chat Completions). A well-known provider
name picks its kind (NAME_KINDS); an entry of a native kind without `baseUrl` talks to that
API's own (KIND_BASE), with the key from its usual variables (KIND_KEY_ENV).

A `kind: "llamacpp"` entry: `modelPath` (required), `contextWindow` (default 4096), `threads`
(0: every core), `chatTemplate` ("model": the GGUF's own, with llama.cpp's Jinja engine;
"chatml-tools": the ChatML template shipped with gg; or a path to a .jinja file), `idleSeconds`
(stop the server after this long without requests; 0 never), `port` (0: a free one),
`startTimeout` (seconds), and `models` (the names it answers to; default the file's stem).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ggd.providers.anthropic import BASE_URL as ANTHROPIC_BASE_URL
from ggd.providers.anthropic import AnthropicProvider
from ggd.providers.gemini import BASE_URL as GEMINI_BASE_URL
from ggd.providers.gemini import GeminiProvider
from ggd.providers.llamacpp import BUILTIN_TEMPLATES, LlamaCppProvider, LlamaCppSettings
from ggd.providers.native import NativeProvider
from ggd.providers.openai_compat import OpenAICompatProvider, ProviderOptions
from ggd.providers.openai_responses import ResponsesProvider
from ggd.providers.params import RequestParams, parse_model_params, parse_params

__all__ = [
    "FACTORIES",
    "KINDS",
    "KIND_ALIASES",
    "KIND_BASE",
    "KIND_KEY_ENV",
    "LOCAL_KEYS",
    "NAME_KINDS",
    "kind_of",
    "make_local",
    "provider_params",
]

# kind -> its provider class, one line per HTTP wire kind.
FACTORIES: dict[str, type[OpenAICompatProvider | NativeProvider]] = {
    "openai": OpenAICompatProvider,
    "openai-responses": ResponsesProvider,
    "gemini": GeminiProvider,
    "anthropic": AnthropicProvider,
}
KIND_ALIASES = {"openai-chat": "openai"}  # the name the docs use for Chat Completions
KINDS = ("openai", "llamacpp", "openai-responses", "gemini", "anthropic", "openai-chat")
# The wire kind of a well-known name when it is not Chat Completions.
NAME_KINDS = {"gemini": "gemini", "anthropic": "anthropic"}
# Default base URLs of the native kinds, for an entry of any name without baseUrl.
KIND_BASE = {
    "openai-responses": "https://api.openai.com/v1",
    "gemini": GEMINI_BASE_URL,
    "anthropic": ANTHROPIC_BASE_URL,
}
# Key variables of a kind, tried in order after the name's own.
KIND_KEY_ENV = {
    "openai-responses": ("OPENAI_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "anthropic": ("ANTHROPIC_API_KEY",),
}


def kind_of(name: str, entry: dict[str, Any]) -> Any:
    """An entry's wire kind: its `kind` (aliases resolved), else its well-known name's, else
    Chat Completions (a value that is not a kind is returned for the caller to report)."""
    kind = entry.get("kind") or NAME_KINDS.get(name, "openai")
    return KIND_ALIASES.get(kind, kind) if isinstance(kind, str) else kind


LOCAL_KEYS = frozenset(
    {"modelPath", "threads", "chatTemplate", "idleSeconds", "port", "startTimeout"}
)


def provider_params(
    name: str, entry: dict[str, Any]
) -> tuple[RequestParams, dict[str, RequestParams]]:
    """The request parameters of a provider entry and of its `modelParams`."""
    where = f"providers.{name}"
    return parse_params(where, entry), parse_model_params(where, entry.get("modelParams"))


def _int(where: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{where} must be an integer from {low} to {high}")
    return value


def _seconds(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"{where} must be a number of seconds, 0 or more")
    return float(value)


def make_local(
    name: str, entry: dict[str, Any], home: Path | None, options: ProviderOptions | None
) -> LlamaCppProvider:
    """A llamacpp provider from its checked config entry; ValueError names the bad key."""
    where = f"providers.{name}"
    raw = entry.get("modelPath")
    if not isinstance(raw, str) or not raw.strip():
        raise ValueError(f'{where}.modelPath is required: the GGUF file, like "~/models/x.gguf"')
    path = Path(raw).expanduser()
    template = entry.get("chatTemplate", "model")
    if not isinstance(template, str) or not template:
        raise ValueError(f'{where}.chatTemplate must be "model", "chatml-tools" or a .jinja path')
    if template != "model" and template not in BUILTIN_TEMPLATES:
        tpath = Path(template).expanduser()
        if not tpath.is_file():
            raise ValueError(
                f'{where}.chatTemplate: {tpath.name!r} is not a file (use "model", '
                '"chatml-tools" or the path of a .jinja template)'
            )
        template = str(tpath)
    settings = LlamaCppSettings(
        model_path=path,
        context_window=_int(
            f"{where}.contextWindow", entry.get("contextWindow", 4096), 256, 1 << 20
        ),
        threads=_int(f"{where}.threads", entry.get("threads", 0), 0, 1024),
        chat_template=template,
        idle_seconds=_seconds(f"{where}.idleSeconds", entry.get("idleSeconds", 600)),
        port=_int(f"{where}.port", entry.get("port", 0), 0, 65535),
        start_timeout=_seconds(f"{where}.startTimeout", entry.get("startTimeout", 120)) or 120.0,
        log_file=(home / "logs" / f"llamacpp-{name}.log") if home is not None else None,
    )
    models = list(entry.get("models") or []) or [path.stem]
    opts = ProviderOptions(**{**vars(options)}) if options else None
    return LlamaCppProvider(name, settings, models, opts)
