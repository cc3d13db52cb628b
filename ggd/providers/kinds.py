"""Config entries of the provider kinds beyond plain Chat Completions, and request parameters.

A `kind: "llamacpp"` entry: `modelPath` (required), `contextWindow` (default 4096), `threads`
(0: every core), `chatTemplate` ("model": the GGUF's own, with llama.cpp's Jinja engine;
"chatml-tools": the ChatML template shipped with gg; or a path to a .jinja file), `idleSeconds`
(stop the server after this long without requests; 0 never), `port` (0: a free one),
`startTimeout` (seconds), and `models` (the names it answers to; default the file's stem).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ggd.providers.llamacpp import BUILTIN_TEMPLATES, LlamaCppProvider, LlamaCppSettings
from ggd.providers.openai_compat import ProviderOptions
from ggd.providers.params import RequestParams, parse_model_params, parse_params

__all__ = ["LOCAL_KEYS", "make_local", "provider_params"]

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
