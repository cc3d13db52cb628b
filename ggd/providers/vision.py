"""Which models take images: the `images` key of a provider entry, else a default by kind and name.

`"images": true` (every model of the provider), `false` (none), or a list of the model names
that do. Without the key: the native kinds (`anthropic`, `gemini`, `openai-responses`) take
images; a Chat Completions endpoint (`openai`, `openai-chat`) takes them for model names of
families known to read images (GPT-4o/4.1/5, o1/o3/o4, Claude, Gemini, Gemma 3, LLaVA, Qwen-VL,
Pixtral, Llama 4, ...); `llamacpp` and the demo model take none (llama.cpp needs a projector
file gg does not pass). A prompt with images for a model that takes none is refused.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["ImageSupport", "accepts_images", "parse_images"]

ImageSupport = bool | frozenset[str] | None

_NATIVE = frozenset({"anthropic", "gemini", "openai-responses"})
_NONE = frozenset({"llamacpp", "demo"})
_FAMILIES = re.compile(
    r"gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4-vision|gpt-4\.5|gpt-5|chatgpt-4o|(?:^|[/:])o[134](?:-|$)"
    r"|claude|gemini|gemma-?3|llava|vision|[-_.]vl(?:[-_.:]|$)|qwen\d?(?:\.\d)?-?vl|pixtral"
    r"|llama-?4|minicpm-v|moondream|internvl|grok-4|mistral-(?:small|medium)-3|multimodal"
    r"|-omni",
    re.IGNORECASE,
)


def parse_images(where: str, value: Any) -> ImageSupport:
    """The `images` value of a provider entry; ValueError names the key when it is malformed."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, list) and all(isinstance(m, str) and m for m in value):
        return frozenset(value)
    raise ValueError(f"{where}.images must be true, false or a list of model names")


def accepts_images(kind: str, configured: ImageSupport, model: str) -> bool:
    """Whether `model` of a provider of `kind` with `images: configured` takes images."""
    if isinstance(configured, bool):
        return configured
    if configured is not None:
        return model in configured
    if kind in _NATIVE:
        return True
    if kind in _NONE:
        return False
    return _FAMILIES.search(model) is not None
