"""Chat model providers: an OpenAI-compatible streaming client, config resolution and the demo model."""

from __future__ import annotations

from ggd.providers.demo import DEMO_MODEL, DemoProvider
from ggd.providers.openai_compat import OpenAICompatProvider, ProviderOptions
from ggd.providers.registry import WELL_KNOWN, ProviderRegistry, build_registry, resolve_provider
from ggd.providers.types import (
    ChatProvider,
    ChatRequest,
    Completed,
    ProviderError,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    Usage,
)

__all__ = [
    "DEMO_MODEL",
    "WELL_KNOWN",
    "ChatProvider",
    "ChatRequest",
    "Completed",
    "DemoProvider",
    "OpenAICompatProvider",
    "ProviderError",
    "ProviderOptions",
    "ProviderRegistry",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCall",
    "Usage",
    "build_registry",
    "resolve_provider",
]
